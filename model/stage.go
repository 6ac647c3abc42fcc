package model

import (
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/tensor"
)

// FeatureStaged is implemented by models whose inference forward pass
// begins with a stage that reads only the node features and the weights:
// the first layer's transform X·W₁ of the GCN family, GAT and the robust
// GNNs, the whole MLP of APPNP and PPRGo. Classifying many graphs with the
// same features (randomized smoothing perturbs only the edges) computes that
// stage once (train.Classifier).
type FeatureStaged interface {
	Model
	// FeatureStage returns the graph-independent stage of the inference
	// forward pass on the features x, computed by the same operations as
	// Forward.
	FeatureStage(x *autograd.Sparse) *tensor.Dense
	// ForwardStaged is the rest of the inference forward pass (Mode{}) on
	// g from h = FeatureStage(x). Its logits equal those of
	// Forward(tp, g, x, Mode{}) bit for bit while the weights are the ones
	// FeatureStage used; h is only read.
	ForwardStaged(tp *autograd.Tape, g *Graph, h *tensor.Dense) *autograd.Var
}

// xw1 is the feature transform x·w₁ on tp.
func xw1(tp *autograd.Tape, x *autograd.Sparse, w1 *autograd.Param) *autograd.Var {
	return tp.SparseX(x, tp.Param(w1))
}

// stage runs the inference feature stage f on a tape of its own.
func stage(f func(tp *autograd.Tape) *autograd.Var) *tensor.Dense {
	return f(autograd.NoGrad()).Value
}

// FeatureStage implements FeatureStaged: X·W₁.
func (m *GCN) FeatureStage(x *autograd.Sparse) *tensor.Dense {
	return stage(func(tp *autograd.Tape) *autograd.Var { return xw1(tp, x, m.w1) })
}

// ForwardStaged implements FeatureStaged.
func (m *GCN) ForwardStaged(tp *autograd.Tape, g *Graph, h *tensor.Dense) *autograd.Var {
	return m.forwardFrom(tp, g, tp.Const(h), Mode{})
}

// FeatureStage implements FeatureStaged: X·W₁.
func (m *RGNN) FeatureStage(x *autograd.Sparse) *tensor.Dense {
	return stage(func(tp *autograd.Tape) *autograd.Var { return xw1(tp, x, m.w1) })
}

// ForwardStaged implements FeatureStaged.
func (m *RGNN) ForwardStaged(tp *autograd.Tape, g *Graph, h *tensor.Dense) *autograd.Var {
	return m.forwardFrom(tp, g, tp.Const(h), Mode{})
}

// FeatureStage implements FeatureStaged: X·W₁.
func (m *GAT) FeatureStage(x *autograd.Sparse) *tensor.Dense {
	return stage(func(tp *autograd.Tape) *autograd.Var { return xw1(tp, x, m.w1) })
}

// ForwardStaged implements FeatureStaged.
func (m *GAT) ForwardStaged(tp *autograd.Tape, g *Graph, h *tensor.Dense) *autograd.Var {
	return m.forwardFrom(tp, g, tp.Const(h), Mode{})
}

// FeatureStage implements FeatureStaged: the MLP.
func (m *APPNP) FeatureStage(x *autograd.Sparse) *tensor.Dense {
	return stage(func(tp *autograd.Tape) *autograd.Var { return m.mlp(tp, x, Mode{}) })
}

// ForwardStaged implements FeatureStaged.
func (m *APPNP) ForwardStaged(tp *autograd.Tape, g *Graph, h *tensor.Dense) *autograd.Var {
	return m.propagate(tp, g, tp.Const(h))
}

// FeatureStage implements FeatureStaged: the MLP.
func (m *PPRGo) FeatureStage(x *autograd.Sparse) *tensor.Dense {
	return stage(func(tp *autograd.Tape) *autograd.Var { return m.mlp(tp, x, Mode{}) })
}

// ForwardStaged implements FeatureStaged.
func (m *PPRGo) ForwardStaged(tp *autograd.Tape, g *Graph, h *tensor.Dense) *autograd.Var {
	return m.propagate(tp, g.S, g.Vals, tp.Const(h))
}

// FirstAggregation returns the first layer's aggregation of m, for a caller
// that runs it in a way of its own (ForwardStagedWith): an aggregation
// keeps state between calls, so use it on one goroutine at a time, as
// Forward does.
func (m *RGNN) FirstAggregation() autograd.Aggregator { return m.agg1 }

// ForwardStagedWith is ForwardStaged with agg1 in place of the first
// layer's aggregation: the same logits, bit for bit, when agg1 computes
// the same bits as FirstAggregation() (a server reusing what the
// aggregation computed for the previous graph: aggregate.DistCache).
func (m *RGNN) ForwardStagedWith(tp *autograd.Tape, g *Graph, h *tensor.Dense, agg1 autograd.Aggregator) *autograd.Var {
	c := *m
	c.agg1 = agg1
	return c.forwardFrom(tp, g, tp.Const(h), Mode{})
}
