package model_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// PPRGo and the Soft Median PPRGo learn cora_ml (GCN: 0.83), their
// preprocessing is the row-normalised top-k PPR (k entries per row at most,
// rows summing to 1), and a seed gives the same bits.
func TestPPRGoCoraML(t *testing.T) {
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := data.NewProblem(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg := model.Default(testAggregators)
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		var accs []float64
		for range 2 {
			m, err := reg.New(name, g.Features.Cols, g.NumClasses, model.Options{K: 32, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			pg, err := m.Preprocess(g.Adj, g.Features)
			if err != nil {
				t.Fatal(err)
			}
			s := pg.S.A
			for i := 0; i < s.Rows; i++ {
				lo, hi := s.RowRange(i)
				sum := 0.0
				for _, v := range s.Values[lo:hi] {
					sum += float64(v)
				}
				if hi-lo > 32 || hi == lo || math.Abs(sum-1) > 1e-4 {
					t.Fatalf("%s: row %d has %d entries summing to %v", name, i, hi-lo, sum)
				}
			}
			if _, err := train.Fit(context.Background(), m, pg, p, train.Config{Seed: 1, MaxEpochs: 150, Patience: 150}); err != nil {
				t.Fatal(err)
			}
			accs = append(accs, train.Accuracy(train.Predict(m, pg, p.X), p.Labels, p.Test))
		}
		if accs[0] != accs[1] || accs[0] < 0.78 {
			t.Errorf("%s: test accuracy %v (twice with one seed), want the same and ≥ 0.78", name, accs)
		}
	}
}

// randomGraph returns a symmetric unweighted n-node graph without self
// loops (each node linked to deg random others) and n×f nonnegative
// sparse features.
func randomGraph(rng *rand.Rand, n, deg, f int) (adj, feats *tensor.CSR) {
	var es []tensor.Entry
	seen := map[[2]int32]bool{}
	for u := range n {
		for range deg {
			v := rng.IntN(n)
			if v == u {
				continue
			}
			for _, p := range [][2]int32{{int32(u), int32(v)}, {int32(v), int32(u)}} {
				if !seen[p] {
					seen[p] = true
					es = append(es, tensor.Entry{Row: p[0], Col: p[1], Val: 1})
				}
			}
		}
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		panic(err)
	}
	es = es[:0]
	for i := range n {
		for j := range f {
			if rng.Float64() < 0.3 {
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(rng.Float64())})
			}
		}
	}
	feats, err = tensor.FromCOO(n, f, es)
	if err != nil {
		panic(err)
	}
	return adj, feats
}

// The batch path computes, in inference mode, the rows of the full-batch
// logits of its target nodes (the MLP sees only their influencers).
func TestPPRGoForwardNodesMatchesForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	adj, feats := randomGraph(rng, 300, 3, 20)
	x := autograd.NewSparse(feats)
	reg := model.Default(testAggregators)
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		m, err := reg.New(name, feats.Cols, 5, model.Options{K: 16, Hidden: 16, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.Preprocess(adj, feats)
		if err != nil {
			t.Fatal(err)
		}
		full := m.Forward(autograd.NoGrad(), g, x, model.Mode{}).Value
		nodes := []int{299, 5, 17, 0, 150, 42}
		part := m.(model.Batched).ForwardNodes(autograd.NoGrad(), g, x, nodes, model.Mode{}).Value
		if part.Rows != len(nodes) || part.Cols != 5 {
			t.Fatalf("%s: batch logits %s, want %d×5", name, part.Shape(), len(nodes))
		}
		for i, v := range nodes {
			for c := range 5 {
				a, b := part.At(i, c), full.At(v, c)
				if math.Abs(float64(a-b)) > 1e-5*(1+math.Abs(float64(b))) {
					t.Fatalf("%s: node %d class %d: batch %v, full %v", name, v, c, a, b)
				}
			}
		}
	}
}

// The gradient of a batch's training loss (dropout on, fixed seed) with
// respect to both weight matrices equals central finite differences, for
// the PPR-weighted sum and the Soft Median.
func TestPPRGoBatchGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	adj, feats := randomGraph(rng, 120, 3, 8)
	x := autograd.NewSparse(feats)
	labels := make([]int32, 120)
	for i := range labels {
		labels[i] = int32(rng.IntN(3))
	}
	nodes := []int{7, 3, 99, 64, 20, 111, 45}
	local := []int{0, 1, 2, 3, 4, 5, 6}
	lab := make([]int32, len(nodes))
	for i, v := range nodes {
		lab[i] = labels[v]
	}
	reg := model.Default(testAggregators)
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		m, err := reg.New(name, feats.Cols, 3, model.Options{K: 8, Hidden: 6, Seed: 3, Dropout: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.Preprocess(adj, feats)
		if err != nil {
			t.Fatal(err)
		}
		bm := m.(model.Batched)
		mode := model.Mode{Train: true, Seed: 17}
		loss := func() float64 {
			out := bm.ForwardNodes(autograd.NoGrad(), g, x, nodes, mode)
			return autograd.CrossEntropyValue(out.Value, local, lab)
		}
		for _, p := range m.Params() {
			clear(p.Grad.Data)
		}
		tp := autograd.NewTape()
		tp.Backward(tp.CrossEntropy(bm.ForwardNodes(tp, g, x, nodes, mode), local, lab))
		const h = 2e-4
		worst := 0.0
		for _, p := range m.Params() {
			for i := range p.Value.Data {
				old := p.Value.Data[i]
				p.Value.Data[i] = old + h
				up := loss()
				p.Value.Data[i] = old - h
				down := loss()
				p.Value.Data[i] = old
				fd := (up - down) / (2 * h)
				an := float64(p.Grad.Data[i])
				if err := math.Abs(fd-an) / (1e-2 + math.Abs(fd)); err > worst {
					worst = err
				}
				if math.Abs(fd-an) > 2e-3+2e-2*math.Abs(fd) {
					t.Errorf("%s %s[%d]: analytic %.6g, finite differences %.6g", name, p.Name, i, an, fd)
				}
			}
		}
		t.Logf("%s: worst relative error %.3g", name, worst)
	}
}
