package model

import (
	"fmt"

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
	// The error is a graph too large to list (svd_gcn's dense graph above
	// graph.MaxSVDGraphNodes).
	LastLayer(g *Graph, x *autograd.Sparse) (*tensor.CSR, *tensor.Dense, error)
}

// LastLayer implements LastLayerer. svd_gcn's graph, propagated in low-rank
// form, is listed in its dense form (graph.SVDNormAdj).
func (m *GCN) LastLayer(g *Graph, x *autograd.Sparse) (*tensor.CSR, *tensor.Dense, error) {
	tp := autograd.NoGrad()
	h := tp.SparseX(x, tp.Param(m.w1))
	h = tp.BiasActDropout(propagate(tp, g, h), tp.Param(m.b1), autograd.ActReLU, 0, 0)
	msgs := tp.MatMul(h, tp.Param(m.w2)).Value
	if g.SVD != nil {
		a, err := g.SVD.Dense() // symmetric: column v is row v
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.name, err)
		}
		return a, msgs, nil
	}
	at, _ := g.S.T() // conv(H) = Ŵᵀ·H: node v aggregates over column v of Ŵ
	return at, msgs, nil
}

// LastLayer implements LastLayerer.
func (m *RGNN) LastLayer(g *Graph, x *autograd.Sparse) (*tensor.CSR, *tensor.Dense, error) {
	tp := autograd.NoGrad()
	h := tp.SparseX(x, tp.Param(m.w1))
	h = tp.ReLU(tp.AddBias(tp.Aggregate(m.agg1, g.S, g.Vals, h), tp.Param(m.b1)))
	return g.S.A, tp.MatMul(h, tp.Param(m.w2)).Value, nil
}
