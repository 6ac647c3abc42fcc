package model

import (
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// APPNP is the reference's APPNP (sparse_smoothing models.py): a two-layer
// bias-free MLP, Linear(d→h) → ReLU → dropout → Linear(h→C), followed by K
// steps of personalised-PageRank propagation
// Z ← (1−α)·Ŵᵀ·Z + α·H (K = 10, α = 0.15, Ŵ = gcn_norm).
type APPNP struct {
	dropout, alpha float64
	k              int
	w1, w2         *autograd.Param
}

func appnpSpecs() []Spec {
	return []Spec{{Name: "appnp", Description: "APPNP (MLP + K=10 steps of PPR propagation, α=0.15)",
		Label: "Vanilla APPNP", Order: 2,
		New: func(nFeat, nClass int, o Options) (Model, error) {
			rng := newRNG(o.Seed)
			return &APPNP{dropout: o.Dropout, alpha: o.Alpha, k: 10,
				w1: autograd.NewParam("lin1.weight", glorot(rng, nFeat, o.Hidden)),
				w2: autograd.NewParam("lin2.weight", glorot(rng, o.Hidden, nClass)),
			}, nil
		}}}
}

// Name implements Model.
func (m *APPNP) Name() string { return "appnp" }

// Params implements Model.
func (m *APPNP) Params() []*autograd.Param { return []*autograd.Param{m.w1, m.w2} }

// Preprocess implements Model.
func (m *APPNP) Preprocess(adj, x *tensor.CSR) (*Graph, error) {
	return &Graph{S: autograd.NewSparse(graph.GCNNorm(adj))}, nil
}

// Forward implements Model.
func (m *APPNP) Forward(tp *autograd.Tape, g *Graph, x *autograd.Sparse, mode Mode) *autograd.Var {
	return m.propagate(tp, g, m.mlp(tp, x, mode))
}

// mlp is the two-layer MLP on the feature rows of x.
func (m *APPNP) mlp(tp *autograd.Tape, x *autograd.Sparse, mode Mode) *autograd.Var {
	h := tp.ReLU(xw1(tp, x, m.w1))
	if mode.Train {
		h = tp.Dropout(h, m.dropout, mode.Seed)
	}
	return tp.MatMul(h, tp.Param(m.w2))
}

// propagate runs the K steps of PPR propagation from the MLP's output h.
func (m *APPNP) propagate(tp *autograd.Tape, g *Graph, h *autograd.Var) *autograd.Var {
	z := h
	teleport := tp.Scale(h, float32(m.alpha))
	for range m.k {
		z = tp.Add(tp.Scale(tp.SpMMT(g.S, g.Vals, z), float32(1-m.alpha)), teleport)
	}
	return z
}
