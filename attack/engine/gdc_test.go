package engine_test

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// gdcTestModel is a randomly initialised GDC model (k = 8 < n) with weights
// large enough for informative gradients.
func gdcTestModel(t *testing.T, name string, p *data.Problem) model.Model {
	t.Helper()
	return randomTestModel(t, name, p, model.Options{K: 8}, 3)
}

// randomTestModel is model name (seed 3, 6 hidden, T = 0.5, and o's K and
// PPREps) with its parameters drawn N(0, scale²) from a fixed stream.
func randomTestModel(t *testing.T, name string, p *data.Problem, o model.Options, scale float64) model.Model {
	t.Helper()
	m, err := model.Default(attacktest.Aggregators).New(name, p.Features.Cols, p.NumClasses,
		model.Options{Seed: 3, Hidden: 6, Temperature: 0.5, K: o.K, PPREps: o.PPREps})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	for _, q := range m.Params() {
		for i := range q.Value.Data {
			q.Value.Data[i] = float32(scale * rng.NormFloat64())
		}
	}
	return m
}

func samePattern(a, b *tensor.CSR) bool {
	if a.Nnz() != b.Nnz() {
		return false
	}
	for i := range a.Indptr {
		if a.Indptr[i] != b.Indptr[i] {
			return false
		}
	}
	for k := range a.Indices {
		if a.Indices[k] != b.Indices[k] {
			return false
		}
	}
	return true
}

// fdCheck tallies pair gradients against finite differences (each within
// 1e-3 + 2e-2·|fd|) and fails a check too weak to mean anything.
type fdCheck struct {
	checked, bad, skipped int
	maxG, worst           float64
}

// add compares the gradient g of pair f with its finite difference fd.
func (c *fdCheck) add(t *testing.T, f attack.Flip, g float32, fd float64) {
	t.Helper()
	c.checked++
	c.maxG, c.worst = max(c.maxG, math.Abs(fd)), max(c.worst, math.Abs(fd-float64(g)))
	if math.Abs(fd-float64(g)) > 1e-3+2e-2*math.Abs(fd) {
		c.bad++
		t.Logf("pair %v: gradient %v, finite difference %v", f, g, fd)
	}
}

// finish fails the test if fewer than minChecked pairs were compared, the
// gradients were all tiny, or any disagreed.
func (c *fdCheck) finish(t *testing.T, minChecked int) {
	t.Helper()
	t.Logf("%d pairs checked (%d skipped: not smooth at ±h), max |∂L/∂w| %.3g, max |error| %.2g",
		c.checked, c.skipped, c.maxG, c.worst)
	if c.checked < minChecked || c.maxG < 1e-2 {
		t.Fatalf("too weak a check: %d pairs, max gradient %v", c.checked, c.maxG)
	}
	if c.bad > 0 {
		t.Fatalf("%d of %d pair gradients disagree with finite differences", c.bad, c.checked)
	}
}

// Finite differences of the GDC engine's pair gradients (existing edges,
// relaxed block entries and absent pairs), for a GCN and a Soft Medoid on
// GDC. Pairs whose ±h step changes the top-k pattern are skipped.
func TestGDCEnginePairGradFiniteDifferences(t *testing.T) {
	const n = 30
	p := attacktest.SmallProblem(t, n, 7)
	pairs := attacktest.AllPairs(n)
	rng := attacktest.RNG(5, 5)
	var block []attack.Flip
	var q []float32
	for _, f := range pairs {
		if rng.Float64() < 0.1 {
			block = append(block, f)
			q = append(q, 0.1+0.8*rng.Float32())
		}
	}
	for _, name := range []string{"gdc", "sm_gdc"} {
		t.Run(name, func(t *testing.T) {
			m := gdcTestModel(t, name, p)
			e, err := engine.NewGDC(m, p)
			if err != nil {
				t.Fatal(err)
			}
			if !e.AnyPair() {
				t.Fatal("GDC engine should take any pair")
			}
			w, _ := attack.Perturbed(p.Adj, block, q, -1)
			sk0, err := graph.ExactGDC(w, 0.15, 8)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Evaluate(w, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, true); err != nil {
				t.Fatal(err)
			}
			g := make([]float32, len(pairs))
			if err := e.PairGrad(pairs, g); err != nil {
				t.Fatal(err)
			}
			var c fdCheck
			for i := 0; i < len(pairs); i += 5 {
				const h = 1e-2 // the loss is float32 noise (~1e-6) at smaller steps
				f := pairs[i]
				val := func(d float32) (float64, bool) {
					wd := w.Clone()
					k1, ok1 := wd.Find(int(f.U), int(f.V))
					k2, _ := wd.Find(int(f.V), int(f.U))
					if !ok1 {
						if d < 0 {
							return math.NaN(), false // a weight cannot go below 0
						}
						wd, _ = attack.Perturbed(w, []attack.Flip{f}, []float32{d}, -1)
					} else {
						wd.Values[k1] += d
						wd.Values[k2] += d
					}
					sk, err := graph.ExactGDC(wd, 0.15, 8)
					if err != nil {
						t.Fatal(err)
					}
					ev, err := e.Evaluate(wd, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, false)
					if err != nil {
						t.Fatal(err)
					}
					return ev.Loss, samePattern(sk, sk0)
				}
				_, present := w.Find(int(f.U), int(f.V))
				lp, okp := val(h)
				var fd float64
				if present {
					lm, okm := val(-h)
					if !okp || !okm {
						c.skipped++
						continue
					}
					fd = (lp - lm) / (2 * h)
				} else { // absent pair: second-order one-sided difference at weight 0
					l2, ok2 := val(2 * h)
					if !okp || !ok2 {
						c.skipped++
						continue
					}
					l0, _ := e.Evaluate(w, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, false)
					fd = (4*lp - 3*l0.Loss - l2) / (2 * h)
				}
				c.add(t, f, g[i], fd)
			}
			c.finish(t, 50)
		})
	}
}

