package model

import (
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/tensor"
)

// LastLayerer is implemented by the two-layer message-passing models (the
// GCN family and the robust GNNs): what their output layer aggregates, as
// in the paper's Figure 1.
type LastLayerer interface {
	// LastLayer returns the weighted adjacency of the last aggregation —
	// row v lists v's neighbours w with their weights a_vw — and every
	// node's message h_w·W⁽²⁾ (evaluation mode, no dropout), on the
	// preprocessed graph g.
	LastLayer(g *Graph, x *autograd.Sparse) (*tensor.CSR, *tensor.Dense)
}

// LastLayer implements LastLayerer.
func (m *GCN) LastLayer(g *Graph, x *autograd.Sparse) (*tensor.CSR, *tensor.Dense) {
	tp := autograd.NoGrad()
	h := tp.SparseX(x, tp.Param(m.w1))
	h = tp.BiasActDropout(tp.SpMMT(g.S, g.Vals, h), tp.Param(m.b1), autograd.ActReLU, 0, 0)
	at, _ := g.S.T() // conv(H) = Ŵᵀ·H: node v aggregates over column v of Ŵ
	return at, tp.MatMul(h, tp.Param(m.w2)).Value
}

// LastLayer implements LastLayerer.
func (m *RGNN) LastLayer(g *Graph, x *autograd.Sparse) (*tensor.CSR, *tensor.Dense) {
	tp := autograd.NoGrad()
	h := tp.SparseX(x, tp.Param(m.w1))
	h = tp.ReLU(tp.AddBias(tp.Aggregate(m.agg1, g.S, g.Vals, h), tp.Param(m.b1)))
	return g.S.A, tp.MatMul(h, tp.Param(m.w2)).Value
}
