package engine

import (
	"fmt"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// Tape differentiates any model whose preprocessing is gcn_norm
// (model.PlainNorm: gcn, sm_gcn, ...) through the autograd tape, Soft
// Medoid aggregations included (their backward returns edge-weight
// gradients): the adaptive attack. The pairs asked for must be stored in
// the graph passed to Evaluate (AnyPair is false), so PR-BCD keeps its whole
// block in the structure (memory O(edges + block)). Models with GDC
// preprocessing have their own engine (GDC); SVD/Jaccard ones are
// refused.
type Tape struct {
	m    model.Model
	x    *autograd.Sparse
	w    *tensor.CSR
	grad []float32 // ∂loss/∂w per stored entry of w
}

// NewTape returns the adaptive engine for m.
func NewTape(m model.Model, p *data.Problem) (*Tape, error) {
	if !model.PlainNorm(m) {
		return nil, fmt.Errorf("attack: the tape engine cannot differentiate %s's preprocessing; "+
			"models with plain gcn_norm (gcn, sm_gcn, ...) or GDC (GDC) are supported", m.Name())
	}
	return &Tape{m: m, x: p.X}, nil
}

// AnyPair implements Engine.
func (e *Tape) AnyPair() bool { return false }

// Describe names the attacked model for error messages about pairs that
// are not stored.
func (e *Tape) Describe() string {
	return fmt.Sprintf("the attacked model %s uses the tape engine", e.m.Name())
}

// Evaluate implements Engine.
func (e *Tape) Evaluate(w *tensor.CSR, loss attack.Loss, targets []int, labels []int32, grad bool) (attack.Eval, error) {
	ev, gw, err := evalWeighted(e.m, e.x, w, loss, targets, labels, grad)
	if err != nil {
		return attack.Eval{}, err
	}
	e.w, e.grad = w, gw
	return ev, nil
}

// evalWeighted runs m on the weighted graph w (self loops → gcn_norm →
// Forward, the values of w a tape leaf) and returns the loss and accuracy
// at the targets and, with grad, ∂loss/∂w per stored entry of w (nil
// without). Model parameter gradients are left at zero.
func evalWeighted(m model.Model, x *autograd.Sparse, w *tensor.CSR, loss attack.Loss, targets []int, labels []int32,
	grad bool) (attack.Eval, []float32, error) {
	s, src := graph.AddRemainingSelfLoops(w, 1)
	ss := autograd.NewSparse(s)
	tp := newTape(grad)
	wv := tensor.NewDense(w.Nnz(), 1)
	copy(wv.Data, w.Values)
	vals := tp.Leaf(wv)
	norm := tp.GCNNormValues(ss, tp.Gather(vals, src, 1))
	logits := m.Forward(tp, &model.Graph{S: ss, Vals: norm}, x, model.Mode{})
	return finishEval(m, tp, logits, vals, w.Nnz(), loss, targets, labels, grad)
}

// newTape is a recording tape with grad, else one that records nothing.
func newTape(grad bool) *autograd.Tape {
	if grad {
		return autograd.NewTape()
	}
	return autograd.NoGrad()
}

// finishEval computes the loss and accuracy of logits and, with grad, the
// loss's gradient with respect to the leaf vals (nnz values), leaving the
// model's parameter gradients zero.
func finishEval(m model.Model, tp *autograd.Tape, logits, vals *autograd.Var, nnz int, loss attack.Loss, targets []int,
	labels []int32, grad bool) (attack.Eval, []float32, error) {
	if err := logits.Value.CheckFinite(m.Name() + " logits"); err != nil {
		return attack.Eval{}, nil, err
	}
	gl := tensor.NewDense(logits.Value.Rows, logits.Value.Cols)
	ev := attack.Eval{Loss: loss(logits.Value, targets, labels, gl), Accuracy: train.Accuracy(logits.Value, labels, targets)}
	if !grad {
		return ev, nil, nil
	}
	// Σ logits ⊙ G has gradient G with respect to the logits.
	tp.Backward(tp.Sum(tp.Mul(logits, tp.Const(gl))))
	for _, q := range m.Params() {
		q.ZeroGrad()
	}
	gw := make([]float32, nnz)
	if g := vals.Grad(); g != nil {
		copy(gw, g.Data)
	}
	return ev, gw, nil
}

// evalOnMatrix is evalWeighted for models whose layers take the
// preprocessed matrix s itself (PPRGo: the aggregation of the MLP's rows
// over s): s's values are the tape leaf, and the gradient returned is the
// loss's with respect to them.
func evalOnMatrix(m model.Model, x *autograd.Sparse, s *tensor.CSR, loss attack.Loss, targets []int, labels []int32,
	grad bool) (attack.Eval, []float32, error) {
	tp := newTape(grad)
	sv := tensor.NewDense(s.Nnz(), 1)
	copy(sv.Data, s.Values)
	vals := tp.Leaf(sv)
	logits := m.Forward(tp, &model.Graph{S: autograd.NewSparse(s), Vals: vals}, x, model.Mode{})
	return finishEval(m, tp, logits, vals, s.Nnz(), loss, targets, labels, grad)
}

// PairGrad implements Engine: the sum of both directions' entry gradients.
func (e *Tape) PairGrad(pairs []attack.Flip, out []float32) error {
	if e.grad == nil {
		return fmt.Errorf("attack: PairGrad before Evaluate with gradients")
	}
	for i, f := range pairs {
		k1, ok1 := e.w.Find(int(f.U), int(f.V))
		k2, ok2 := e.w.Find(int(f.V), int(f.U))
		if !ok1 || !ok2 {
			return fmt.Errorf("attack: pair (%d, %d) is not stored in the graph (adaptive engines need it)", f.U, f.V)
		}
		out[i] = e.grad[k1] + e.grad[k2]
	}
	return nil
}
