package engine_test

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// gdcModelPair is gdcTestModel's model with k = kk twice: with the exact
// diffusion and with the push approximation at eps (the same weights).
func gdcModelPair(t *testing.T, name string, p *data.Problem, kk int, eps float64) (exact, push model.Model) {
	t.Helper()
	reg := model.Default(attacktest.Aggregators)
	var ms [2]model.Model
	for i, e := range []float64{0, eps} {
		m, err := reg.New(name, p.Features.Cols, p.NumClasses,
			model.Options{Seed: 3, Hidden: 6, Temperature: 0.5, K: kk, PPREps: e})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(4, 2))
		for _, q := range m.Params() {
			for j := range q.Value.Data {
				q.Value.Data[j] = float32(3 * rng.NormFloat64())
			}
		}
		ms[i] = m
	}
	return ms[0], ms[1]
}

// pushTestGraph is p's graph with a relaxed block of about a tenth of the
// other pairs stored (weights in [0.1, 0.9]) and every weight scaled by
// 0.9, and the pairs whose gradients the tests compare: the block and the
// edges.
func pushTestGraph(p *data.Problem) (*tensor.CSR, []attack.Flip) {
	n := p.Adj.Rows
	rng := attacktest.RNG(5, 5)
	var block, stored []attack.Flip
	var q []float32
	for _, f := range attacktest.AllPairs(n) {
		if _, ok := p.Adj.Find(int(f.U), int(f.V)); ok {
			stored = append(stored, f)
		} else if rng.Float64() < 0.1 {
			block = append(block, f)
			q = append(q, 0.1+0.8*rng.Float32())
		}
	}
	w, _ := attack.Perturbed(p.Adj, block, q, -1)
	for i := range w.Values {
		w.Values[i] *= 0.9
	}
	return w, append(stored, block...)
}

func pairGrads(t *testing.T, e attack.Engine, w *tensor.CSR, p *data.Problem, pairs []attack.Flip) (float64, []float32) {
	t.Helper()
	ev, err := e.Evaluate(w, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, true)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(pairs))
	if err := e.PairGrad(pairs, out); err != nil {
		t.Fatal(err)
	}
	return ev.Loss, out
}

