package autograd

import (
	"fmt"

	"github.com/rgnn/rgnn/tensor"
)

// ColSlice returns columns [lo, hi) of x.
func (t *Tape) ColSlice(x *Var, lo, hi int) *Var {
	if lo < 0 || hi > x.Value.Cols || lo >= hi {
		panic(fmt.Sprintf("autograd.ColSlice: [%d, %d) of %s", lo, hi, x.Value.Shape()))
	}
	w := hi - lo
	out := t.newVar(x.Value.Rows, w)
	for i := 0; i < x.Value.Rows; i++ {
		copy(out.Value.Row(i), x.Value.Row(i)[lo:hi])
	}
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		gx := t.gradOf(x)
		for i := 0; i < x.Value.Rows; i++ {
			g := gx.Row(i)[lo:hi]
			for j, v := range out.grad.Row(i) {
				g[j] += v
			}
		}
	}, x)
	return out
}

// ConcatCols returns the column-wise concatenation of xs (same row count).
func (t *Tape) ConcatCols(xs ...*Var) *Var {
	rows, cols := xs[0].Value.Rows, 0
	for _, x := range xs {
		if x.Value.Rows != rows {
			panic(fmt.Sprintf("autograd.ConcatCols: %s vs %d rows", x.Value.Shape(), rows))
		}
		cols += x.Value.Cols
	}
	out := t.newVar(rows, cols)
	tensor.Parallel(rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := out.Value.Row(i)
			for _, x := range xs {
				o = o[copy(o, x.Value.Row(i)):]
			}
		}
	})
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		off := 0
		for _, x := range xs {
			w := x.Value.Cols
			if x.needsGrad {
				gx := t.gradOf(x)
				for i := 0; i < rows; i++ {
					g := gx.Row(i)
					for j, v := range out.grad.Row(i)[off : off+w] {
						g[j] += v
					}
				}
			}
			off += w
		}
	}, xs...)
	return out
}
