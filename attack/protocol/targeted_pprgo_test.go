package protocol

import (
	"context"
	"reflect"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// Local PR-BCD directly on PPRGo and Soft Median PPRGo through the local
// engine: flips touch the target and fit the budget, every row has the
// relaxed-update margin next to the recomputed one and the relaxed margin
// falls for most targets, and the flips are the same at GOMAXPROCS 1 and 2
// (workers = GOMAXPROCS), for the whole row and for a resampled block. (On
// this dense random graph — a quarter of all pairs are edges — the flips'
// effect on the other endpoints' rows, which the local update ignores, is
// large: TestLocalPRBCDPPRGoCoraML checks the recomputed margins.)
func TestLocalPRBCDDirectPPRGo(t *testing.T) {
	p := attacktest.SmallProblem(t, 60, 9)
	targets := p.Test[:6]
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		m := trainedSmall(t, p, name, 1)
		for _, block := range []int{0, 25} {
			var prev *TargetedResult
			for _, procs := range []int{1, 2} {
				old := runtime.GOMAXPROCS(procs)
				res, err := RunTargeted(context.Background(), TargetedConfig{Attack: "local_prbcd", Targets: targets,
					Budget: TargetedBudget{Epsilons: []float64{0.5}}, Seed: 4, Direct: true,
					Options: attack.Options{Epochs: 60, FineTuneEpochs: 20, BlockSize: block},
					Victims: []Victim{{Name: name, Model: m}}}, p)
				runtime.GOMAXPROCS(old)
				if err != nil {
					t.Fatal(err)
				}
				lower := 0
				for _, r := range res.Rows {
					v := r.Victims[0]
					if len(v.Flips) > r.Budget {
						t.Fatalf("%s target %d: %d flips, budget %d", name, r.Target, len(v.Flips), r.Budget)
					}
					for _, f := range v.Flips {
						if f[0] != r.Target && f[1] != r.Target {
							t.Fatalf("%s target %d: flip %v does not touch it", name, r.Target, f)
						}
					}
					if v.RelaxedMargin == nil {
						t.Fatalf("%s target %d: no relaxed margin", name, r.Target)
					}
					if *v.RelaxedMargin < v.CleanMargin-1e-3 {
						lower++
					}
				}
				if lower < len(res.Rows)/2 {
					t.Errorf("%s block %d: only %d of %d relaxed margins fell", name, block, lower, len(res.Rows))
				}
				if prev != nil && !reflect.DeepEqual(prev.Rows, res.Rows) {
					t.Fatalf("%s block %d: GOMAXPROCS 1 and 2 differ:\n%+v\n%+v", name, block, prev.Rows, res.Rows)
				}
				prev = res
			}
			for _, r := range prev.Rows {
				v := r.Victims[0]
				t.Logf("%s block %d target %d (deg %d, budget %d): margin %.3f → relaxed %.3f, recomputed %.3f",
					name, block, r.Target, r.Degree, r.Budget, v.CleanMargin, *v.RelaxedMargin, v.Margin)
			}
		}
	}
}

// Transfer: flips from the GCN surrogate evaluated on a PPRGo victim (its
// row pushed on each perturbed graph, and the local engine's margin).
func TestLocalPRBCDTransferPPRGo(t *testing.T) {
	p := attacktest.SmallProblem(t, 50, 10)
	m := trainedSmall(t, p, "pprgo", 2)
	gcn := trainedSmall(t, p, "gcn", 2)
	res, err := RunTargeted(context.Background(), TargetedConfig{Attack: "local_prbcd", Targets: p.Test[:4],
		Budget: TargetedBudget{Plus: 2}, Seed: 1, Surrogate: gcn,
		Options: attack.Options{Epochs: 30, FineTuneEpochs: 10},
		Victims: []Victim{{Name: "gcn", Model: gcn}, {Name: "pprgo", Model: m}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "transfer" {
		t.Fatalf("mode %s", res.Mode)
	}
	for _, r := range res.Rows {
		g, v := r.Victims[0], r.Victims[1]
		if !reflect.DeepEqual(g.Flips, v.Flips) || v.RelaxedMargin == nil || g.RelaxedMargin != nil {
			t.Fatalf("target %d: %+v", r.Target, r.Victims)
		}
		if len(v.Flips) == 0 && (v.Margin != v.CleanMargin) {
			t.Errorf("target %d: no flips, margin %v → %v", r.Target, v.CleanMargin, v.Margin)
		}
	}
}

// On cora_ml, local PR-BCD against a PPRGo trained here (budgets
// round(ε·deg), ε = 0.5 and 1, targets of degree ≥ 2 from the test set)
// lowers the recomputed margin (the target's row pushed on the perturbed
// graph) of most targets, not only the relaxed one.
func TestLocalPRBCDPPRGoCoraML(t *testing.T) {
	if testing.Short() {
		t.Skip("cora_ml PPRGo training; skipped with -short")
	}
	p := attacktest.LoadCora(t, 0)
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		m, err := model.Default(attacktest.Aggregators).New(name, p.Features.Cols, p.NumClasses, model.Options{Seed: 0, Temperature: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.Preprocess(p.Adj, p.Features)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := train.Fit(context.Background(), m, g, p, train.Config{Seed: 0, MaxEpochs: 150, Patience: 50}); err != nil {
			t.Fatal(err)
		}
		var targets []int
		deg := make([]int, p.Adj.Rows)
		for u := range deg {
			deg[u] = p.Adj.Indptr[u+1] - p.Adj.Indptr[u]
		}
		for _, u := range p.Test {
			if deg[u] >= 2 && len(targets) < 6 {
				targets = append(targets, u)
			}
		}
		res, err := RunTargeted(context.Background(), TargetedConfig{Attack: "local_prbcd", Targets: targets,
			Budget: TargetedBudget{Epsilons: []float64{0.5, 1}}, Seed: 0, Direct: true,
			Options: attack.Options{Epochs: 100, FineTuneEpochs: 20},
			Victims: []Victim{{Name: name, Model: m}}}, p)
		if err != nil {
			t.Fatal(err)
		}
		lower := 0
		for _, r := range res.Rows {
			v := r.Victims[0]
			if v.Margin < v.CleanMargin-1e-3 {
				lower++
			}
			t.Logf("%s target %d (deg %d, budget %d): margin %.3f → relaxed %.3f, recomputed %.3f (%d flips)",
				name, r.Target, r.Degree, r.Budget, v.CleanMargin, *v.RelaxedMargin, v.Margin, len(v.Flips))
		}
		if lower*3 < len(res.Rows)*2 {
			t.Errorf("%s: %d of %d recomputed margins fell", name, lower, len(res.Rows))
		}
		t.Logf("%s: %+v", name, res.Summary)
	}
}
