package autograd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/tensor"
)

// gatChain is GATAttention built from the single-head ops (the definition).
func gatChain(tp *Tape, s *Sparse, h *Var, src, dst []*Var, p float64, seeds []uint64) *Var {
	nh := len(src)
	nf := h.Value.Cols / nh
	outs := make([]*Var, nh)
	for k := range nh {
		hk := tp.ColSlice(h, k*nf, (k+1)*nf)
		e := tp.EdgeAdd(s, tp.MatMul(hk, dst[k]), tp.MatMul(hk, src[k]))
		att := tp.SegmentSoftmax(s, tp.LeakyReLU(e, 0.2))
		if p > 0 {
			att = tp.Dropout(att, p, seeds[k])
		}
		outs[k] = tp.SpMM(s, att, hk)
	}
	if nh == 1 {
		return outs[0]
	}
	return tp.ConcatCols(outs...)
}

func gatInputs(rng *rand.Rand, n, nh, nf int) (*Sparse, []*tensor.Dense) {
	a := randCSR(rng, n, n, 0.3)
	in := []*tensor.Dense{randDense(rng, n, nh*nf)}
	for range 2 * nh {
		in = append(in, randDense(rng, nf, 1))
	}
	return NewSparse(a), in
}

func splitGAT(in []*Var) (h *Var, src, dst []*Var) {
	nh := (len(in) - 1) / 2
	return in[0], in[1 : 1+nh], in[1+nh:]
}

func TestGATAttentionGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	// Logits all positive, then all negative: finite differences stay off
	// LeakyReLU's kink.
	for _, sign := range []float32{1, -1} {
		for _, p := range []float64{0, 0.5} {
			s, in := gatInputs(rng, 7, 2, 3)
			for i, d := range in {
				for j, v := range d.Data {
					v = float32(math.Abs(float64(v))) + 0.1
					if i > 0 {
						v *= sign
					}
					d.Data[j] = v
				}
			}
			gatGradCheck(t, s, in, p)
		}
	}
}

func gatGradCheck(t *testing.T, s *Sparse, in []*tensor.Dense, p float64) {
	t.Helper()
	{
		gradCheck(t, "GATAttention", in, func(tp *Tape, v []*Var) *Var {
			h, src, dst := splitGAT(v)
			return tp.GATAttention(s, h, src, dst, 0.2, p, []uint64{4, 5})
		})
	}
}

// TestGATAttentionMatchesChain compares values and every gradient with the
// per-head chain of single ops, with and without dropout, on a graph with
// self loops and an empty row.
func TestGATAttentionMatchesChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	for _, cfg := range []struct {
		nh, nf int
		p      float64
	}{{8, 8, 0}, {8, 8, 0.6}, {1, 7, 0.6}} {
		s, in := gatInputs(rng, 60, cfg.nh, cfg.nf)
		w := randDense(rng, 60, cfg.nh*cfg.nf)
		seeds := make([]uint64, cfg.nh)
		for k := range seeds {
			seeds[k] = uint64(100 + k)
		}
		run := func(fused bool) [][]float32 {
			tp := NewTape()
			vars := make([]*Var, len(in))
			for i, d := range in {
				vars[i] = tp.Leaf(d.Clone())
			}
			h, src, dst := splitGAT(vars)
			var out *Var
			if fused {
				out = tp.GATAttention(s, h, src, dst, 0.2, cfg.p, seeds)
			} else {
				out = gatChain(tp, s, h, src, dst, cfg.p, seeds)
			}
			tp.Backward(tp.Sum(tp.Mul(out, tp.Const(w))))
			res := [][]float32{out.Value.Data}
			for _, v := range vars {
				res = append(res, v.Grad().Data)
			}
			return res
		}
		want, got := run(false), run(true)
		for i := range want {
			for j := range want[i] {
				if d := math.Abs(float64(want[i][j] - got[i][j])); d > 1e-5*math.Max(1, math.Abs(float64(want[i][j]))) {
					t.Fatalf("%+v: tensor %d element %d: chain %g fused %g", cfg, i, j, want[i][j], got[i][j])
				}
			}
		}
	}
}

func TestGATAttentionDeterministicAcrossProcs(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	s, in := gatInputs(rng, 400, 8, 8)
	w := randDense(rng, 400, 64)
	run := func() [][]float32 {
		tp := NewTape()
		vars := make([]*Var, len(in))
		for i, d := range in {
			vars[i] = tp.Leaf(d.Clone())
		}
		h, src, dst := splitGAT(vars)
		out := tp.GATAttention(s, h, src, dst, 0.2, 0.6, []uint64{1, 2, 3, 4, 5, 6, 7, 8})
		tp.Backward(tp.Sum(tp.Mul(out, tp.Const(w))))
		res := [][]float32{out.Value.Data}
		for _, v := range vars {
			res = append(res, v.Grad().Data)
		}
		return res
	}
	prev := setProcs(1)
	a := run()
	setProcs(2)
	b := run()
	setProcs(prev)
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("tensor %d element %d differs", i, j)
			}
		}
	}
}

// BenchmarkGATAttention is one GAT hidden layer's attention (forward +
// backward): 8 heads of 8 features with attention dropout 0.6 on a random
// graph of 2810 nodes and about 16 entries per row.
func BenchmarkGATAttention(b *testing.B) {
	const n = 2810
	rng := rand.New(rand.NewPCG(2, 2))
	var es []tensor.Entry
	for i := range n {
		for range 16 {
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(rng.IntN(n)), Val: 1})
		}
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		b.Fatal(err)
	}
	s := NewSparse(a)
	in := []*tensor.Dense{randDense(rng, n, 64)}
	for range 16 {
		in = append(in, randDense(rng, 8, 1))
	}
	w := randDense(rng, n, 64)
	tp := NewTape()
	c0, _ := cputime.Process()
	for i := 0; b.Loop(); i++ {
		tp.Reset()
		vars := make([]*Var, len(in))
		for j, d := range in {
			vars[j] = tp.Leaf(d)
		}
		h, src, dst := splitGAT(vars)
		seed := uint64(i) * 8
		out := tp.GATAttention(s, h, src, dst, 0.2, 0.6, []uint64{seed, seed + 1, seed + 2, seed + 3, seed + 4, seed + 5, seed + 6, seed + 7})
		out.grad = w
		for k := len(tp.back) - 1; k >= 0; k-- {
			tp.back[k]()
		}
	}
	c1, _ := cputime.Process()
	b.ReportMetric(float64((c1-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