// The engine's forward equals the model's own Preprocess + eval forward on
// a weighted graph, its gradients do not depend on GOMAXPROCS, and an
// adaptive PR-BCD run through GDC works end to end.
func TestGDCEngineForwardAndDeterminism(t *testing.T) {
	const n = 30
	p := attacktest.SmallProblem(t, n, 8)
	m := gdcTestModel(t, "sm_gdc", p)
	eng, err := engine.New(m, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := eng.(*engine.GDC); !ok {
		t.Fatalf("NewEngine gave %T for sm_gdc", eng)
	}
	sameAsModel(t, eng, m, p)
	pairs := attacktest.AllPairs(n)
	grads := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		e, _ := engine.NewGDC(m, p)
		w, _ := attack.Perturbed(p.Adj, pairs[:40], make([]float32, 40), -1)
		for i := range w.Values {
			w.Values[i] *= 0.9
		}
		if _, err := e.Evaluate(w, attacktest.MustLoss(t, "tanh_margin"), p.Test, p.Labels, true); err != nil {
			t.Fatal(err)
		}
		out := make([]float32, len(pairs))
		if err := e.PairGrad(pairs, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := grads(1), grads(2)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("pair %v: %v with 1 proc, %v with 2", pairs[i], a[i], b[i])
		}
	}
	r, err := protocol.Run(context.Background(), protocol.Config{Attack: "prbcd", Epsilons: []float64{0.2}, Seed: 1, Adaptive: true,
		Options: attack.Options{Epochs: 10, BlockSize: 100}, Victims: []protocol.Victim{{Name: "sm_gdc", Model: m}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	b0 := r.Budgets[0]
	if r.Mode != "adaptive" || b0.NumFlips > b0.Budget || b0.AttackedAccuracy != b0.Victims[0].Accuracy {
		t.Fatalf("adaptive run: mode %s %+v", r.Mode, b0)
	}
}

// BenchmarkGDCEngineCora is one adaptive step through GDC against the
// reference Soft Medoid GDC (T = 0.5) on cora_ml: Evaluate with gradients on
// the clean graph, then PairGrad for 1e5 random pairs.
func BenchmarkGDCEngineCora(b *testing.B) {
	p := attacktest.LoadCora(b, 0)
	m := attacktest.Pretrained(b, "sm_gdc", "Soft_Medoid_GDC_T_0_5", 0.5, 0, p)
	e, err := engine.NewGDC(m, p)
	if err != nil {
		b.Fatal(err)
	}
	rng := attacktest.RNG(1, 1)
	pairs := make([]attack.Flip, 100_000)
	for i := range pairs { // uniform over the pairs u < v
		u, v := rng.IntN(p.Adj.Rows), rng.IntN(p.Adj.Rows)
		for u == v {
			u, v = rng.IntN(p.Adj.Rows), rng.IntN(p.Adj.Rows)
		}
		pairs[i] = attack.Flip{U: int32(min(u, v)), V: int32(max(u, v))}
	}
	out := make([]float32, len(pairs))
	loss := attacktest.MustLoss(b, "tanh_margin")
	for b.Loop() {
		if _, err := e.Evaluate(p.Adj, loss, p.Test, p.Labels, true); err != nil {
			b.Fatal(err)
		}
		if err := e.PairGrad(pairs, out); err != nil {
			b.Fatal(err)
		}
	}
}

// On cora_ml with the reference Soft Medoid GDC (T = 0.5, seed 0), the
// engine's forward gives the victim evaluation's accuracy exactly (the same
// diffusion solves and top-k), and its gradients are finite.
func TestGDCEngineCoraMatchesVictim(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p := attacktest.LoadCora(t, 0)
	m := attacktest.Pretrained(t, "sm_gdc", "Soft_Medoid_GDC_T_0_5", 0.5, 0, p)
	e, err := engine.NewGDC(m, p)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := e.Evaluate(p.Adj, attacktest.MustLoss(t, "tanh_margin"), p.Test, p.Labels, true)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := protocol.EvaluateVictim(m, p, p.Adj)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Accuracy != acc || math.Abs(acc-0.8202) > 5e-5 {
		t.Fatalf("engine accuracy %v, victim evaluation %v (reference run: 0.8202)", ev.Accuracy, acc)
	}
	pairs := []attack.Flip{{U: 0, V: 1}, {U: 5, V: 2000}, {U: 100, V: 2809}}
	out := make([]float32, len(pairs))
	if err := e.PairGrad(pairs, out); err != nil {
		t.Fatal(err)
	}
	for i, g := range out {
		if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
			t.Fatalf("pair %v: gradient %v", pairs[i], g)
		}
	}
}

// The GDC engine refuses what it cannot differentiate, naming the reason.
func TestGDCEngineRefuses(t *testing.T) {
	p := attacktest.SmallProblem(t, 12, 2)
	cases := []struct {
		name string
		o    model.Options
		p    *data.Problem
		want string
	}{
		{"sm_gcn", model.Options{}, p, "no GDC"},
		{"gdc", model.Options{PPREps: 1e-4}, p, "exact diffusion"},
		{"gdc", model.Options{}, &data.Problem{Adj: &tensor.CSR{Rows: engine.MaxGDCNodes + 1, Cols: engine.MaxGDCNodes + 1,
			Indptr: make([]int, engine.MaxGDCNodes+2)}}, "exceed the limit"},
	}
	for _, c := range cases {
		m, err := model.Default(attacktest.Aggregators).New(c.name, p.Features.Cols, p.NumClasses, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.NewGDC(m, c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
