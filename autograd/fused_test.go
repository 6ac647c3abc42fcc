package autograd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/tensor"
)

func TestBiasActDropoutGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, act := range []Activation{ActReLU, ActELU} {
		for _, p := range []float64{0, 0.5} {
			x := randDense(rng, 5, 3) // 15 elements: a partial last quad
			for i, v := range x.Data {
				if math.Abs(float64(v)) < 0.3 {
					x.Data[i] = 0.7
				}
			}
			b := tensor.NewDense(1, 3)
			b.Data[0], b.Data[1], b.Data[2] = 0.05, -0.04, 0.03
			gradCheck(t, "BiasActDropout", []*tensor.Dense{x, b}, func(tp *Tape, in []*Var) *Var {
				return tp.BiasActDropout(in[0], in[1], act, p, 17)
			})
		}
	}
}

// TestBiasActDropoutMatchesChain checks the fused op against AddBias →
// ReLU/ELU → Dropout: identical outputs and x gradients, bias gradients to
// float32 rounding (the column sums are blocked).
func TestBiasActDropoutMatchesChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, cols := range []int{12, 7} {
		checkBiasActDropoutChain(t, rng, cols)
	}
}

func checkBiasActDropoutChain(t *testing.T, rng *rand.Rand, cols int) {
	x, b := randDense(rng, 301, cols), randDense(rng, 1, cols)
	w := randDense(rng, 301, cols)
	for _, act := range []Activation{ActReLU, ActELU} {
		for _, p := range []float64{0, 0.6} {
			run := func(fused bool) (out, gx, gb []float32) {
				tp := NewTape()
				xv, bv := tp.Leaf(x.Clone()), tp.Leaf(b.Clone())
				var h *Var
				if fused {
					h = tp.BiasActDropout(xv, bv, act, p, 99)
				} else {
					h = tp.AddBias(xv, bv)
					if act == ActReLU {
						h = tp.ReLU(h)
					} else {
						h = tp.ELU(h, 1)
					}
					if p > 0 {
						h = tp.Dropout(h, p, 99)
					}
				}
				tp.Backward(tp.Sum(tp.Mul(h, tp.Const(w))))
				return h.Value.Data, xv.Grad().Data, bv.Grad().Data
			}
			o1, gx1, gb1 := run(false)
			o2, gx2, gb2 := run(true)
			for i := range o1 {
				if o1[i] != o2[i] {
					t.Fatalf("act %d p %g: output %d: chain %g fused %g", act, p, i, o1[i], o2[i])
				}
				if gx1[i] != gx2[i] {
					t.Fatalf("act %d p %g: x gradient %d: chain %g fused %g", act, p, i, gx1[i], gx2[i])
				}
			}
			for j := range gb1 {
				if math.Abs(float64(gb1[j]-gb2[j])) > 1e-5*math.Max(1, math.Abs(float64(gb1[j]))) {
					t.Fatalf("act %d p %g: bias gradient %d: chain %g fused %g", act, p, j, gb1[j], gb2[j])
				}
			}
		}
	}
}

func TestBiasActDropoutDeterministicAcrossProcs(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	x, b, w := randDense(rng, 2000, 64), randDense(rng, 1, 64), randDense(rng, 2000, 64)
	run := func() ([]float32, []float32, []float32) {
		tp := NewTape()
		xv, bv := tp.Leaf(x.Clone()), tp.Leaf(b.Clone())
		h := tp.BiasActDropout(xv, bv, ActELU, 0.5, 3)
		tp.Backward(tp.Sum(tp.Mul(h, tp.Const(w))))
		return h.Value.Data, xv.Grad().Data, bv.Grad().Data
	}
	prev := setProcs(1)
	a1, a2, a3 := run()
	setProcs(2)
	b1, b2, b3 := run()
	setProcs(prev)
	for _, pair := range [][2][]float32{{a1, b1}, {a2, b2}, {a3, b3}} {
		for i := range pair[0] {
			if pair[0][i] != pair[1][i] {
				t.Fatalf("differs at %d", i)
			}
		}
	}
}

