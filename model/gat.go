package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// GAT is the reference's graph attention network (sparse_smoothing
// models.py, PyG GATConv): GATConv(d → 8 heads × 8, concatenated) → ELU →
// dropout → GATConv(64 → C, one head), attention dropout 0.6, self loops
// added. Attention of node i over neighbour j:
// α_ij = softmax_j LeakyReLU_0.2(a_dstᵀ W x_i + a_srcᵀ W x_j).
type GAT struct {
	heads, perHead int
	dropout        float64
	w1, b1, w2, b2 *autograd.Param
	att1Src        []*autograd.Param
	att1Dst        []*autograd.Param
	att2Src        *autograd.Param
	att2Dst        *autograd.Param
}

func gatSpecs() []Spec {
	return []Spec{{Name: "gat", Description: "GAT (8 heads × 8 hidden, ELU, dropout 0.6)",
		Label: "Vanilla GAT", Order: 3,
		New: func(nFeat, nClass int, o Options) (Model, error) {
			heads := 8
			if o.Hidden%heads != 0 {
				return nil, fmt.Errorf("gat: hidden units %d not divisible by %d heads", o.Hidden, heads)
			}
			per := o.Hidden / heads
			rng := newRNG(o.Seed)
			m := &GAT{heads: heads, perHead: per, dropout: 0.6,
				w1: autograd.NewParam("conv1.weight", glorot(rng, nFeat, o.Hidden)),
				b1: autograd.NewParam("conv1.bias", tensor.NewDense(1, o.Hidden)),
				w2: autograd.NewParam("conv2.weight", glorot(rng, o.Hidden, nClass)),
				b2: autograd.NewParam("conv2.bias", tensor.NewDense(1, nClass)),
			}
			for h := range heads {
				m.att1Src = append(m.att1Src, autograd.NewParam(fmt.Sprintf("conv1.att_src.%d", h), attInit(rng, per, heads)))
				m.att1Dst = append(m.att1Dst, autograd.NewParam(fmt.Sprintf("conv1.att_dst.%d", h), attInit(rng, per, heads)))
			}
			m.att2Src = autograd.NewParam("conv2.att_src", attInit(rng, nClass, 1))
			m.att2Dst = autograd.NewParam("conv2.att_dst", attInit(rng, nClass, 1))
			return m, nil
		}}}
}

// attInit draws one head's attention vector (perHead×1) as PyG ≤ 1.5's
// GATConv, which sparse_smoothing's SparseGATConv builds on (it uses that
// version's GATConv.weight): a single att parameter of shape
// (1, heads, 2·perHead), Glorot-uniform over its last two dimensions, i.e.
// U(±√(6 / (heads + 2·perHead))), of which each head's source and target
// halves are the vectors here.
func attInit(rng *rand.Rand, perHead, heads int) *tensor.Dense {
	return uniformInit(rng, perHead, 1, math.Sqrt(6/float64(heads+2*perHead)))
}

// Name implements Model.
func (m *GAT) Name() string { return "gat" }

// Params implements Model.
func (m *GAT) Params() []*autograd.Param {
	ps := []*autograd.Param{m.w1, m.b1, m.w2, m.b2, m.att2Src, m.att2Dst}
	ps = append(ps, m.att1Src...)
	return append(ps, m.att1Dst...)
}

// Preprocess implements Model: the graph with remaining self loops, weights
// ignored (attention replaces them).
func (m *GAT) Preprocess(adj, x *tensor.CSR) (*Graph, error) {
	s, _ := graph.AddRemainingSelfLoops(adj, 1)
	return &Graph{S: autograd.NewSparse(s)}, nil
}

// vars returns the tape Vars of params.
func vars(tp *autograd.Tape, ps []*autograd.Param) []*autograd.Var {
	vs := make([]*autograd.Var, len(ps))
	for i, p := range ps {
		vs[i] = tp.Param(p)
	}
	return vs
}

// attend runs heads first..first+len(src)-1 of attention over g: rows of g
// aggregate their neighbours' h, with attention dropout in training (seed
// mode.Seed ^ (0xa77 + head) per head).
func (m *GAT) attend(tp *autograd.Tape, g *Graph, h *autograd.Var, src, dst []*autograd.Param, mode Mode, first int) *autograd.Var {
	var p float64
	var seeds []uint64
	if mode.Train {
		p = m.dropout
		for k := range src {
			seeds = append(seeds, mode.Seed^uint64(0xa77+first+k))
		}
	}
	return tp.GATAttention(g.S, h, vars(tp, src), vars(tp, dst), 0.2, p, seeds)
}

// Forward implements Model.
func (m *GAT) Forward(tp *autograd.Tape, g *Graph, x *autograd.Sparse, mode Mode) *autograd.Var {
	return m.forwardFrom(tp, g, xw1(tp, x, m.w1), mode)
}

// forwardFrom is Forward after the feature transform h = X·W₁.
func (m *GAT) forwardFrom(tp *autograd.Tape, g *Graph, h *autograd.Var, mode Mode) *autograd.Var {
	h = m.attend(tp, g, h, m.att1Src, m.att1Dst, mode, 0)
	var p float64
	if mode.Train {
		p = m.dropout
	}
	// AddBias → ELU → Dropout in one pass (same values as the chain).
	h = tp.BiasActDropout(h, tp.Param(m.b1), autograd.ActELU, p, mode.Seed)
	h = tp.MatMul(h, tp.Param(m.w2))
	out := m.attend(tp, g, h, []*autograd.Param{m.att2Src}, []*autograd.Param{m.att2Dst}, mode, m.heads)
	return tp.AddBias(out, tp.Param(m.b2))
}
