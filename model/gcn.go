package model

import (
	"fmt"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// Preprocessor turns the raw adjacency into a weighted adjacency before the
// GCN normalisation (GDC, SVD, Jaccard). Normalize reports whether gcn_norm
// is applied afterwards.
type Preprocessor interface {
	Apply(adj, x *tensor.CSR) (*tensor.CSR, error)
	Normalize() bool
}

// GCN is the two-layer graph convolutional network of the reference:
// conv(d→h) → ReLU → dropout → conv(h→C), with conv(H) = Ŵᵀ·(H·W) + b.
// With a Preprocessor it is the GDC / SVD / Jaccard variant.
type GCN struct {
	name    string
	prep    Preprocessor // nil: plain gcn_norm of the input graph
	dropout float64
	w1, b1  *autograd.Param
	w2, b2  *autograd.Param
}

func gcnSpecs() []Spec {
	return []Spec{
		{Name: "gcn", Description: "Vanilla GCN (Kipf & Welling), PyG gcn_norm",
			Label: "Vanilla GCN", Order: 0, Differentiable: true, GDCVariant: "gdc",
			New: func(nFeat, nClass int, o Options) (Model, error) {
				return NewGCN("gcn", nFeat, nClass, o, nil), nil
			}},
		{Name: "gdc", Description: "GCN on the GDC graph (top-k PPR, α=0.15, k=64, rows normalised, then gcn_norm)",
			Label: "Vanilla GDC", Order: 1, Uses: Uses{K: true, Diffusion: true}, Differentiable: true, Row: "gcn",
			New: func(nFeat, nClass int, o Options) (Model, error) {
				return NewGCN("gdc", nFeat, nClass, o, newGDCPrep(o)), nil
			}},
		{Name: "svd_gcn", Description: "GCN on the rank-50 truncated SVD of the adjacency (dense graph, propagated in low-rank form)",
			Label: "SVD GCN", Order: 4,
			New: func(nFeat, nClass int, o Options) (Model, error) {
				return NewGCN("svd_gcn", nFeat, nClass, o, svdPrep{rank: 50, cache: o.Cache}), nil
			}},
		{Name: "jaccard_gcn", Description: "GCN after dropping edges with feature Jaccard similarity ≤ 0.01",
			Label: "Jaccard GCN", Order: 5,
			New: func(nFeat, nClass int, o Options) (Model, error) {
				return NewGCN("jaccard_gcn", nFeat, nClass, o, jaccardPrep{threshold: 0.01}), nil
			}},
	}
}

// NewGCN builds a GCN with Glorot weights and zero biases from o.Seed.
func NewGCN(name string, nFeat, nClass int, o Options, prep Preprocessor) *GCN {
	o = o.withDefaults()
	rng := newRNG(o.Seed)
	return &GCN{
		name: name, prep: prep, dropout: o.Dropout,
		w1: autograd.NewParam("layers.0.gcn_0.weight", glorot(rng, nFeat, o.Hidden)),
		b1: autograd.NewParam("layers.0.gcn_0.bias", tensor.NewDense(1, o.Hidden)),
		w2: autograd.NewParam("layers.1.gcn_1.weight", glorot(rng, o.Hidden, nClass)),
		b2: autograd.NewParam("layers.1.gcn_1.bias", tensor.NewDense(1, nClass)),
	}
}

// Name implements Model.
func (m *GCN) Name() string { return m.name }

// Params implements Model.
func (m *GCN) Params() []*autograd.Param { return []*autograd.Param{m.w1, m.b1, m.w2, m.b2} }

// Preprocess implements Model: the preprocessing (if any), then gcn_norm;
// svd_gcn's dense graph in low-rank form (Graph.SVD, no gcn_norm).
func (m *GCN) Preprocess(adj, x *tensor.CSR) (*Graph, error) {
	if lp, ok := m.prep.(lowRankPrep); ok {
		s, err := lp.LowRank(adj)
		if err != nil {
			return nil, fmt.Errorf("%s preprocessing: %w", m.name, err)
		}
		return &Graph{SVD: s}, nil
	}
	a := adj
	normalize := true
	if m.prep != nil {
		var err error
		if a, err = m.prep.Apply(adj, x); err != nil {
			return nil, fmt.Errorf("%s preprocessing: %w", m.name, err)
		}
		normalize = m.prep.Normalize()
	}
	if normalize {
		a = graph.GCNNorm(a)
	}
	return &Graph{S: autograd.NewSparse(a)}, nil
}

// Forward implements Model.
func (m *GCN) Forward(tp *autograd.Tape, g *Graph, x *autograd.Sparse, mode Mode) *autograd.Var {
	return m.forwardFrom(tp, g, xw1(tp, x, m.w1), mode)
}

// forwardFrom is Forward after the feature transform h = X·W₁.
func (m *GCN) forwardFrom(tp *autograd.Tape, g *Graph, h *autograd.Var, mode Mode) *autograd.Var {
	var p float64
	if mode.Train {
		p = m.dropout
	}
	// AddBias → ReLU → Dropout in one pass (same values as the chain).
	h = tp.BiasActDropout(propagate(tp, g, h), tp.Param(m.b1), autograd.ActReLU, p, mode.Seed)
	h = tp.MatMul(h, tp.Param(m.w2))
	return tp.AddBias(propagate(tp, g, h), tp.Param(m.b2))
}

// propagate is a GCN layer's message passing Ŵᵀ·h: over the sparse S, or
// with the low-rank operator of a dense graph (svd_gcn; Ŵ is symmetric
// there, so Ŵᵀ·h = Ŵ·h).
func propagate(tp *autograd.Tape, g *Graph, h *autograd.Var) *autograd.Var {
	if g.SVD != nil {
		return tp.SymLowRank(g.SVD.Op, h)
	}
	return tp.SpMMT(g.S, g.Vals, h)
}
