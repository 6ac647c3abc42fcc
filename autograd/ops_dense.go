package autograd

import (
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// MatMul returns a·b.
func (t *Tape) MatMul(a, b *Var) *Var {
	out := t.newVar(a.Value.Rows, b.Value.Cols)
	tensor.MatMul(out.Value, a.Value, b.Value, false)
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		if a.needsGrad {
			tensor.MatMulBT(t.gradOf(a), g, b.Value, true)
		}
		if b.needsGrad {
			tensor.MatMulAT(t.gradOf(b), a.Value, g, true)
		}
	}, a, b)
	return out
}

// AddBias returns x + 1·b for a 1×C row vector b.
func (t *Tape) AddBias(x, b *Var) *Var {
	if b.Value.Rows != 1 || b.Value.Cols != x.Value.Cols {
		panic(fmt.Sprintf("autograd.AddBias: bias %s for %s", b.Value.Shape(), x.Value.Shape()))
	}
	out := t.newVar(x.Value.Rows, x.Value.Cols)
	c := x.Value.Cols
	tensor.Parallel(x.Value.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o, xi := out.Value.Data[i*c:(i+1)*c], x.Value.Data[i*c:(i+1)*c]
			for j := range o {
				o[j] = xi[j] + b.Value.Data[j]
			}
		}
	})
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		if x.needsGrad {
			addInto(t.gradOf(x), g)
		}
		if b.needsGrad {
			gb := t.gradOf(b).Data
			acc := make([]float64, c)
			for i := 0; i < g.Rows; i++ {
				for j, v := range g.Row(i) {
					acc[j] += float64(v)
				}
			}
			for j := range gb {
				gb[j] += float32(acc[j])
			}
		}
	}, x, b)
	return out
}

// addInto computes dst += src elementwise.
func addInto(dst, src *tensor.Dense) {
	tensor.Parallel(dst.Rows, func(lo, hi int) {
		c := dst.Cols
		d, s := dst.Data[lo*c:hi*c], src.Data[lo*c:hi*c]
		for i := range d {
			d[i] += s[i]
		}
	})
}

// unary applies f elementwise; df(x, y) is the derivative given input x and
// output y.
func (t *Tape) unary(x *Var, f func(float32) float32, df func(x, y float32) float32) *Var {
	out := t.newVar(x.Value.Rows, x.Value.Cols)
	c := x.Value.Cols
	tensor.Parallel(x.Value.Rows, func(lo, hi int) {
		xs, ys := x.Value.Data[lo*c:hi*c], out.Value.Data[lo*c:hi*c]
		for i, v := range xs {
			ys[i] = f(v)
		}
	})
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		gx := t.gradOf(x)
		tensor.Parallel(x.Value.Rows, func(lo, hi int) {
			xs, ys := x.Value.Data[lo*c:hi*c], out.Value.Data[lo*c:hi*c]
			gs, gxs := g.Data[lo*c:hi*c], gx.Data[lo*c:hi*c]
			for i := range gs {
				gxs[i] += gs[i] * df(xs[i], ys[i])
			}
		})
	}, x)
	return out
}

// ReLU returns max(x, 0) (derivative 0 at 0, as PyTorch). Specialised
// rather than built on unary: it sits on every model's hot path.
func (t *Tape) ReLU(x *Var) *Var {
	out := t.newVar(x.Value.Rows, x.Value.Cols)
	c := x.Value.Cols
	tensor.Parallel(x.Value.Rows, func(lo, hi int) {
		xs, ys := x.Value.Data[lo*c:hi*c], out.Value.Data[lo*c:hi*c]
		for i, v := range xs {
			ys[i] = max(v, 0)
		}
	})
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		gx := t.gradOf(x)
		tensor.Parallel(x.Value.Rows, func(lo, hi int) {
			ys, gs, gxs := out.Value.Data[lo*c:hi*c], g.Data[lo*c:hi*c], gx.Data[lo*c:hi*c]
			for i, y := range ys {
				if y > 0 {
					gxs[i] += gs[i]
				}
			}
		})
	}, x)
	return out
}

// LeakyReLU returns x for x > 0 and slope·x otherwise.
func (t *Tape) LeakyReLU(x *Var, slope float32) *Var {
	return t.unary(x, func(v float32) float32 {
		if v > 0 {
			return v
		}
		return slope * v
	}, func(x, _ float32) float32 {
		if x > 0 {
			return 1
		}
		return slope
	})
}

// ELU returns x for x > 0 and alpha·(eˣ−1) otherwise.
func (t *Tape) ELU(x *Var, alpha float32) *Var {
	return t.unary(x, func(v float32) float32 {
		if v > 0 {
			return v
		}
		return alpha * float32(math.Expm1(float64(v)))
	}, func(x, y float32) float32 {
		if x > 0 {
			return 1
		}
		return y + alpha
	})
}

// Exp returns eˣ elementwise.
func (t *Tape) Exp(x *Var) *Var {
	return t.unary(x, func(v float32) float32 { return float32(math.Exp(float64(v))) },
		func(_, y float32) float32 { return y })
}

// Scale returns s·x.
func (t *Tape) Scale(x *Var, s float32) *Var {
	return t.unary(x, func(v float32) float32 { return s * v }, func(_, _ float32) float32 { return s })
}

