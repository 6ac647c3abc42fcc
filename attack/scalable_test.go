package attack_test

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
)

// On cora_ml, the gradient path of large graphs (per-pair gradients with
// the propagated degree terms) equals the one cora_ml runs (the all-pairs
// ScanPairs stream with per-edge degree terms) within float32 rounding, on
// a PR-BCD block of 1e6 pairs with relaxed weights; and PR-BCD with the
// large-graph path throughout (hash-set block, propagated degree terms)
// makes the same flips (at GOMAXPROCS 1, the cora_ml path at 2).
func TestScalablePathMatchesDenseOnCora(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p := attacktest.LoadCora(t, 0)
	gcn := attacktest.Pretrained(t, "gcn", "Vanilla_GCN", 1, 0, p)
	n := p.Adj.Rows
	pairs := attack.RandomBlock(p.Adj, 3, 1_000_000)
	r := attacktest.RNG(4, 1)
	pv := make([]float32, len(pairs))
	for i := range pv {
		pv[i] = float32(r.Float64() * 0.02)
	}
	w, err := attack.Perturbed(p.Adj, pairs, pv, -1)
	if err != nil {
		t.Fatal(err)
	}
	loss := attacktest.MustLoss(t, "tanh_margin")
	grads := make([][]float32, 2)
	for k, propagated := range []bool{false, true} {
		e, err := engine.NewGCN(gcn, p.Features)
		if err != nil {
			t.Fatal(err)
		}
		e.UsePropagatedDegreeTerms(propagated)
		if _, err := e.Evaluate(w, loss, p.Test, p.Labels, true); err != nil {
			t.Fatal(err)
		}
		grads[k] = make([]float32, len(pairs))
		if propagated {
			err = e.PairGrad(pairs, grads[k])
		} else {
			err = attack.GradPairs(e, n, pairs, grads[k]) // ScanPairs: the block covers a quarter of all pairs
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	scale := 0.0
	for _, g := range grads[0] {
		scale = math.Max(scale, math.Abs(float64(g)))
	}
	worst := 0.0
	for i := range pairs {
		worst = math.Max(worst, math.Abs(float64(grads[0][i]-grads[1][i]))/scale)
	}
	t.Logf("%d pairs: largest difference %.2g of the largest gradient %.3g", len(pairs), worst, scale)
	if worst > 1e-4 {
		t.Fatalf("gradients differ by %.3g of the largest", worst)
	}

	budget := attack.Budget(0.05, p.Adj.Nnz()/2)
	var flips [2][]attack.Flip
	var acc [2]float64
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for k, scalable := range []bool{false, true} {
		// the cora_ml path at GOMAXPROCS 2, the large-graph one at 1
		runtime.GOMAXPROCS(2 - k)
		spec, _ := attack.Default().Lookup("prbcd")
		a, err := spec.New(attack.Options{Epochs: 10})
		if err != nil {
			t.Fatal(err)
		}
		e, err := engine.NewGCN(gcn, p.Features)
		if err != nil {
			t.Fatal(err)
		}
		if scalable {
			a = attack.WithPairLimit(a, 1)
			e.UsePropagatedDegreeTerms(true)
		}
		env := &attack.Env{Problem: p, Engine: e, Targets: p.Test, Loss: loss}
		if flips[k], err = a.Perturb(context.Background(), env, nil, budget); err != nil {
			t.Fatal(err)
		}
		adj, err := attack.ApplyFlips(p.Adj, flips[k])
		if err != nil {
			t.Fatal(err)
		}
		ev, err := e.Evaluate(adj, loss, p.Test, p.Labels, false)
		if err != nil {
			t.Fatal(err)
		}
		acc[k] = ev.Accuracy
	}
	same := map[attack.Flip]bool{}
	for _, f := range flips[0] {
		same[f] = true
	}
	common := 0
	for _, f := range flips[1] {
		if same[f] {
			common++
		}
	}
	t.Logf("PR-BCD: %d / %d flips in common, accuracy %.4f (cora_ml path) and %.4f (large-graph path)",
		common, len(flips[0]), acc[0], acc[1])
	if common != len(flips[0]) || len(flips[0]) != len(flips[1]) {
		t.Errorf("the large-graph path made other flips: %d of %d in common", common, len(flips[0]))
	}
}
