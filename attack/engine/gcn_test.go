package engine_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/train"
)

// The engine's logits equal the model's forward pass on the weighted graph.
func TestGCNEngineMatchesModel(t *testing.T) {
	p := attacktest.SmallProblem(t, 12, 1)
	m := attacktest.RandomGCN(t, p, 3)
	e, err := engine.NewGCN(m, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	pairs := []attack.Flip{{U: 0, V: 5}, {U: 1, V: 2}, {U: 3, V: 11}, {U: 4, V: 7}}
	w, err := attack.Perturbed(p.Adj, pairs, []float32{0.3, 0.7, 0.2, 0.9}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Evaluate(w, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, false); err != nil {
		t.Fatal(err)
	}
	g, err := m.Preprocess(w, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	want := train.Predict(m, g, autograd.NewSparse(p.Features))
	for i, v := range want.Data {
		if d := math.Abs(float64(v - e.Logits().Data[i])); d > 1e-4*(1+math.Abs(float64(v))) {
			t.Fatalf("logit %d: engine %v, model %v", i, e.Logits().Data[i], v)
		}
	}
}

// Pair gradients (edges and non-edges, PairGrad and ScanPairs) match
// central finite differences of the loss in float64-ish precision.
func TestGCNEnginePairGradFD(t *testing.T) {
	p := attacktest.SmallProblem(t, 10, 2)
	m := attacktest.RandomGCN(t, p, 4)
	e, err := engine.NewGCN(m, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"ce", "tanh_margin", "margin", "ce/propagated", "tanh_margin/propagated"} {
		name, propagated := strings.CutSuffix(mode, "/propagated")
		e.UsePropagatedDegreeTerms(propagated)
		loss, _ := attack.LossByName(name)
		var all []attack.Flip
		for u := 0; u < 10; u++ {
			for v := u + 1; v < 10; v++ {
				all = append(all, attack.Flip{U: int32(u), V: int32(v)})
			}
		}
		base := make([]float32, len(all))
		for i := range base {
			base[i] = 0.5 // weights of 1 − 0.5 or 0.5: every pair present
		}
		w, _ := attack.Perturbed(p.Adj, all, base, -1)
		if _, err := e.Evaluate(w, loss, p.Test, p.Labels, true); err != nil {
			t.Fatal(err)
		}
		g := make([]float32, len(all))
		if err := e.PairGrad(all, g); err != nil {
			t.Fatal(err)
		}
		scan := make([]float32, len(all))
		e.ScanPairs(func(u int, s []float32) {
			copy(scan[u*(2*10-u-1)/2:], s) // the row-major index of (u, u+1)
		})
		e.ScanPairsRaw(func(u int, s []float32, gu float32, gamma []float32) {
			for j, x := range s { // ScanPairs' bits with the terms added by the caller
				if got, want := x+(gu+gamma[u+1+j]), scan[u*(2*10-u-1)/2+j]; got != want {
					t.Errorf("%s pair (%d, %d): ScanPairsRaw gives %v, ScanPairs %v", mode, u, u+1+j, got, want)
				}
			}
		})
		for i, f := range all {
			if d := math.Abs(float64(scan[i] - g[i])); d > 1e-5+1e-4*math.Abs(float64(g[i])) {
				t.Fatalf("%s pair %v: ScanPairs %v, PairGrad %v", mode, f, scan[i], g[i])
			}
			const h = 1e-2
			val := func(delta float32) float64 {
				q := append([]float32(nil), base...)
				q[i] += delta * attacktest.EdgeSign(p.Adj, f)
				w, _ := attack.Perturbed(p.Adj, all, q, -1)
				ev, err := e.Evaluate(w, loss, p.Test, p.Labels, false)
				if err != nil {
					t.Fatal(err)
				}
				return ev.Loss
			}
			fd := (val(h) - val(-h)) / (2 * h)
			if math.Abs(fd-float64(g[i])) > 2e-3+2e-2*math.Abs(fd) {
				t.Errorf("%s pair %v: gradient %v, finite difference %v", mode, f, g[i], fd)
			}
		}
	}
}