// With k = n and a tiny push error nothing is truncated: the push engine's
// loss and pair gradients are the dense GDC engine's (whose gradients are
// checked by finite differences), for a GCN and a Soft Medoid on GDC.
func TestPushPPRMatchesGDCEngine(t *testing.T) {
	const n = 30
	p := attacktest.SmallProblem(t, n, 7)
	w, pairs := pushTestGraph(p)
	for _, name := range []string{"gdc", "sm_gdc"} {
		t.Run(name, func(t *testing.T) {
			exact, push := gdcModelPair(t, name, p, n, 1e-12)
			de, err := engine.NewGDC(exact, p)
			if err != nil {
				t.Fatal(err)
			}
			pe, err := engine.New(push, p, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := pe.(*engine.PushPPR); !ok {
				t.Fatalf("engine.New gave %T for a push-GDC %s", pe, name)
			}
			l0, g0 := pairGrads(t, de, w, p, pairs)
			l1, g1 := pairGrads(t, pe, w, p, pairs)
			if math.Abs(l0-l1) > 1e-5*max(1, math.Abs(l0)) {
				t.Fatalf("loss %v (push) vs %v (dense)", l1, l0)
			}
			var maxG, worst float64
			for i := range pairs {
				d := math.Abs(float64(g1[i] - g0[i]))
				maxG, worst = max(maxG, math.Abs(float64(g0[i]))), max(worst, d)
				if d > 1e-4+1e-3*math.Abs(float64(g0[i])) {
					t.Fatalf("pair %v: push %v, dense %v", pairs[i], g1[i], g0[i])
				}
			}
			t.Logf("%d pairs, max |∂L/∂w| %.3g, max |push − dense| %.2g", len(pairs), maxG, worst)
			if maxG < 1e-2 {
				t.Fatalf("too weak a check: max gradient %v", maxG)
			}
		})
	}
}

// With k < n the engine's rows are truncated: its gradients approximate
// the dense engine's, whose rows are not. On the small graph with k = 8 of
// 30 they point the same way (cosine ≥ 0.9) and rank the block alike.
func TestPushPPRTruncatedApproximates(t *testing.T) {
	const n = 30
	p := attacktest.SmallProblem(t, n, 7)
	w, pairs := pushTestGraph(p)
	exact, push := gdcModelPair(t, "sm_gdc", p, 8, 1e-9)
	de, _ := engine.NewGDC(exact, p)
	pe, _ := engine.NewPushPPR(push, p)
	_, g0 := pairGrads(t, de, w, p, pairs)
	_, g1 := pairGrads(t, pe, w, p, pairs)
	var dot, n0, n1 float64
	for i := range g0 {
		dot += float64(g0[i]) * float64(g1[i])
		n0 += float64(g0[i]) * float64(g0[i])
		n1 += float64(g1[i]) * float64(g1[i])
	}
	cos := dot / math.Sqrt(n0*n1)
	t.Logf("cosine of push (k = 8) and dense pair gradients: %.4f over %d pairs", cos, len(pairs))
	if !(cos >= 0.9) {
		t.Fatalf("cosine %v < 0.9", cos)
	}
}

// The push engine's forward is the model's own preprocessing and forward,
// its gradients do not depend on GOMAXPROCS, pairs at PR-BCD's floor
// weight change nothing but have gradients, it names pairs it cannot
// differentiate and refuses an asymmetric graph, and adaptive PR-BCD runs
// through it end to end.
func TestPushPPRForwardDeterminismAndPRBCD(t *testing.T) {
	const n = 40
	p := attacktest.SmallProblem(t, n, 8)
	_, m := gdcModelPair(t, "sm_gdc", p, 8, 1e-4)
	eng, err := engine.NewPushPPR(m, p)
	if err != nil {
		t.Fatal(err)
	}
	sameAsModel(t, eng, m, p)
	w, pairs := pushTestGraph(p)
	grads := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		e, _ := engine.NewPushPPR(m, p)
		_, out := pairGrads(t, e, w, p, pairs)
		return out
	}
	a, b := grads(1), grads(2)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("pair %v: %v with 1 proc, %v with 2", pairs[i], a[i], b[i])
		}
	}
	var absent attack.Flip
	for _, f := range attacktest.AllPairs(n) {
		if _, ok := w.Find(int(f.U), int(f.V)); !ok {
			absent = f
			break
		}
	}
	l0, _ := pairGrads(t, eng, w, p, pairs[:1])
	if err := eng.PairGrad([]attack.Flip{absent}, make([]float32, 1)); err == nil || !strings.Contains(err.Error(), "not stored") {
		t.Fatalf("absent pair %v: error %v", absent, err)
	}
	// A pair stored at PR-BCD's floor weight (1e-7) is left out of the
	// diffusion: the same loss as without it, and it has a gradient.
	wf, _ := attack.Perturbed(w, []attack.Flip{absent}, []float32{1e-7}, -1)
	l1, gf := pairGrads(t, eng, wf, p, []attack.Flip{absent})
	if l0 != l1 || gf[0] == 0 || math.IsNaN(float64(gf[0])) {
		t.Fatalf("pair at weight 1e-7: loss %v (without it %v), gradient %v", l1, l0, gf[0])
	}
	// A graph whose pattern is not symmetric is refused by name.
	asym := p.Adj.Clone()
	asym.Values[0] = 0
	var es []tensor.Entry
	for u := 0; u < n; u++ {
		for q := asym.Indptr[u]; q < asym.Indptr[u+1]; q++ {
			if q != 0 {
				es = append(es, tensor.Entry{Row: int32(u), Col: asym.Indices[q], Val: asym.Values[q]})
			}
		}
	}
	asym, _ = tensor.FromCOO(n, n, es)
	if _, err := eng.Evaluate(asym, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, true); err == nil ||
		!strings.Contains(err.Error(), "not symmetric") {
		t.Fatalf("asymmetric graph: error %v", err)
	}
	r, err := protocol.Run(context.Background(), protocol.Config{Attack: "prbcd", Epsilons: []float64{0.2}, Seed: 1, Adaptive: true,
		Options: attack.Options{Epochs: 10, BlockSize: 100}, Victims: []protocol.Victim{{Name: "sm_gdc", Model: m}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	b0 := r.Budgets[0]
	if r.Mode != "adaptive" || b0.NumFlips > b0.Budget || b0.NumFlips == 0 || b0.AttackedAccuracy != b0.Victims[0].Accuracy {
		t.Fatalf("adaptive run: mode %s %+v", r.Mode, b0)
	}
}

// coraPushPair is the reference Soft Medoid GDC (T = 0.5, seed 0) on
// cora_ml twice: as published (exact diffusion) and with push GDC at eps.
func coraPushPair(t testing.TB, eps float64) (*data.Problem, model.Model, model.Model) {
	p := attacktest.LoadCora(t, 0)
	exact := attacktest.Pretrained(t, "sm_gdc", "Soft_Medoid_GDC_T_0_5", 0.5, 0, p)
	push, err := model.Default(attacktest.Aggregators).New("sm_gdc", p.Features.Cols, p.NumClasses,
		model.Options{Temperature: 0.5, PPREps: eps})
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range push.Params() {
		copy(q.Value.Data, exact.Params()[i].Value.Data)
	}
	return p, exact, push
}

// coraBlock is cora_ml's graph with nb random absent pairs stored at weight
// 1e-3 (a PR-BCD block early in the attack), and those pairs.
func coraBlock(p *data.Problem, nb int) (*tensor.CSR, []attack.Flip) {
	return randomBlock(p, nb, func(int) float32 { return 1e-3 })
}

// randomBlock is p's graph with nb random absent pairs stored, pair i at
// weight(i), and those pairs.
func randomBlock(p *data.Problem, nb int, weight func(i int) float32) (*tensor.CSR, []attack.Flip) {
	rng := attacktest.RNG(1, 1)
	n := p.Adj.Rows
	seen := map[attack.Flip]bool{}
	block := make([]attack.Flip, 0, nb)
	q := make([]float32, 0, nb)
	for len(block) < nb {
		u, v := rng.IntN(n), rng.IntN(n)
		f := attack.Flip{U: int32(min(u, v)), V: int32(max(u, v))}
		if _, ok := p.Adj.Find(u, v); ok || u == v || seen[f] {
			continue
		}
		seen[f] = true
		q = append(q, weight(len(block)))
		block = append(block, f)
	}
	w, _ := attack.Perturbed(p.Adj, block, q, -1)
	return w, block
}

// sameAsModel checks that e's forward on the clean graph is m's own
// preprocessing and forward: the same loss and accuracy, bit for bit.
func sameAsModel(t *testing.T, e attack.Engine, m model.Model, p *data.Problem) {
	t.Helper()
	ev, err := e.Evaluate(p.Adj, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Preprocess(p.Adj, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	logits := train.Predict(m, g, p.X)
	gl := tensor.NewDense(logits.Rows, logits.Cols)
	if l := attacktest.MustLoss(t, "ce")(logits, p.Test, p.Labels, gl); l != ev.Loss {
		t.Fatalf("engine loss %v, model %v", ev.Loss, l)
	}
	if acc := train.Accuracy(logits, p.Labels, p.Test); acc != ev.Accuracy {
		t.Fatalf("engine accuracy %v, model %v", ev.Accuracy, acc)
	}
}

// On cora_ml (k = 64 of 2,810) the push engine's gradients of a block of
// added pairs and of the edges point where the dense engine's do, and the
// pairs an attack would flip first are largely the same.
func TestPushPPRCoraApproximatesDense(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p, exact, push := coraPushPair(t, 1e-5)
	w, block := coraBlock(p, 20000)
	var edges []attack.Flip
	for u := 0; u < p.Adj.Rows; u++ {
		for q := p.Adj.Indptr[u]; q < p.Adj.Indptr[u+1]; q++ {
			if v := int(p.Adj.Indices[q]); v > u {
				edges = append(edges, attack.Flip{U: int32(u), V: int32(v)})
			}
		}
	}
	de, err := engine.NewGDC(exact, p)
	if err != nil {
		t.Fatal(err)
	}
	pe, err := engine.NewPushPPR(push, p)
	if err != nil {
		t.Fatal(err)
	}
	loss := attacktest.MustLoss(t, "tanh_margin")
	for _, set := range []struct {
		name  string
		pairs []attack.Flip
	}{{"block", block}, {"edges", edges}} {
		var g [2][]float32
		for i, e := range []attack.Engine{de, pe} {
			if _, err := e.Evaluate(w, loss, p.Test, p.Labels, true); err != nil {
				t.Fatal(err)
			}
			g[i] = make([]float32, len(set.pairs))
			if err := e.PairGrad(set.pairs, g[i]); err != nil {
				t.Fatal(err)
			}
		}
		var dot, n0, n1 float64
		for i := range g[0] {
			dot += float64(g[0][i]) * float64(g[1][i])
			n0 += float64(g[0][i]) * float64(g[0][i])
			n1 += float64(g[1][i]) * float64(g[1][i])
		}
		cos := dot / math.Sqrt(n0*n1)
		// overlap of the 1% largest gradients (the pairs a step would favour)
		top := func(g []float32) map[int]bool {
			idx := make([]int, len(g))
			for i := range idx {
				idx[i] = i
			}
			slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(g[b], g[a]) })
			m := map[int]bool{}
			for _, i := range idx[:len(g)/100] {
				m[i] = true
			}
			return m
		}
		t0, t1 := top(g[0]), top(g[1])
		common := 0
		for i := range t0 {
			if t1[i] {
				common++
			}
		}
		overlap := float64(common) / float64(len(t0))
		t.Logf("%s: %d pairs, cosine %.4f, top-1%% overlap %.3f", set.name, len(set.pairs), cos, overlap)
		if cos < 0.99 || overlap < 0.9 {
			t.Errorf("%s: cosine %.4f (want ≥ 0.99), top-1%% overlap %.3f (want ≥ 0.9)", set.name, cos, overlap)
		}
	}
}

// BenchmarkPushPPRCora is one adaptive step of the push engine against the
// reference Soft Medoid GDC (T = 0.5) with push GDC (eps 1e-4) on cora_ml:
// Evaluate with gradients on the graph with a block of 1e5 stored pairs,
// then PairGrad of the block.
func BenchmarkPushPPRCora(b *testing.B) {
	p, _, push := coraPushPair(b, 1e-4)
	w, block := coraBlock(p, 100_000)
	e, err := engine.NewPushPPR(push, p)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]float32, len(block))
	loss := attacktest.MustLoss(b, "tanh_margin")
	for b.Loop() {
		if _, err := e.Evaluate(w, loss, p.Test, p.Labels, true); err != nil {
			b.Fatal(err)
		}
		if err := e.PairGrad(block, out); err != nil {
			b.Fatal(err)
		}
	}
}