// BenchmarkBiasActDropout compares the fused hidden-layer op with the
// AddBias → ReLU → Dropout chain (forward + backward, cora_ml's 2810×64).
func BenchmarkBiasActDropout(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, bias, w := randDense(rng, 2810, 64), randDense(rng, 1, 64), randDense(rng, 2810, 64)
	for _, fused := range []bool{false, true} {
		name := "chain"
		if fused {
			name = "fused"
		}
		b.Run(name, func(b *testing.B) {
			tp := NewTape()
			c0, _ := cputime.Process()
			for i := 0; b.Loop(); i++ {
				tp.Reset()
				xv, bv := tp.Leaf(x), tp.Leaf(bias)
				var h *Var
				if fused {
					h = tp.BiasActDropout(xv, bv, ActReLU, 0.5, uint64(i))
				} else {
					h = tp.Dropout(tp.ReLU(tp.AddBias(xv, bv)), 0.5, uint64(i))
				}
				h.grad = w
				h.needsGrad = true
				for k := len(tp.back) - 1; k >= 0; k-- {
					tp.back[k]()
				}
			}
			c1, _ := cputime.Process()
			b.ReportMetric(float64((c1-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestSparseWithValuesTranspose checks that WithValues' reused transpose
// equals transposing the new matrix.
func TestSparseWithValuesTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 31))
	s := NewSparse(randCSR(rng, 40, 30, 0.2))
	v := make([]float32, s.A.Nnz())
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	got, gotPerm := s.WithValues(v).T()
	want, wantPerm := s.A.WithValues(v).Transpose()
	for i := range want.Indices {
		if got.Indices[i] != want.Indices[i] || got.Values[i] != want.Values[i] || gotPerm[i] != wantPerm[i] {
			t.Fatalf("entry %d differs", i)
		}
	}
	for i := range want.Indptr {
		if got.Indptr[i] != want.Indptr[i] {
			t.Fatalf("indptr %d differs", i)
		}
	}
}

// TestBiasActDropoutReLUSpecialValues checks the ReLU-with-dropout case,
// whose backward reads the output instead of a stored mask, against the
// mask formula (g·mask) kept where the output's sign bit is clear and it
// is nonzero, bit for bit, with ±0, ±Inf and NaN inputs and gradients.
func TestBiasActDropoutReLUSpecialValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	specials := []float32{0, float32(math.Copysign(0, -1)), inf, -inf, nan, -nan, 1e-38, -1e-38, 3e38}
	for _, cols := range []int{64, 12, 7} {
		x, b, w := randDense(rng, 97, cols), randDense(rng, 1, cols), randDense(rng, 97, cols)
		for i := range x.Data {
			if rng.IntN(4) == 0 {
				x.Data[i] = specials[rng.IntN(len(specials))]
			}
			if rng.IntN(8) == 0 {
				w.Data[i] = specials[rng.IntN(len(specials))]
			}
		}
		const p, seed = 0.5, 41
		tp := NewTape()
		xv, bv := tp.Leaf(x.Clone()), tp.Leaf(b.Clone())
		h := tp.BiasActDropout(xv, bv, ActReLU, p, seed)
		tp.Backward(tp.Sum(tp.Mul(h, tp.Const(w))))
		scale := float32(1 / (1 - p))
		thr := int32(math.Round(p * 65536))
		hg := h.Grad().Data
		for e, g := range hg {
			m := tensor.DropKeep(tensor.DropHash(seed, e/4)>>(16*uint(e%4)), thr, scale)
			if cols%4 != 0 {
				r, j := e/cols, e%cols
				q := r * cols
				m = tensor.DropKeep(tensor.DropHash(seed, (q+j)/4)>>(16*uint((q+j)%4)), thr, scale)
			}
			v := x.Data[e] + b.Data[e%cols]
			y := math.Float32frombits(math.Float32bits(v) & uint32(int32(^math.Float32bits(v))>>31))
			if cols%4 != 0 {
				y = max(v, 0)
			}
			out := y * m
			if got := math.Float32bits(h.Value.Data[e]); got != math.Float32bits(out) && !(out != out && h.Value.Data[e] != h.Value.Data[e]) {
				t.Fatalf("cols %d: output %d: %v, want %v", cols, e, h.Value.Data[e], out)
			}
			keep := uint32(int32(math.Float32bits(h.Value.Data[e])-1)>>31) ^ 0xffffffff
			want := math.Float32frombits(math.Float32bits(g*m) & keep)
			got := xv.Grad().Data[e]
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Fatalf("cols %d: x gradient %d (x %v, out %v, g %v, mask %v): %v, want %v", cols, e, x.Data[e], h.Value.Data[e], g, m, got, want)
			}
		}
	}
}
