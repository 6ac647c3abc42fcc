package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// defaultSamplingPPREps is the push error of the GDC diffusion of every
// sampled graph unless --ppr-eps is given. Against exact PPR on the same
// sampled graphs (SM GDC T=0.5, cora_ml; BENCHMARKS.md, "Certification")
// eps 3e-4 changes ~1% of the per-sample predictions (1e-4: ~0.4%, 1e-3:
// ~2%) and the certificates computed from the votes negligibly, at a
// third of the diffusion time of 1e-4 — what brings 10,100 samples of SM
// GDC under 15 min on 2 cores. A certificate stays sound either way: it
// certifies the smoothed classifier whose base model uses this diffusion.
const defaultSamplingPPREps = "3e-4"

// sampleVotes runs --model on randomly perturbed graphs and returns the votes
// (saved to --save-votes if given).
func sampleVotes(c *cobra.Command, p *problem, seed int) (*certify.VoteFile, error) {
	wpath, _ := c.Flags().GetString("weights")
	doTrain, _ := c.Flags().GetBool("train")
	if (wpath == "") == !doTrain {
		return nil, usagef("give --votes, or --model with exactly one of --weights and --train")
	}
	if !c.Flags().Changed("p-add") || !c.Flags().Changed("p-del") {
		return nil, usagef("sampling votes needs --p-add and --p-del")
	}
	pAdd, _ := c.Flags().GetFloat64("p-add")
	pDel, _ := c.Flags().GetFloat64("p-del")
	samples, _ := c.Flags().GetInt("samples")
	pre, _ := c.Flags().GetInt("pre-samples")
	workers, _ := c.Flags().GetInt("workers")
	if samples < 1 || pre < 1 {
		return nil, usagef("--samples and --pre-samples must be ≥ 1")
	}
	if !c.Flags().Changed("ppr-eps") {
		// Every sample needs a fresh diffusion: use the push approximation.
		_ = c.Flags().Set("ppr-eps", defaultSamplingPPREps)
	}
	base, err := newModel(c, p, uint64(seed))
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if doTrain {
		g, err := base.Preprocess(p.Graph.Adj, p.Graph.Features)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(progressWriter(), "training %s (seed %d)...\n", base.Name(), seed)
		if _, err := train.Fit(ctx, base, g, p.dp(),
			train.Config{Seed: uint64(seed)}); err != nil {
			return nil, err
		}
	} else if err := model.LoadWeights(base, wpath); err != nil {
		return nil, err
	}
	sampler, err := certify.NewSampler(p.Graph.Adj, p.Graph.Features, certify.SampleParams{PPlusAdj: pAdd, PMinusAdj: pDel})
	if err != nil {
		return nil, usageError{err}
	}
	newPredictor := func() (certify.Predictor, error) {
		m, err := newModel(c, p, uint64(seed))
		if err != nil {
			return nil, err
		}
		for i, q := range m.Params() {
			copy(q.Value.Data, base.Params()[i].Value.Data)
		}
		return modelPredictor(m, p), nil
	}
	start := time.Now()
	last := start
	vf, err := certify.Smooth(ctx, sampler, p.Graph.NumClasses, certify.SmoothOptions{
		PreSamples: pre, Samples: samples, Seed: uint64(seed), Workers: workers, NewPredictor: newPredictor,
		Progress: func(stage string, done, total int) {
			if time.Since(last) > time.Second || done == total {
				last = time.Now()
				rate := float64(done) / time.Since(start).Seconds()
				fmt.Fprintf(progressWriter(), "\r%s: %d/%d samples (%.1f/s)   ", stage, done, total, rate)
				if done == total {
					fmt.Fprintln(progressWriter())
					start = time.Now()
				}
			}
		}})
	if err != nil {
		return nil, err
	}
	if out, _ := c.Flags().GetString("save-votes"); out != "" {
		if err := vf.Save(out); err != nil {
			return nil, err
		}
		fmt.Fprintf(progressWriter(), "votes saved to %s\n", out)
	}
	return vf, nil
}

// modelPredictor classifies every node of a perturbed graph (preprocessing
// recomputed) by the argmax of the model's logits.
func modelPredictor(m model.Model, p *problem) certify.Predictor {
	return certify.PredictorFunc(func(adj, feats *tensor.CSR) ([]int32, error) {
		x := p.X
		if feats != p.Graph.Features {
			x = nil // perturbed attributes
		}
		return train.Classify(m, adj, feats, x)
	})
}
