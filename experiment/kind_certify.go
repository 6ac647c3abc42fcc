package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// certifyKind samples the votes of the smoothed classifier of a trained
// model (trained if the store has no train result with the same
// parameters), stores them (artifact "votes") and computes the sparse
// randomized-smoothing certificate over the test nodes. Metrics:
// accumulated_certifications, smoothed_accuracy, avg_radius_add/_del (all
// test nodes, as the reference), avg_radius_add/_del_correct (paper Eq. 9),
// ratio (R[ra][rd]), degree_bins, clean_accuracy, n_test.
func certifyKind() *Kind {
	return &Kind{
		Name: "certify",
		Doc:  "randomized-smoothing certificate of a trained model",
		Params: append(trainParams(),
			Param{"p_add", 0.0, "p₊, probability of adding an absent edge"},
			Param{"p_del", 0.0, "p₋, probability of deleting an edge"},
			Param{"samples", 10000, "n₁, samples for the votes"},
			Param{"pre_samples", 100, "n₀, samples for the pre-votes"},
			Param{"alpha", 0.05, "significance level"},
			Param{"sample_ppr_eps", 1e-4, "GDC models: push-PPR error on the sampled graphs"},
			Param{"degree_bins", 5, "equal-frequency degree bins"},
		),
		Run: runCertify,
	}
}

func runCertify(ctx context.Context, env *Env, p store.Params) (*Output, error) {
	pAdd, pDel := pFloat(p, "p_add"), pFloat(p, "p_del")
	if !(pAdd >= 0 && pAdd < 1) || !(pDel >= 0 && pDel < 1) || pAdd == 0 && pDel == 0 {
		return nil, fmt.Errorf("p_add %g, p_del %g: need probabilities in [0, 1), not both 0", pAdd, pDel)
	}
	alpha := pFloat(p, "alpha")
	if !(alpha > 0 && alpha < 0.5) || pInt(p, "samples") < 1 || pInt(p, "pre_samples") < 1 || pInt(p, "degree_bins") < 1 {
		return nil, fmt.Errorf("need alpha in (0, 0.5), samples, pre_samples and degree_bins ≥ 1")
	}
	base, pb, tr, err := env.Trained(ctx, p)
	if err != nil {
		return nil, err
	}
	sampler, err := certify.NewSampler(pb.Graph.Adj, pb.Graph.Features, certify.SampleParams{PPlusAdj: pAdd, PMinusAdj: pDel})
	if err != nil {
		return nil, err
	}
	o := ModelOptions(p)
	o.PPREps = pFloat(p, "sample_ppr_eps") // every sample needs a fresh diffusion
	newPredictor := func() (certify.Predictor, error) {
		m, err := env.NewModel(p, pb, o)
		if err != nil {
			return nil, err
		}
		for i, q := range m.Params() {
			copy(q.Value.Data, base.Params()[i].Value.Data)
		}
		return predictor(m, pb), nil
	}
	seed := uint64(pInt(p, "seed"))
	last := time.Now()
	vf, err := certify.Smooth(ctx, sampler, pb.Graph.NumClasses, certify.SmoothOptions{
		PreSamples: pInt(p, "pre_samples"), Samples: pInt(p, "samples"), Seed: seed,
		Workers: env.SampleWorkers, NewPredictor: newPredictor,
		Progress: func(stage string, done, total int) {
			if time.Since(last) > 10*time.Second {
				last = time.Now()
				env.logf("    certify %s p+=%g p-=%g: %s %d/%d", pStr(p, "model"), pAdd, pDel, stage, done, total)
			}
		}})
	if err != nil {
		return nil, err
	}
	sha, err := env.Store.PutArtifact(vf.Save)
	if err != nil {
		return nil, err
	}
	cert, err := certify.Compute(vf.Votes, vf.PreVotes, certify.Params{PPlus: pAdd, PMinus: pDel, Alpha: alpha,
		NumSamples: vf.NumSamples}, nil)
	if err != nil {
		return nil, err
	}
	g := pb.Graph
	met, err := cert.Metrics(g.Labels, pb.Test)
	if err != nil {
		return nil, err
	}
	degrees := make([]int, g.NumNodes())
	for i := range degrees {
		lo, hi := g.Adj.RowRange(i)
		degrees[i] = hi - lo
	}
	bins, err := cert.DegreeTable(g.Labels, pb.Test, degrees, certify.QuantileDegreeEdges(degrees, pb.Test, pInt(p, "degree_bins")))
	if err != nil {
		return nil, err
	}
	var binRows []map[string]any
	for _, b := range bins {
		binRows = append(binRows, map[string]any{"min_degree": b.MinDegree, "max_degree": b.MaxDegree, "n": b.Nodes,
			"accumulated_certifications": b.AccumulatedCertifications, "smoothed_accuracy": b.SmoothedAccuracy,
			"avg_radius_add": b.AvgRadiusAdd, "avg_radius_del": b.AvgRadiusDel})
	}
	return &Output{
		Metrics: map[string]any{
			"accumulated_certifications": met.AccumulatedCertifications, "smoothed_accuracy": met.SmoothedAccuracy,
			"avg_radius_add": met.AvgRadiusAdd, "avg_radius_del": met.AvgRadiusDel,
			"avg_radius_add_correct": met.AvgRadiusAddCorrect, "avg_radius_del_correct": met.AvgRadiusDelCorrect,
			"ratio": met.Ratio, "degree_bins": binRows, "n_test": met.Nodes,
			"clean_accuracy": tr.Metrics["test_accuracy"],
		},
		Artifacts: map[string]string{"votes": sha},
	}, nil
}

// predictor classifies every node of a perturbed graph by the argmax of the
// model's logits, preprocessing recomputed.
func predictor(m model.Model, pb *Problem) certify.Predictor {
	return certify.PredictorFunc(func(adj, feats *tensor.CSR) ([]int32, error) {
		x := pb.X
		if feats != pb.Graph.Features {
			x = nil // perturbed attributes
		}
		return train.Classify(m, adj, feats, x)
	})
}
