package autograd

import (
	"fmt"

	"github.com/rgnn/rgnn/tensor"
)

// SpMM returns A·x where A has the structure of s and the values of vals (an
// nnz×1 Var; nil means s's own constant values). Gradients flow to x
// (Aᵀ·dy) and to vals (dy_r·x_c for entry (r, c)).
func (t *Tape) SpMM(s *Sparse, vals, x *Var) *Var {
	a := s.with(vals)
	out := t.newVar(a.Rows, x.Value.Cols)
	tensor.SpMM(out.Value, a, x.Value, false)
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		if x.needsGrad {
			gx, fresh := t.gradFresh(x)
			tensor.SpMM(gx, t.transposed(s, vals), g, !fresh)
		}
		if vals.NeedsGrad() {
			tensor.SpMMValuesGrad(t.gradOf(vals).Data, a, x.Value, g)
		}
	}, x, varOrNil(vals))
	return out
}

// SpMMT returns Aᵀ·x (PyG's source→target message passing over A), with the
// same operands as SpMM.
func (t *Tape) SpMMT(s *Sparse, vals, x *Var) *Var {
	a := s.with(vals)
	at := t.transposed(s, vals)
	out := t.newVar(at.Rows, x.Value.Cols)
	tensor.SpMM(out.Value, at, x.Value, false)
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		if x.needsGrad {
			gx, fresh := t.gradFresh(x)
			tensor.SpMM(gx, a, g, !fresh)
		}
		if vals.NeedsGrad() {
			// entry k = (r, c) of A contributes a_k·x_r to out_c.
			tensor.SpMMValuesGrad(t.gradOf(vals).Data, a, g, x.Value)
		}
	}, x, varOrNil(vals))
	return out
}

// transposed returns the transpose of s's structure carrying the values of
// vals (nil: s's own values, whose transpose is cached).
func (t *Tape) transposed(s *Sparse, vals *Var) *tensor.CSR {
	at, perm := s.T()
	if vals == nil {
		return at
	}
	return at.WithValues(permute(t.alloc(len(perm), 1).Data, vals.Value.Data, perm))
}

// permute writes the values v of a matrix's entries in the order of its
// transpose (dst[p] = v[perm[p]], perm from Sparse.T) and returns dst.
func permute(dst, v []float32, perm []int) []float32 {
	for p, k := range perm {
		dst[p] = v[k]
	}
	return dst
}

// varOrNil lets a nil *Var pass through the variadic inputs of record.
func varOrNil(v *Var) *Var {
	if v == nil {
		return &Var{}
	}
	return v
}

// SparseX returns X·w for a constant sparse matrix X (e.g. node features)
// and a dense Var w. The gradient to w is Xᵀ·dy.
func (t *Tape) SparseX(x *Sparse, w *Var) *Var { return t.SpMM(x, nil, w) }

// EdgeAdd returns, for every entry k = (r, c) of s, src[r] + dst[c] as an
// nnz×1 Var (attention logits: src and dst are n×1).
func (t *Tape) EdgeAdd(s *Sparse, src, dst *Var) *Var {
	a := s.A
	if src.Value.Cols != 1 || dst.Value.Cols != 1 || src.Value.Rows != a.Rows || dst.Value.Rows != a.Cols {
		panic(fmt.Sprintf("autograd.EdgeAdd: %s and %s for %d×%d", src.Value.Shape(), dst.Value.Shape(), a.Rows, a.Cols))
	}
	out := t.newVar(a.Nnz(), 1)
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			out.Value.Data[k] = src.Value.Data[r] + dst.Value.Data[a.Indices[k]]
		}
	}
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		if src.needsGrad {
			gs := t.gradOf(src).Data
			for r := 0; r < a.Rows; r++ {
				for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
					gs[r] += g.Data[k]
				}
			}
		}
		if dst.needsGrad {
			gd := t.gradOf(dst).Data
			for k, c := range a.Indices {
				gd[c] += g.Data[k]
			}
		}
	}, src, dst)
	return out
}

// SegmentSoftmax returns, for an nnz×1 Var e over the entries of s, the
// softmax of e within each row of s (attention weights). Empty rows are
// left empty.
func (t *Tape) SegmentSoftmax(s *Sparse, e *Var) *Var {
	a := s.A
	out := t.newVar(a.Nnz(), 1)
	tensor.Parallel(a.Rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			seg := e.Value.Data[a.Indptr[r]:a.Indptr[r+1]]
			o := out.Value.Data[a.Indptr[r]:a.Indptr[r+1]]
			softmaxInto(o, seg)
		}
	})
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		ge := t.gradOf(e).Data
		tensor.Parallel(a.Rows, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				k0, k1 := a.Indptr[r], a.Indptr[r+1]
				var d float64
				for k := k0; k < k1; k++ {
					d += float64(g.Data[k]) * float64(out.Value.Data[k])
				}
				for k := k0; k < k1; k++ {
					ge[k] += out.Value.Data[k] * (g.Data[k] - float32(d))
				}
			}
		})
	}, e)
	return out
}

// Aggregator is a row-wise aggregation over a weighted sparse matrix with a
// hand-written backward (see package aggregate). Forward overwrites out;
// Backward accumulates into gradX and gradVals (either may be nil).
type Aggregator interface {
	Forward(a *tensor.CSR, x, out *tensor.Dense) any
	Backward(state any, gradOut, gradX *tensor.Dense, gradVals []float32)
}

// BackwardAggregator is an Aggregator whose forward pass can prepare for a
// Backward: ForwardForBackward is Forward for a call whose Backward can
// follow, and may keep intermediates that Backward would otherwise
// recompute (the same results either way). Aggregate calls it exactly when
// the tape records the op, so forward-only use (a NoGrad tape, or inputs
// that need no gradient) never pays for them.
type BackwardAggregator interface {
	Aggregator
	ForwardForBackward(a *tensor.CSR, x, out *tensor.Dense) any
}

// Aggregate returns agg applied to x over the rows of A (structure s, values
// vals or s's defaults).
func (t *Tape) Aggregate(agg Aggregator, s *Sparse, vals, x *Var) *Var {
	a := s.with(vals)
	out := t.newVar(a.Rows, x.Value.Cols)
	var st any
	if ba, ok := agg.(BackwardAggregator); ok && t.grads && (x.NeedsGrad() || vals.NeedsGrad()) {
		st = ba.ForwardForBackward(a, x.Value, out.Value)
	} else {
		st = agg.Forward(a, x.Value, out.Value)
	}
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		var gx *tensor.Dense
		var gv []float32
		if x.needsGrad {
			gx = t.gradOf(x)
		}
		if vals.NeedsGrad() {
			gv = t.gradOf(vals).Data
		}
		agg.Backward(st, out.grad, gx, gv)
	}, x, varOrNil(vals))
	return out
}
