package model

import (
	"fmt"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// PPRGo (Bojchevski et al., KDD 2020), the scalable model of "Robustness of
// Graph Neural Networks at Scale" (Geisler et al., NeurIPS 2021): a
// two-layer bias-free MLP on the features, H = Linear(d→h) → ReLU →
// dropout → Linear(h→C), and the logits of node i aggregate H over its
// top-k personalised-PageRank neighbours Π_i (push approximation,
// graph.TopKPPR, rows normalised): Σ_j Π_ij·H_j (pprgo), or a robust
// aggregation of the rows (softmedian_pprgo: the Soft Median weighted by
// Π). The preprocessing costs O(n·k) memory; nothing is n×n. This
// implementation trains full batch, like every other model.
type PPRGo struct {
	name       string
	alpha, eps float64
	k          int
	dropout    float64
	agg        autograd.Aggregator // nil: the PPR-weighted sum
	w1, w2     *autograd.Param
}

// pprgoEps is the push error when Options.PPREps is 0.
const pprgoEps = 1e-4

func pprgoSpecs(f AggregatorFactory) []Spec {
	mk := func(name, agg, desc string, facts Spec) Spec {
		facts.Name, facts.Description = name, desc
		facts.New = func(nFeat, nClass int, o Options) (Model, error) {
			rng := newRNG(o.Seed)
			m := &PPRGo{name: name, alpha: o.Alpha, eps: o.PPREps, k: o.K, dropout: o.Dropout,
				w1: autograd.NewParam("mlp.0.weight", glorot(rng, nFeat, o.Hidden)),
				w2: autograd.NewParam("mlp.1.weight", glorot(rng, o.Hidden, nClass))}
			if m.eps == 0 {
				m.eps = pprgoEps
			}
			if agg != "" {
				if f == nil {
					return nil, fmt.Errorf("%s: no aggregation factory (model.Default(nil))", name)
				}
				a, err := f(agg, o)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				m.agg = a
			}
			return m, nil
		}
		return facts
	}
	return []Spec{
		mk("pprgo", "", "PPRGo (MLP, then the PPR-weighted sum over the top-k PPR neighbours; --k, α=0.15)",
			Spec{Label: "PPRGo", Order: 12, Uses: Uses{K: true}}),
		mk("softmedian_pprgo", "soft_median", "Soft Median PPRGo (MLP, then the Soft Median over the top-k PPR neighbours; --temperature, --k)",
			Spec{Label: "Soft Median PPRGo", Order: 13, Uses: Uses{K: true, Temperature: true}}),
	}
}

// Name implements Model.
func (m *PPRGo) Name() string { return m.name }

// Params implements Model.
func (m *PPRGo) Params() []*autograd.Param { return []*autograd.Param{m.w1, m.w2} }

// Preprocess implements Model: the row-normalised top-k PPR matrix of every
// node.
func (m *PPRGo) Preprocess(adj, _ *tensor.CSR) (*Graph, error) {
	pi, err := graph.TopKPPR(adj, nil, m.alpha, m.eps, m.k, 0)
	if err != nil {
		return nil, fmt.Errorf("%s preprocessing: %w", m.name, err)
	}
	return &Graph{S: autograd.NewSparse(pi)}, nil
}

// Forward implements Model.
func (m *PPRGo) Forward(tp *autograd.Tape, g *Graph, x *autograd.Sparse, mode Mode) *autograd.Var {
	h := tp.ReLU(tp.SparseX(x, tp.Param(m.w1)))
	if mode.Train {
		h = tp.Dropout(h, m.dropout, mode.Seed)
	}
	h = tp.MatMul(h, tp.Param(m.w2))
	if m.agg != nil {
		return tp.Aggregate(m.agg, g.S, g.Vals, h)
	}
	return tp.SpMM(g.S, g.Vals, h)
}
