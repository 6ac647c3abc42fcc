package autograd

import (
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// spyAggregator is A·x that records which forward pass Aggregate called.
type spyAggregator struct{ forward, forBackward int }

func (s *spyAggregator) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	s.forward++
	tensor.SpMM(out, a, x, false)
	return nil
}

func (s *spyAggregator) ForwardForBackward(a *tensor.CSR, x, out *tensor.Dense) any {
	s.forBackward++
	tensor.SpMM(out, a, x, false)
	return nil
}

func (s *spyAggregator) Backward(any, *tensor.Dense, *tensor.Dense, []float32) {}

// TestAggregateForwardForBackward checks that Tape.Aggregate calls
// ForwardForBackward exactly when a Backward can follow: on a recording
// tape with x or the edge values needing a gradient, and never on a NoGrad
// tape or for constant inputs.
func TestAggregateForwardForBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := NewSparse(randCSR(rng, 6, 6, 0.5))
	x := randDense(rng, 6, 3)
	vals := tensor.NewDense(a.A.Nnz(), 1)
	copy(vals.Data, a.A.Values)
	cases := []struct {
		name    string
		tape    *Tape
		x, vals func(tp *Tape) *Var
		want    bool
	}{
		{"grad x", NewTape(), func(tp *Tape) *Var { return tp.Leaf(x) }, func(*Tape) *Var { return nil }, true},
		{"grad vals", NewTape(), func(tp *Tape) *Var { return tp.Const(x) }, func(tp *Tape) *Var { return tp.Leaf(vals) }, true},
		{"constants", NewTape(), func(tp *Tape) *Var { return tp.Const(x) }, func(tp *Tape) *Var { return tp.Const(vals) }, false},
		{"no grad", NoGrad(), func(tp *Tape) *Var { return tp.Leaf(x) }, func(tp *Tape) *Var { return tp.Leaf(vals) }, false},
	}
	for _, c := range cases {
		spy := &spyAggregator{}
		c.tape.Aggregate(spy, a, c.vals(c.tape), c.x(c.tape))
		if got := spy.forBackward == 1; got != c.want || spy.forward+spy.forBackward != 1 {
			t.Errorf("%s: Forward %d, ForwardForBackward %d calls; want ForwardForBackward: %v",
				c.name, spy.forward, spy.forBackward, c.want)
		}
	}
}
