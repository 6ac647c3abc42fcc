package metattack

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// tinyProblem builds a random connected graph with n nodes, sparse
// features and labels, with random self-training labels (the true ones
// on the training nodes); the unlabelled nodes are the test nodes.
func tinyProblem(t testing.TB, n, d, c int, seed uint64) (*data.Problem, []int32) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	set := map[[2]int]bool{}
	for i := 1; i < n; i++ {
		j := rng.IntN(i)
		set[[2]int{j, i}] = true
	}
	for range n / 2 {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			set[[2]int{min(a, b), max(a, b)}] = true
		}
	}
	var es []tensor.Entry
	for p := range set {
		es = append(es, tensor.Entry{Row: int32(p[0]), Col: int32(p[1]), Val: 1}, tensor.Entry{Row: int32(p[1]), Col: int32(p[0]), Val: 1})
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	var xs []tensor.Entry
	for i := range n {
		for f := range d {
			if rng.Float64() < 0.4 {
				xs = append(xs, tensor.Entry{Row: int32(i), Col: int32(f), Val: float32(rng.Float64())})
			}
		}
	}
	x, err := tensor.FromCOO(n, d, xs)
	if err != nil {
		t.Fatal(err)
	}
	p := &data.Problem{Adj: adj, Features: x, NumClasses: c, Labels: make([]int32, n)}
	self := make([]int32, n)
	for i := range n {
		p.Labels[i] = int32(rng.IntN(c))
		self[i] = int32(rng.IntN(c))
		if i%3 == 0 {
			p.Train = append(p.Train, i)
			self[i] = p.Labels[i]
		} else {
			p.Test = append(p.Test, i)
		}
	}
	return p, self
}

// weighted returns adj with the symmetric pair (i, j) set to weight w.
func weighted(adj *tensor.CSR, i, j int, w float32) *tensor.CSR {
	n := adj.Rows
	var es []tensor.Entry
	for r := range n {
		for k := adj.Indptr[r]; k < adj.Indptr[r+1]; k++ {
			c := int(adj.Indices[k])
			if (r == i && c == j) || (r == j && c == i) {
				continue
			}
			es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: adj.Values[k]})
		}
	}
	es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: w}, tensor.Entry{Row: int32(j), Col: int32(i), Val: w})
	out, _ := tensor.FromCOO(n, n, es)
	return out
}

// TestMetaGradientFD checks the meta-gradient (through the unrolled
// training, Meta-Self) against central finite differences of the attack
// loss after training, for every node pair of a tiny graph.
func TestMetaGradientFD(t *testing.T) {
	p, self := tinyProblem(t, 9, 6, 3, 1)
	for _, iters := range []int{0, 1, 6} {
		o := Options{TrainIters: iters, Hidden: 4, Seed: 3, SelfLabels: self}.withDefaults()
		s := newSurrogate(p, o, p.Adj, stepRNG(o.Seed, 0))
		g := s.pairGrad(s.metaGrad(o))
		n := p.Adj.Rows
		const h = 1e-3
		worst := 0.0
		for i := range n {
			for j := i + 1; j < n; j++ {
				base := float32(0)
				if _, ok := p.Adj.Find(i, j); ok {
					base = 1
				}
				loss := func(w float32) float64 {
					q := p.WithAdj(weighted(p.Adj, i, j, w))
					return newSurrogate(q, o, q.Adj, stepRNG(o.Seed, 0)).attackLoss(o)
				}
				fd := (loss(base+h) - loss(base-h)) / (2 * h)
				got := float64(g[i*n+j])
				err := math.Abs(got-fd) / max(1e-3, math.Abs(fd))
				worst = max(worst, err)
				if err > 2e-3 {
					t.Errorf("iters %d pair (%d,%d): meta-gradient %.6g, finite difference %.6g", iters, i, j, got, fd)
				}
			}
		}
		t.Logf("iters %d: worst relative error %.2g", iters, worst)
	}
}

// TestApproxFirstStepFD checks MetaApprox with zero training steps: the
// plain gradient of the attack loss.
func TestApproxFirstStepFD(t *testing.T) {
	p, self := tinyProblem(t, 8, 5, 3, 4)
	o := Options{Variant: Approx, TrainIters: 0, Hidden: 4, Seed: 1, SelfLabels: self}.withDefaults()
	o.TrainIters = 0
	s := newSurrogate(p, o, p.Adj, stepRNG(o.Seed, 0))
	g := s.pairGrad(s.metaGrad(o))
	n := p.Adj.Rows
	so := Options{TrainIters: 0, Hidden: 4, Seed: 1, SelfLabels: self}.withDefaults()
	so.TrainIters = 0
	for i := range n {
		for j := i + 1; j < n; j++ {
			base := float32(0)
			if _, ok := p.Adj.Find(i, j); ok {
				base = 1
			}
			loss := func(w float32) float64 {
				q := p.WithAdj(weighted(p.Adj, i, j, w))
				return newSurrogate(q, so, q.Adj, stepRNG(so.Seed, 0)).attackLoss(so)
			}
			fd := (loss(base+1e-3) - loss(base-1e-3)) / 2e-3
			if math.Abs(float64(g[i*n+j])-fd) > 2e-3*max(1e-3, math.Abs(fd)) {
				t.Errorf("pair (%d,%d): gradient %.6g, finite difference %.6g", i, j, g[i*n+j], fd)
			}
		}
	}
}