// Add returns a + b (same shape).
func (t *Tape) Add(a, b *Var) *Var {
	mustSame("Add", a, b)
	out := t.newVar(a.Value.Rows, a.Value.Cols)
	for i := range out.Value.Data {
		out.Value.Data[i] = a.Value.Data[i] + b.Value.Data[i]
	}
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		if a.needsGrad {
			addInto(t.gradOf(a), out.grad)
		}
		if b.needsGrad {
			addInto(t.gradOf(b), out.grad)
		}
	}, a, b)
	return out
}

// Mul returns a ⊙ b (same shape).
func (t *Tape) Mul(a, b *Var) *Var {
	mustSame("Mul", a, b)
	out := t.newVar(a.Value.Rows, a.Value.Cols)
	ad, bd, od := a.Value.Data, b.Value.Data, out.Value.Data
	n := len(od)
	tensor.ParallelChunks(n, 8192, func(lo, hi int) {
		o, x, y := od[lo:hi], ad[lo:hi], bd[lo:hi]
		for i := range o {
			o[i] = x[i] * y[i]
		}
	})
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		// ∂a += g·b and ∂b += g·a, elementwise (any chunking gives the
		// same bits).
		mulInto := func(dst []float32, other []float32) {
			tensor.ParallelChunks(n, 8192, func(lo, hi int) {
				d, gs, o := dst[lo:hi], g.Data[lo:hi], other[lo:hi]
				for i, v := range gs {
					d[i] += v * o[i]
				}
			})
		}
		if a.needsGrad {
			mulInto(t.gradOf(a).Data, bd)
		}
		if b.needsGrad {
			mulInto(t.gradOf(b).Data, ad)
		}
	}, a, b)
	return out
}

// Sum returns the 1×1 sum of all elements.
func (t *Tape) Sum(x *Var) *Var {
	out := t.newVar(1, 1)
	var s float64
	for _, v := range x.Value.Data {
		s += float64(v)
	}
	out.Value.Data[0] = float32(s)
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		g := out.grad.Data[0]
		gx := t.gradOf(x).Data
		for i := range gx {
			gx[i] += g
		}
	}, x)
	return out
}

func mustSame(op string, a, b *Var) {
	if !a.Value.SameShape(b.Value) {
		panic(fmt.Sprintf("autograd.%s: shapes %s and %s", op, a.Value.Shape(), b.Value.Shape()))
	}
}

// Dropout zeroes each element with probability p and scales the rest by
// 1/(1−p). The mask is a pure function of (seed, element index), so it is
// the same for any number of goroutines; p is resolved to 1/65536 (each
// 64-bit hash gives the coins of four elements). p = 0 returns x unchanged.
func (t *Tape) Dropout(x *Var, p float64, seed uint64) *Var {
	if p <= 0 {
		return x
	}
	if p >= 1 {
		panic(fmt.Sprintf("autograd.Dropout: p = %v", p))
	}
	out := t.newVar(x.Value.Rows, x.Value.Cols)
	mask := t.alloc(x.Value.Rows, x.Value.Cols)
	scale := float32(1 / (1 - p))
	thr := int32(math.Round(p * 65536))
	n, c := len(x.Value.Data), x.Value.Cols
	tensor.ParallelChunks((n+3)/4, 1024, func(lo, hi int) {
		md, od, xd := mask.Data, out.Value.Data, x.Value.Data
		for q := lo; q < hi; q++ {
			h := tensor.DropHash(seed, q)
			e0 := q * 4
			if e0+4 <= n {
				m0, m1 := tensor.DropKeep(h, thr, scale), tensor.DropKeep(h>>16, thr, scale)
				m2, m3 := tensor.DropKeep(h>>32, thr, scale), tensor.DropKeep(h>>48, thr, scale)
				md[e0], md[e0+1], md[e0+2], md[e0+3] = m0, m1, m2, m3
				od[e0], od[e0+1], od[e0+2], od[e0+3] = xd[e0]*m0, xd[e0+1]*m1, xd[e0+2]*m2, xd[e0+3]*m3
				continue
			}
			for e := e0; e < n; e++ {
				m := tensor.DropKeep(h, thr, scale)
				md[e] = m
				od[e] = xd[e] * m
				h >>= 16
			}
		}
	})
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		gx, g := t.gradOf(x).Data, out.grad.Data
		tensor.Parallel(x.Value.Rows, func(lo, hi int) {
			for i := lo * c; i < hi*c; i++ {
				gx[i] += g[i] * mask.Data[i]
			}
		})
	}, x)
	return out
}

// Sqrt returns √(x + eps) elementwise.
func (t *Tape) Sqrt(x *Var, eps float32) *Var {
	return t.unary(x, func(v float32) float32 { return float32(math.Sqrt(float64(v + eps))) },
		func(_, y float32) float32 { return 0.5 / y })
}

// Log returns log(x + eps) elementwise.
func (t *Tape) Log(x *Var, eps float32) *Var {
	return t.unary(x, func(v float32) float32 { return float32(math.Log(float64(v + eps))) },
		func(x, _ float32) float32 { return 1 / (x + eps) })
}