// pprgoTestModel is a PPRGo model (k = kk, push eps) with random weights
// large enough for informative gradients.
func pprgoTestModel(t *testing.T, name string, p *data.Problem, kk int, eps float64) model.Model {
	t.Helper()
	return randomTestModel(t, name, p, model.Options{K: kk, PPREps: eps}, 2)
}

// Finite differences of the push engine's pair gradients through the
// PPRGo models (global attacks): k = n and a tiny push error, so nothing
// is truncated and the gradient is exact; edges, relaxed block pairs.
func TestPushPPRPPRGoFiniteDifferences(t *testing.T) {
	const n = 30
	p := attacktest.SmallProblem(t, n, 7)
	w, pairs := pushTestGraph(p)
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		t.Run(name, func(t *testing.T) {
			m := pprgoTestModel(t, name, p, n, 1e-12)
			e, err := engine.New(m, p, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := e.(*engine.PushPPR); !ok {
				t.Fatalf("engine.New gave %T for %s", e, name)
			}
			_, g := pairGrads(t, e, w, p, pairs)
			loss := attacktest.MustLoss(t, "ce")
			val := func(f attack.Flip, d float32) float64 {
				wd := w.Clone()
				k1, _ := wd.Find(int(f.U), int(f.V))
				k2, _ := wd.Find(int(f.V), int(f.U))
				wd.Values[k1] += d
				wd.Values[k2] += d
				ev, err := e.Evaluate(wd, loss, p.Test, p.Labels, false)
				if err != nil {
					t.Fatal(err)
				}
				return ev.Loss
			}
			l0 := val(pairs[0], 0)
			var c fdCheck
			for i, f := range pairs {
				const h = 1e-2
				lp, lm := val(f, h), val(f, -h)
				fd := (lp - lm) / (2 * h)
				// The Soft Median's dimension-wise median jumps where a
				// weight crosses half of a column's total: skip pairs whose
				// one-sided differences disagree (not smooth at ±h).
				if fp, fm := (lp-l0)/h, (l0-lm)/h; math.Abs(fp-fm) > 1e-3+0.1*max(math.Abs(fp), math.Abs(fm)) {
					c.skipped++
					continue
				}
				c.add(t, f, g[i], fd)
			}
			c.finish(t, 100)
		})
	}
}