// TestAttackSmall: budget respected, no singletons, likelihood test holds,
// deterministic across GOMAXPROCS, both variants.
func TestAttackSmall(t *testing.T) {
	p, self := tinyProblem(t, 30, 8, 3, 9)
	deg := graph.Degrees(p.Adj)
	for _, v := range []Variant{Self, Approx} {
		o := Options{Variant: v, TrainIters: 20, Seed: 2, SelfLabels: self}
		prev := runtime.GOMAXPROCS(1)
		r1, err := Attack(context.Background(), p, 6, o, nil)
		runtime.GOMAXPROCS(2)
		calls := 0
		r2, err2 := Attack(context.Background(), p, 6, o, func(done, total int) { calls++ })
		runtime.GOMAXPROCS(prev)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		if !reflect.DeepEqual(r1.Flips, r2.Flips) || calls != len(r1.Flips) {
			t.Fatalf("variant %d: flips differ with GOMAXPROCS 1 and 2: %v vs %v", v, r1.Flips, r2.Flips)
		}
		if len(r1.Flips) != 6 {
			t.Errorf("variant %d: %d flips, budget 6", v, len(r1.Flips))
		}
		for u, d := range graph.Degrees(r1.Perturbed) {
			if d == 0 {
				t.Errorf("variant %d: node %d is a singleton", v, u)
			}
		}
		if l := graph.Degrees(r1.Perturbed); pairLLSeq(deg, l) >= 0.004 {
			t.Errorf("variant %d: final degree sequence fails the likelihood test", v)
		}
		want, err := graph.FlipEdges(p.Adj, r1.Flips)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want.Indices, r1.Perturbed.Indices) {
			t.Errorf("variant %d: perturbed graph does not equal the clean graph plus the flips", v)
		}
	}
}

