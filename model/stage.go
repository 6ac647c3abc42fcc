package model

import (
	"slices"

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

// RowsStaged is implemented by FeatureStaged models that compute the
// logits of a few nodes from their receptive field alone: a server answers
// for a handful of nodes of a new graph version without running the layers
// on every node first.
type RowsStaged interface {
	FeatureStaged
	// ForwardStagedRows returns the logits of the nodes rows (any order)
	// on g from h = FeatureStage(x): row i is row rows[i] of
	// ForwardStaged's logits, bit for bit. It runs the model's
	// aggregations, so it shares ForwardStaged's one-goroutine-at-a-time
	// rule on one model.
	ForwardStagedRows(g *Graph, h *tensor.Dense, rows []int) *tensor.Dense
}

// ForwardStagedRows implements RowsStaged. The second layer of node u
// aggregates the first layer's outputs at the columns of row u of S, so
// the first layer runs on the union of those columns (the rows of S that
// are needed, with their global columns) and the second on rows (their
// columns renumbered into that union, in the same order, so the top-k
// selection and its ties are unchanged). Every op is row-wise — an
// aggregation reads only its row, the bias, ReLU, the product with W₂ and
// the log-softmax go row by row — so the rows come out as in the whole
// forward pass. Graphs with edge values on the tape (g.Vals) or a low-rank
// operator run the whole forward pass and pick the rows.
func (m *RGNN) ForwardStagedRows(g *Graph, h *tensor.Dense, rows []int) *tensor.Dense {
	tp := autograd.NoGrad()
	if g.Vals != nil || g.SVD != nil || g.S == nil || g.S.A.Values == nil {
		return pickRows(m.ForwardStaged(tp, g, h).Value, rows)
	}
	a := g.S.A
	pos := make(map[int32]int32, 8*len(rows))
	var need []int32
	for _, u := range rows {
		for _, c := range a.Indices[a.Indptr[u]:a.Indptr[u+1]] {
			if _, ok := pos[c]; !ok {
				pos[c] = 0
				need = append(need, c)
			}
		}
	}
	slices.Sort(need)
	for i, c := range need {
		pos[c] = int32(i)
	}
	s1 := &tensor.CSR{Rows: len(need), Cols: a.Cols, Indptr: make([]int, 1, len(need)+1)}
	for _, u := range need {
		lo, hi := a.Indptr[u], a.Indptr[u+1]
		s1.Indices = append(s1.Indices, a.Indices[lo:hi]...)
		s1.Values = append(s1.Values, a.Values[lo:hi]...)
		s1.Indptr = append(s1.Indptr, len(s1.Indices))
	}
	s2 := &tensor.CSR{Rows: len(rows), Cols: len(need), Indptr: make([]int, 1, len(rows)+1)}
	for _, u := range rows {
		lo, hi := a.Indptr[u], a.Indptr[u+1]
		for _, c := range a.Indices[lo:hi] {
			s2.Indices = append(s2.Indices, pos[c])
		}
		s2.Values = append(s2.Values, a.Values[lo:hi]...)
		s2.Indptr = append(s2.Indptr, len(s2.Indices))
	}
	z := tp.AddBias(tp.Aggregate(m.agg1, autograd.NewSparse(s1), nil, tp.Const(h)), tp.Param(m.b1))
	z = tp.MatMul(tp.ReLU(z), tp.Param(m.w2))
	z = tp.AddBias(tp.Aggregate(m.agg2, autograd.NewSparse(s2), nil, z), tp.Param(m.b2))
	return tp.LogSoftmax(z).Value
}

// pickRows copies the rows of d into a new matrix.
func pickRows(d *tensor.Dense, rows []int) *tensor.Dense {
	out := tensor.NewDense(len(rows), d.Cols)
	for i, u := range rows {
		copy(out.Row(i), d.Row(u))
	}
	return out
}
