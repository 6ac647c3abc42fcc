package model

import (
	"fmt"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// AggregatorFactory builds the aggregation of a robust model from its name
// and the model options. Package aggregate provides the implementations; the
// factory is injected so this package stays independent of their internals.
type AggregatorFactory func(name string, o Options) (autograd.Aggregator, error)

// RGNN is the reference's robust GNN (RGNNConv): the GCN architecture with
// the weighted sum replaced by a robust aggregation over the rows of the
// gcn_norm graph Ŵ, each output scaled by Ŵ's row sum:
//
//	h₁ = AGG(Ŵ, X·W₁) + b₁ → ReLU → dropout → h₂ = AGG(Ŵ, h₁·W₂) + b₂ → log_softmax
//
// With GDC preprocessing and the Soft Medoid it is the paper's Soft Medoid GDC.
type RGNN struct {
	name string
	prep Preprocessor
	// One aggregation per layer: an aggregation may keep the state of its
	// last Forward for Backward, so layers must not share one.
	agg1, agg2 autograd.Aggregator
	dropout    float64
	w1, b1     *autograd.Param
	w2, b2     *autograd.Param
}

// robustSpecs lists the robust models; agg names an aggregation of package
// aggregate, gdc selects GDC preprocessing.
func robustSpecs(f AggregatorFactory) []Spec {
	mk := func(name, agg string, gdc bool, desc string, facts Spec) Spec {
		facts.Name, facts.Description, facts.Differentiable = name, desc, true
		facts.Uses.Diffusion = gdc
		facts.New = func(nFeat, nClass int, o Options) (Model, error) {
			if f == nil {
				return nil, fmt.Errorf("%s: no aggregation factory (model.Default(nil))", name)
			}
			a1, err := f(agg, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			a2, err := f(agg, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			var prep Preprocessor
			if gdc {
				prep = newGDCPrep(o)
			}
			return newRGNN(name, nFeat, nClass, o, prep, a1, a2), nil
		}
		return facts
	}
	return []Spec{
		mk("sm_gcn", "soft_k_medoid", false, "Soft Medoid GCN (--temperature, --k)", Spec{Label: "Soft Medoid GCN",
			Order: 10, Uses: Uses{Temperature: true, K: true, Normalization: true}, GDCVariant: "sm_gdc"}),
		mk("sm_gdc", "soft_k_medoid", true, "Soft Medoid GDC (--temperature, --k; --normalization alt for SM†)",
			Spec{Label: "Soft Medoid GDC", Order: 11, Uses: Uses{Temperature: true, K: true, Normalization: true}, Row: "sm_gcn"}),
		mk("medoid_gdc", "k_medoid", true, "weighted Medoid (top-k) on GDC", Spec{Label: "Medoid GDC", Order: 7,
			Uses: Uses{K: true}}),
		mk("dimmedian_gdc", "dimmedian", true, "weighted dimension-wise median on GDC", Spec{Label: "Dim. Median GDC",
			Order: 8, Uses: Uses{K: true}}),
		mk("softmedian_gdc", "soft_median", true, "Soft Median on GDC (--temperature)", Spec{Label: "Soft Median GDC",
			Order: 9, Uses: Uses{Temperature: true, K: true}}),
	}
}

func newRGNN(name string, nFeat, nClass int, o Options, prep Preprocessor, agg1, agg2 autograd.Aggregator) *RGNN {
	g := NewGCN(name, nFeat, nClass, o, nil)
	return &RGNN{name: name, prep: prep, agg1: agg1, agg2: agg2, dropout: o.Dropout, w1: g.w1, b1: g.b1, w2: g.w2, b2: g.b2}
}

// Name implements Model.
func (m *RGNN) Name() string { return m.name }

// Params implements Model.
func (m *RGNN) Params() []*autograd.Param { return []*autograd.Param{m.w1, m.b1, m.w2, m.b2} }

// Preprocess implements Model: preprocessing (if any), then gcn_norm.
func (m *RGNN) Preprocess(adj, x *tensor.CSR) (*Graph, error) {
	a := adj
	if m.prep != nil {
		var err error
		if a, err = m.prep.Apply(adj, x); err != nil {
			return nil, fmt.Errorf("%s preprocessing: %w", m.name, err)
		}
	}
	return &Graph{S: autograd.NewSparse(graph.GCNNorm(a))}, nil
}

// Forward implements Model.
func (m *RGNN) Forward(tp *autograd.Tape, g *Graph, x *autograd.Sparse, mode Mode) *autograd.Var {
	return m.forwardFrom(tp, g, xw1(tp, x, m.w1), mode)
}

// forwardFrom is Forward after the feature transform h = X·W₁.
func (m *RGNN) forwardFrom(tp *autograd.Tape, g *Graph, h *autograd.Var, mode Mode) *autograd.Var {
	h = tp.AddBias(tp.Aggregate(m.agg1, g.S, g.Vals, h), tp.Param(m.b1))
	h = tp.ReLU(h)
	if mode.Train {
		h = tp.Dropout(h, m.dropout, mode.Seed)
	}
	h = tp.MatMul(h, tp.Param(m.w2))
	h = tp.AddBias(tp.Aggregate(m.agg2, g.S, g.Vals, h), tp.Param(m.b2))
	return tp.LogSoftmax(h)
}