// TestTiledGemm checks tiledGemm against a plain triple loop.
func TestTiledGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, sz := range [][2]int{{1, 1}, {37, 5}, {130, 41}, {300, 64}} {
		n, r := sz[0], sz[1]
		lf, rf := make([]float32, r*n), make([]float32, r*n)
		for i := range lf {
			lf[i], rf[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		out := make([]float32, n*n)
		tiledGemm(out, lf, rf, n, r)
		for i := range n {
			for j := range n {
				var want float64
				for k := range r {
					want += float64(lf[k*n+i]) * float64(rf[k*n+j])
				}
				if math.Abs(float64(out[i*n+j])-want) > 1e-4*(1+math.Abs(want)) {
					t.Fatalf("n=%d r=%d: out[%d,%d] = %g, want %g", n, r, i, j, out[i*n+j], want)
				}
			}
		}
	}
}

func TestAttackErrors(t *testing.T) {
	p, self := tinyProblem(t, 10, 4, 2, 1)
	if _, err := Attack(context.Background(), p, -1, Options{SelfLabels: self}, nil); err == nil {
		t.Error("negative budget accepted")
	}
	q := *p
	q.Train = nil
	if _, err := Attack(context.Background(), &q, 1, Options{SelfLabels: self}, nil); err == nil {
		t.Error("empty train set accepted")
	}
	q = *p
	q.Adj, _ = tensor.FromCOO(10, 10, []tensor.Entry{{Row: 0, Col: 1, Val: 1}})
	if _, err := Attack(context.Background(), &q, 1, Options{SelfLabels: self}, nil); err == nil {
		t.Error("asymmetric adjacency accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Attack(ctx, p, 2, Options{SelfLabels: self}, nil); err == nil {
		t.Error("cancelled context not reported")
	}
}

// TestContinue: continuing from a smaller budget's flips gives the flips
// of one run with the larger budget.
func TestContinue(t *testing.T) {
	p, self := tinyProblem(t, 30, 8, 3, 9)
	o := Options{TrainIters: 10, Seed: 4, SelfLabels: self}
	full, err := Attack(context.Background(), p, 6, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	part, err := Attack(context.Background(), p, 3, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	var done []int
	rest, err := Continue(context.Background(), p, part.Flips, 6, o, func(d, _ int) { done = append(done, d) })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(full.Flips, rest.Flips) || !reflect.DeepEqual(done, []int{4, 5, 6}) {
		t.Fatalf("continued %v (progress %v), one run %v", rest.Flips, done, full.Flips)
	}
	if _, err := Continue(context.Background(), p, full.Flips, 2, o, nil); err == nil {
		t.Error("previous flips beyond the budget accepted")
	}
}

// TestAttackDeterministicLarge: on a graph large enough for several
// parallel chunks and mulAT blocks, the flips and the meta-gradient bits do
// not depend on GOMAXPROCS.
func TestAttackDeterministicLarge(t *testing.T) {
	p, self := tinyProblem(t, 1100, 12, 4, 11)
	o := Options{TrainIters: 3, Seed: 5, SelfLabels: self}
	grad := func(procs int) ([]float32, [][2]int) {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		oo := o.withDefaults()
		s := newSurrogate(p, oo, p.Adj, stepRNG(oo.Seed, 0))
		g := append([]float32(nil), s.pairGrad(s.metaGrad(oo))...)
		r, err := Attack(context.Background(), p, 2, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		return g, r.Flips
	}
	g1, f1 := grad(1)
	g2, f2 := grad(2)
	if !reflect.DeepEqual(f1, f2) {
		t.Fatalf("flips differ: %v vs %v", f1, f2)
	}
	for i := range g1 {
		if math.Float32bits(g1[i]) != math.Float32bits(g2[i]) {
			t.Fatalf("meta-gradient entry %d differs: %g vs %g", i, g1[i], g2[i])
		}
	}
}

// eightNodeGraph is the graph of TestDegreeTestVariants and
// TestNoFlipBack: degrees 3, 2, 2, 2, 1, 4, 2, 2.
func eightNodeGraph(t *testing.T) *tensor.CSR {
	t.Helper()
	var es []tensor.Entry
	for _, e := range [][2]int{{0, 1}, {0, 2}, {0, 5}, {1, 5}, {2, 5}, {3, 5}, {3, 6}, {4, 7}, {6, 7}} {
		es = append(es, tensor.Entry{Row: int32(e[0]), Col: int32(e[1]), Val: 1}, tensor.Entry{Row: int32(e[1]), Col: int32(e[0]), Val: 1})
	}
	adj, err := tensor.FromCOO(8, 8, es)
	if err != nil {
		t.Fatal(err)
	}
	return adj
}

// TestDegreeTestVariants checks bestPair under the three degree tests on a
// graph whose best-scoring insertion (4, 5) passes the paper's test
// (Λ = 0.00277 < 0.004) but not the repository's (Λ = 0.00736; values of
// nettack's TestLikelihoodRatioHand formulas).
func TestDegreeTestVariants(t *testing.T) {
	const n = 8
	adj := eightNodeGraph(t)
	deg := graph.Degrees(adj)
	if !slices.Equal(deg, []int{3, 2, 2, 2, 1, 4, 2, 2}) {
		t.Fatalf("degrees %v", deg)
	}
	g := make([]float32, n*n)
	for i := range g {
		g[i] = 0.01
	}
	g[4*n+5] = 1
	if i, j, ok := bestPair(adj, g, deg, nettack.DefaultLLCutoff, false, nil); !ok || i != 4 || j != 5 {
		t.Fatalf("paper test: best pair (%d, %d, %v), want (4, 5)", i, j, ok)
	}
	if i, j, ok := bestPair(adj, g, deg, -1, false, nil); !ok || i != 4 || j != 5 {
		t.Fatalf("no test: best pair (%d, %d, %v), want (4, 5)", i, j, ok)
	}
	if i, j, ok := bestPair(adj, g, deg, nettack.DefaultLLCutoff, true, nil); ok && i == 4 && j == 5 {
		t.Fatal("repository test admitted (4, 5)")
	}
}

// A flipped pair is never flipped back, even when its score is the best:
// every flip of a run is a distinct pair.
func TestNoFlipBack(t *testing.T) {
	const n = 8
	adj := eightNodeGraph(t)
	deg := graph.Degrees(adj)
	g := make([]float32, n*n)
	g[1*n+2], g[2*n+6] = 1, 0.5
	if i, j, _ := bestPair(adj, g, deg, -1, false, nil); i != 1 || j != 2 {
		t.Fatalf("best pair (%d, %d), want (1, 2)", i, j)
	}
	if i, j, _ := bestPair(adj, g, deg, -1, false, map[int][]int{1: {2}}); i != 2 || j != 6 {
		t.Fatalf("with (1, 2) flipped: best pair (%d, %d), want (2, 6)", i, j)
	}
	p, self := tinyProblem(t, 30, 6, 3, 4)
	res, err := Attack(t.Context(), p, 60, Options{TrainIters: 3, Seed: 2, SelfLabels: self}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]int]bool{}
	for _, f := range res.Flips {
		if seen[f] {
			t.Fatalf("pair %v flipped twice in %v", f, res.Flips)
		}
		seen[f] = true
	}
}
