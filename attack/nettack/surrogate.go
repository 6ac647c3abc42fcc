package nettack

import (
	"context"
	"fmt"
	"github.com/rgnn/rgnn/data"
	"math/rand/v2"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// SurrogateOptions configure the linearised GCN; zero values mean the
// Nettack/DeepRobust defaults.
type SurrogateOptions struct {
	Hidden      int     // 16
	Dropout     float64 // 0.5 on the hidden layer
	LR          float64 // 0.01
	WeightDecay float64 // 5e-4
	Patience    int     // 100 (early stopping on the validation loss)
	MaxEpochs   int     // 3000
	Seed        uint64
}

func (o SurrogateOptions) withDefaults() SurrogateOptions {
	if o.Hidden == 0 {
		o.Hidden = 16
	}
	if o.Dropout == 0 {
		o.Dropout = 0.5
	}
	if o.LR == 0 {
		o.LR = 0.01
	}
	if o.WeightDecay == 0 {
		o.WeightDecay = 5e-4
	}
	if o.Patience == 0 {
		o.Patience = 100
	}
	if o.MaxEpochs == 0 {
		o.MaxEpochs = 3000
	}
	return o
}

// Surrogate is the trained linearised GCN Z = Â²·X·W1·W2 (no bias, no
// nonlinearity); XW = X·W1·W2 is all the structure attack needs, feature
// flips also need W = W1·W2 and the (binary) features X.
type Surrogate struct {
	XW *tensor.Dense // n×C
	W  *tensor.Dense // D×C (nil: no feature flips)
	X  *tensor.CSR   // n×D, the features XW was computed from
}

// linearGCN is the surrogate as a model.Model so train.Fit can train it.
type linearGCN struct {
	dropout float64
	w1, w2  *autograd.Param
}

func (m *linearGCN) Name() string              { return "linear_gcn" }
func (m *linearGCN) Params() []*autograd.Param { return []*autograd.Param{m.w1, m.w2} }
func (m *linearGCN) Preprocess(adj, _ *tensor.CSR) (*model.Graph, error) {
	return &model.Graph{S: autograd.NewSparse(graph.GCNNorm(adj))}, nil
}
func (m *linearGCN) Forward(tp *autograd.Tape, g *model.Graph, x *autograd.Sparse, mode model.Mode) *autograd.Var {
	h := tp.SpMMT(g.S, g.Vals, tp.SparseX(x, tp.Param(m.w1)))
	if mode.Train {
		h = tp.Dropout(h, m.dropout, mode.Seed)
	}
	return tp.SpMMT(g.S, g.Vals, tp.MatMul(h, tp.Param(m.w2)))
}

func glorot(rng *rand.Rand, rows, cols int) *tensor.Dense {
	d := tensor.NewDense(rows, cols)
	a := float32(sqrt(6 / float64(rows+cols)))
	for i := range d.Data {
		d.Data[i] = (2*float32(rng.Float64()) - 1) * a
	}
	return d
}

// TrainSurrogate trains the linearised GCN on the clean graph with the
// labels of trainIdx, early-stopping on valIdx, and returns XW.
func TrainSurrogate(ctx context.Context, adj, x *tensor.CSR, labels []int32, numClasses int, trainIdx, valIdx []int, o SurrogateOptions) (*Surrogate, error) {
	if err := checkGraph(adj); err != nil {
		return nil, err
	}
	if x == nil || x.Rows != adj.Rows {
		return nil, fmt.Errorf("nettack surrogate: features must have %d rows", adj.Rows)
	}
	if len(labels) != adj.Rows {
		return nil, fmt.Errorf("nettack surrogate: %d labels for %d nodes", len(labels), adj.Rows)
	}
	o = o.withDefaults()
	rng := rand.New(rand.NewPCG(o.Seed, 0x6e657474))
	m := &linearGCN{dropout: o.Dropout,
		w1: autograd.NewParam("w1", glorot(rng, x.Cols, o.Hidden)),
		w2: autograd.NewParam("w2", glorot(rng, o.Hidden, numClasses))}
	g, _ := m.Preprocess(adj, x)
	xs := autograd.NewSparse(x)
	_, err := train.Fit(ctx, m, g, &data.Problem{X: xs, Labels: labels, Train: trainIdx, Val: valIdx},
		train.Config{LR: o.LR, WeightDecay: o.WeightDecay, Patience: o.Patience, MaxEpochs: o.MaxEpochs, Seed: o.Seed})
	if err != nil {
		return nil, fmt.Errorf("nettack surrogate: %w", err)
	}
	tp := autograd.NoGrad()
	xw := tp.MatMul(tp.SparseX(xs, tp.Param(m.w1)), tp.Param(m.w2)).Value.Clone()
	w := tp.MatMul(tp.Param(m.w1), tp.Param(m.w2)).Value.Clone()
	return &Surrogate{XW: xw, W: w, X: x}, nil
}

// Logits returns the surrogate's logits Â²·XW on adj (for tests and target
// selection).
func (s *Surrogate) Logits(adj *tensor.CSR) *tensor.Dense {
	a := autograd.NewSparse(graph.GCNNorm(adj))
	tp := autograd.NoGrad()
	h := tp.SpMMT(a, nil, tp.Const(s.XW))
	return tp.SpMMT(a, nil, h).Value
}
