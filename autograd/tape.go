package autograd

import (
	"fmt"
	"sync"

	"github.com/rgnn/rgnn/tensor"
)

// Param is a trainable weight. Its gradient accumulates across Backward
// calls until ZeroGrad.
type Param struct {
	Name  string
	Value *tensor.Dense
	Grad  *tensor.Dense
}

// NewParam wraps v as a parameter with a zero gradient.
func NewParam(name string, v *tensor.Dense) *Param {
	return &Param{Name: name, Value: v, Grad: tensor.NewDense(v.Rows, v.Cols)}
}

// ZeroGrad clears the gradient.
func (p *Param) ZeroGrad() { p.Grad.Zero() }

// Var is a value recorded on a tape, with its gradient when one is needed.
type Var struct {
	Value     *tensor.Dense
	grad      *tensor.Dense
	needsGrad bool
}

// Grad returns the gradient after Backward (nil if none flowed here).
func (v *Var) Grad() *tensor.Dense { return v.grad }

// NeedsGrad reports whether gradients flow into v.
func (v *Var) NeedsGrad() bool { return v != nil && v.needsGrad }

// Tape records operations for reverse-mode differentiation.
type Tape struct {
	back  []func()
	free  map[[2]int][]*tensor.Dense
	used  []*tensor.Dense
	grads bool
}

// NewTape returns an empty tape that records gradients.
func NewTape() *Tape { return &Tape{free: map[[2]int][]*tensor.Dense{}, grads: true} }

// NoGrad returns a tape that records nothing (inference): ops only compute.
func NoGrad() *Tape { return &Tape{free: map[[2]int][]*tensor.Dense{}} }

// Reset forgets the recorded operations and recycles every buffer handed out
// since the last Reset. Vars from before are invalid afterwards.
func (t *Tape) Reset() {
	clear(t.back)
	t.back = t.back[:0]
	for _, d := range t.used {
		k := [2]int{d.Rows, d.Cols}
		t.free[k] = append(t.free[k], d)
	}
	clear(t.used)
	t.used = t.used[:0]
}

// alloc returns an arena buffer of the shape (contents undefined).
func (t *Tape) alloc(r, c int) *tensor.Dense {
	k := [2]int{r, c}
	var d *tensor.Dense
	if l := t.free[k]; len(l) > 0 {
		d = l[len(l)-1]
		t.free[k] = l[:len(l)-1]
	} else {
		d = tensor.NewDense(r, c)
	}
	t.used = append(t.used, d)
	return d
}

// zeros returns a zeroed arena buffer.
func (t *Tape) zeros(r, c int) *tensor.Dense {
	d := t.alloc(r, c)
	d.Zero()
	return d
}

// Scratch returns an arena buffer of the shape, zeroed, valid until Reset.
// Custom ops use it for temporaries.
func (t *Tape) Scratch(r, c int) *tensor.Dense { return t.zeros(r, c) }

// gradOf returns v's gradient buffer, allocating a zero one on first use.
func (t *Tape) gradOf(v *Var) *tensor.Dense {
	if v.grad == nil {
		v.grad = t.zeros(v.Value.Rows, v.Value.Cols)
	}
	return v.grad
}

// gradFresh returns v's gradient buffer and whether it was just created: a
// new buffer is uninitialised, and the caller must overwrite every element
// rather than accumulate (saving the zeroing and an add pass).
func (t *Tape) gradFresh(v *Var) (*tensor.Dense, bool) {
	if v.grad == nil {
		v.grad = t.alloc(v.Value.Rows, v.Value.Cols)
		return v.grad, true
	}
	return v.grad, false
}

// record adds a backward closure if any input needs a gradient and returns
// whether it did; the output needs a gradient exactly then.
func (t *Tape) record(out *Var, fn func(), inputs ...*Var) {
	if !t.grads {
		return
	}
	for _, in := range inputs {
		if in.NeedsGrad() {
			out.needsGrad = true
			t.back = append(t.back, fn)
			return
		}
	}
}

// newVar wraps an arena buffer as a Var.
func (t *Tape) newVar(r, c int) *Var { return &Var{Value: t.alloc(r, c)} }

// Const records a value that needs no gradient.
func (t *Tape) Const(d *tensor.Dense) *Var { return &Var{Value: d} }

// Leaf records a value whose gradient is wanted (read it with Grad after
// Backward), e.g. the edge weights an attack differentiates.
func (t *Tape) Leaf(d *tensor.Dense) *Var { return &Var{Value: d, needsGrad: t.grads} }

// Param records a parameter; after Backward its gradient is added to p.Grad.
func (t *Tape) Param(p *Param) *Var {
	v := &Var{Value: p.Value, needsGrad: t.grads}
	if t.grads {
		v.grad = p.Grad
	}
	return v
}

// Backward runs the recorded operations in reverse, starting from the scalar
// loss (a 1×1 Var) with gradient 1.
func (t *Tape) Backward(loss *Var) {
	if loss.Value.Rows != 1 || loss.Value.Cols != 1 {
		panic(fmt.Sprintf("autograd: Backward needs a 1×1 loss, got %s", loss.Value.Shape()))
	}
	if !loss.needsGrad {
		return
	}
	t.gradOf(loss).Data[0] += 1
	for i := len(t.back) - 1; i >= 0; i-- {
		t.back[i]()
	}
}

// Sparse is a constant sparse structure (with default values) used as an
// operand; its transpose is computed once on first use, so A must not be
// modified after the first use.
type Sparse struct {
	A    *tensor.CSR
	once sync.Once
	at   *tensor.CSR
	perm []int
}

// NewSparse wraps a CSR matrix as an operand.
func NewSparse(a *tensor.CSR) *Sparse { return &Sparse{A: a} }

// T returns the transpose and the permutation mapping its entries to a's.
func (s *Sparse) T() (*tensor.CSR, []int) {
	s.once.Do(func() { s.at, s.perm = s.A.Transpose() })
	return s.at, s.perm
}

// WithValues returns an operand with s's structure and the values v (e.g.
// dropout on a sparse input): its transpose reuses s's cached transposed
// structure with the values permuted, instead of transposing again.
func (s *Sparse) WithValues(v []float32) *Sparse {
	at, perm := s.T()
	tv := permute(make([]float32, len(perm)), v, perm)
	n := &Sparse{A: s.A.WithValues(v), at: at.WithValues(tv), perm: perm}
	n.once.Do(func() {})
	return n
}

// values returns the CSR with the values of vals (nnz×1) or the defaults.
func (s *Sparse) with(vals *Var) *tensor.CSR {
	if vals == nil {
		return s.A
	}
	if vals.Value.Rows*vals.Value.Cols != s.A.Nnz() {
		panic(fmt.Sprintf("autograd: %d edge values for a sparse operand with %d entries",
			len(vals.Value.Data), s.A.Nnz()))
	}
	return s.A.WithValues(vals.Value.Data)
}