// Through the push engine a PPRGo model's forward is its own preprocessing
// and forward, and adaptive PR-BCD against it runs end to end.
func TestPushPPRPPRGoForwardAndPRBCD(t *testing.T) {
	const n = 40
	p := attacktest.SmallProblem(t, n, 8)
	m := trainedPPRGo(t, p, "softmedian_pprgo")
	e, err := engine.NewPushPPR(m, p)
	if err != nil {
		t.Fatal(err)
	}
	sameAsModel(t, e, m, p)
	r, err := protocol.Run(context.Background(), protocol.Config{Attack: "prbcd", Epsilons: []float64{0.2}, Seed: 1, Adaptive: true,
		Options: attack.Options{Epochs: 10, BlockSize: 100}, Victims: []protocol.Victim{{Name: "softmedian_pprgo", Model: m}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	b0 := r.Budgets[0]
	if r.Mode != "adaptive" || b0.NumFlips > b0.Budget || b0.NumFlips == 0 || b0.AttackedAccuracy != b0.Victims[0].Accuracy {
		t.Fatalf("adaptive run: mode %s %+v", r.Mode, b0)
	}
}

// A coarser push in the attack's forward passes (SetEps, the attack option
// EnginePPREps) approximates the model's own: on cora_ml with the model at
// eps 1e-4 the engine at 1e-3 gives a loss within 2% and pair gradients
// that point the same way; set back to the model's eps it is the model's
// forward again, bit for bit.
func TestPushPPRSetEps(t *testing.T) {
	p, _, push := coraPushPair(t, 1e-4)
	e, err := engine.NewPushPPR(push, p)
	if err != nil {
		t.Fatal(err)
	}
	if e.Eps() != 1e-4 {
		t.Fatalf("engine eps %v, want the model's 1e-4", e.Eps())
	}
	w, block := randomBlock(p, 4000, func(i int) float32 { return 0.05 + 0.5*float32(i%4) })
	loss0, g0 := pairGrads(t, e, w, p, block)
	for _, bad := range []float64{0, -1e-3, math.NaN(), math.Inf(1)} {
		if err := e.SetEps(bad); err == nil {
			t.Fatalf("SetEps(%v) accepted", bad)
		}
	}
	if err := e.SetEps(1e-3); err != nil {
		t.Fatal(err)
	}
	loss1, g1 := pairGrads(t, e, w, p, block)
	if rel := math.Abs(loss1-loss0) / math.Abs(loss0); !(rel < 0.02) {
		t.Fatalf("loss %v at eps 1e-3, %v at the model's 1e-4: %.1f%% apart", loss1, loss0, 100*rel)
	}
	var dot, n0, n1 float64
	for i := range g0 {
		dot += float64(g0[i]) * float64(g1[i])
		n0 += float64(g0[i]) * float64(g0[i])
		n1 += float64(g1[i]) * float64(g1[i])
	}
	if c := dot / math.Sqrt(n0*n1); !(c > 0.9) {
		t.Fatalf("pair gradients at eps 1e-3 vs 1e-4: cosine %.3f", c)
	}
	if err := e.SetEps(1e-4); err != nil {
		t.Fatal(err)
	}
	sameAsModel(t, e, push, p)
}
