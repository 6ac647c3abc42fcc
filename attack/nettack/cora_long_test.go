//go:build long

package nettack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/internal/stats"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// TestNettackCoraML is the acceptance run: on cora_ml, seeds 0, 1, 5, the
// 40-target protocol (targets chosen with the pretrained reference GCN),
// budget deg+2, direct Nettack on the linearised GCN surrogate, evasion;
// the perturbed graphs are transferred to the pretrained reference GCN and
// Soft Medoid GDC (T = 0.2). Writes $RGNN_NETTACK_OUT (JSON) if set.
//
//	go test -tags long -run TestNettackCoraML -timeout 2h -v ./attack/nettack
func TestNettackCoraML(t *testing.T) {
	dataDir := fixture.DataDir(t)
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	reg := model.Default(func(name string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
	})
	type victim struct {
		label, name, stem string
		opts              model.Options
	}
	victims := []victim{{"Vanilla GCN", "gcn", "Vanilla_GCN", model.Options{}}}
	if os.Getenv("RGNN_NETTACK_GCN_ONLY") == "" {
		victims = append(victims, victim{"SM GDC (T=0.2)", "sm_gdc", "Soft_Medoid_GDC_T_0_2", model.Options{Temperature: 0.2}})
	}
	x := autograd.NewSparse(g.Features)
	deg := graph.Degrees(g.Adj)
	type row struct {
		Victim string            `json:"victim"`
		Seed   int               `json:"seed"`
		Clean  nettack.Summary   `json:"clean"`
		Attack nettack.Summary   `json:"attacked"`
		PerTgt []float64         `json:"margins"`
		Flips  []nettack.Result  `json:"-"`
		Extra  map[string]string `json:"extra,omitempty"`
	}
	var rows []row
	var attackSecs float64
	var nTargets int
	for _, seed := range []int{0, 1, 5} {
		trainIdx, valIdx, testIdx, err := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
		if err != nil {
			t.Fatal(err)
		}
		ms := make([]model.Model, len(victims))
		for i, v := range victims {
			m, err := reg.New(v.name, g.Features.Cols, g.NumClasses, v.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := model.LoadWeights(m, fixture.Reference(t, fmt.Sprintf("pretrained/cora_ml_%s_s%d_bin0.npz", v.stem, seed))); err != nil {
				t.Fatal(err)
			}
			ms[i] = m
		}
		pg, err := ms[0].Preprocess(g.Adj, g.Features)
		if err != nil {
			t.Fatal(err)
		}
		cleanMargins := nettack.ProbMargins(train.Predict(ms[0], pg, x), g.Labels)
		nodes, err := nettack.SelectTargets(g.Adj, cleanMargins, testIdx, nettack.SelectOptions{Seed: uint64(seed)})
		if err != nil {
			t.Fatal(err)
		}
		sur, err := nettack.TrainSurrogate(context.Background(), g.Adj, g.Features, g.Labels, g.NumClasses, trainIdx, valIdx,
			nettack.SurrogateOptions{Seed: uint64(seed)})
		if err != nil {
			t.Fatal(err)
		}
		targets := make([]nettack.Target, len(nodes))
		for i, u := range nodes {
			targets[i] = nettack.Target{Node: u, Budget: nettack.BudgetDegreePlus2(deg[u])}
		}
		start := time.Now()
		res, err := nettack.Attack(context.Background(), g.Adj, sur, g.Labels, targets, nettack.Options{RepoLogLikelihood: os.Getenv("RGNN_NETTACK_REPO_LL") != ""}, nil)
		if err != nil {
			t.Fatal(err)
		}
		secs := time.Since(start).Seconds()
		attackSecs += secs
		nTargets += len(targets)
		t.Logf("seed %d: attacked %d targets in %.2f s (%.3f s/target, GOMAXPROCS %d)", seed, len(targets), secs, secs/float64(len(targets)), runtime.GOMAXPROCS(0))
		for vi, v := range victims {
			m := ms[vi]
			cg, err := m.Preprocess(g.Adj, g.Features)
			if err != nil {
				t.Fatal(err)
			}
			cm := nettack.ProbMargins(train.Predict(m, cg, x), g.Labels)
			clean := make([]float64, len(res))
			pert := make([]float64, len(res))
			for i, r := range res {
				clean[i] = cm[r.Node]
				p, err := nettack.Perturbed(g.Adj, r)
				if err != nil {
					t.Fatal(err)
				}
				pgv, err := m.Preprocess(p, g.Features)
				if err != nil {
					t.Fatal(err)
				}
				pert[i] = nettack.ProbMargins(train.Predict(m, pgv, x), g.Labels)[r.Node]
			}
			rw := row{Victim: v.label, Seed: seed, Clean: nettack.Summarize(clean), Attack: nettack.Summarize(pert), PerTgt: pert}
			rows = append(rows, rw)
			t.Logf("seed %d %-16s clean margin %+.3f fail %.3f | attacked margin %+.3f failure rate %.3f",
				seed, v.label, rw.Clean.MeanMargin, rw.Clean.FailureRate, rw.Attack.MeanMargin, rw.Attack.FailureRate)
		}
	}
	for _, v := range victims {
		var mm, ff []float64
		for _, r := range rows {
			if r.Victim == v.label {
				mm = append(mm, r.Attack.MeanMargin)
				ff = append(ff, r.Attack.FailureRate)
			}
		}
		mMean, mSE := stats.MeanSE(mm)
		fMean, fSE := stats.MeanSE(ff)
		t.Logf("%-16s margin %+.2f ± %.2f  failure rate %.2f ± %.2f (mean ± s.e. over seeds 0, 1, 5)", v.label, mMean, mSE, fMean, fSE)
		if v.name == "gcn" && (mMean > -0.41 || fMean > 0.18) {
			t.Errorf("GCN: margin %.3f (want ≤ −0.41), failure rate %.3f (want ≤ 0.18)", mMean, fMean)
		}
	}
	t.Logf("attack time: %.3f s per target over %d targets", attackSecs/float64(nTargets), nTargets)
	if out := os.Getenv("RGNN_NETTACK_OUT"); out != "" {
		b, _ := json.MarshalIndent(rows, "", " ")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
