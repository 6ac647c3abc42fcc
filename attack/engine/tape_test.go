package engine_test

import (
	"context"
	"math"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/model"
)

// The tape engine (autograd through gcn_norm and the model) and the
// analytic GCN engine agree on every pair's gradient.
func TestTapeEngineMatchesGCNEngine(t *testing.T) {
	p := attacktest.SmallProblem(t, 11, 3)
	m := attacktest.RandomGCN(t, p, 5)
	ge, err := engine.NewGCN(m, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	te, err := engine.NewTape(m, p)
	if err != nil {
		t.Fatal(err)
	}
	pairs := attacktest.AllPairs(11)
	q := make([]float32, len(pairs))
	for i := range q {
		q[i] = 0.1 + 0.8*float32(i%7)/7
	}
	w, _ := attack.Perturbed(p.Adj, pairs, q, -1)
	a, b := make([]float32, len(pairs)), make([]float32, len(pairs))
	e1, err := ge.Evaluate(w, attacktest.MustLoss(t, "tanh_margin"), p.Test, p.Labels, true)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := te.Evaluate(w, attacktest.MustLoss(t, "tanh_margin"), p.Test, p.Labels, true)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e1.Loss-e2.Loss) > 1e-5 {
		t.Fatalf("loss %v vs %v", e1.Loss, e2.Loss)
	}
	if err := ge.PairGrad(pairs, a); err != nil {
		t.Fatal(err)
	}
	if err := te.PairGrad(pairs, b); err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5+1e-3*math.Abs(float64(a[i])) {
			t.Fatalf("pair %v: analytic %v, tape %v", pairs[i], a[i], b[i])
		}
	}
}

// Adaptive attacks through a Soft Medoid GCN: finite differences of the
// tape engine's pair gradients, and an adaptive PR-BCD run.
func TestTapeEngineSoftMedoid(t *testing.T) {
	p := attacktest.SmallProblem(t, 12, 4)
	m, err := model.Default(attacktest.Aggregators).New("sm_gcn", p.Features.Cols, p.NumClasses,
		model.Options{Seed: 1, Hidden: 6, Temperature: 0.5, K: 16}) // k ≥ n: no top-k switching under ±h
	if err != nil {
		t.Fatal(err)
	}
	te, err := engine.NewTape(m, p)
	if err != nil {
		t.Fatal(err)
	}
	pairs := attacktest.AllPairs(12)
	q := make([]float32, len(pairs))
	rng := attacktest.RNG(9, 9)
	for i := range q {
		q[i] = 0.2 + 0.6*rng.Float32()
	}
	w, _ := attack.Perturbed(p.Adj, pairs, q, -1)
	if _, err := te.Evaluate(w, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, true); err != nil {
		t.Fatal(err)
	}
	g := make([]float32, len(pairs))
	if err := te.PairGrad(pairs, g); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := 0; i < len(pairs); i += 3 {
		const h = 1e-3
		val := func(d float32) float64 {
			qq := append([]float32(nil), q...)
			qq[i] += d * attacktest.EdgeSign(p.Adj, pairs[i])
			w, _ := attack.Perturbed(p.Adj, pairs, qq, -1)
			ev, err := te.Evaluate(w, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, false)
			if err != nil {
				t.Fatal(err)
			}
			return ev.Loss
		}
		fd := (val(h) - val(-h)) / (2 * h)
		if math.Abs(fd-float64(g[i])) > 3e-3+5e-2*math.Abs(fd) {
			bad++ // the top-k neighbourhood may switch inside ±h
			t.Logf("pair %v: gradient %v, finite difference %v", pairs[i], g[i], fd)
		}
	}
	if bad > 2 {
		t.Fatalf("%d pair gradients disagree with finite differences", bad)
	}
	r, err := protocol.Run(context.Background(), protocol.Config{Attack: "prbcd", Epsilons: []float64{0.2}, Seed: 1, Adaptive: true,
		Options: attack.Options{Epochs: 10, BlockSize: 30}, Victims: []protocol.Victim{{Name: "sm_gcn", Model: m}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "adaptive" || r.Budgets[0].NumFlips > r.Budgets[0].Budget {
		t.Fatalf("adaptive run: %+v", r.Budgets[0])
	}
	if _, err := engine.NewTape(attacktest.MustModel(t, "sm_gdc", p), p); err == nil {
		t.Fatal("sm_gdc accepted by the tape engine")
	}
}
