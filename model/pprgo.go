package model

import (
	"fmt"
	"slices"

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
// Π). The preprocessing costs O(n·k) memory; nothing is n×n. It trains
// full batch like every other model (Forward) or, as the follow-up does,
// in mini-batches of target nodes (ForwardNodes: only the batch's top-k
// PPR neighbours go through the MLP).
type PPRGo struct {
	name       string
	alpha, eps float64
	k          int
	dropout    float64
	agg        autograd.Aggregator // nil: the PPR-weighted sum
	newAgg     func() (autograd.Aggregator, error)
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
				m.newAgg = func() (autograd.Aggregator, error) { return f(agg, o) }
			}
			return m, nil
		}
		return facts
	}
	return []Spec{
		mk("pprgo", "", "PPRGo (MLP, then the PPR-weighted sum over the top-k PPR neighbours; --k, α=0.15)",
			Spec{Label: "PPRGo", Order: 12, Uses: Uses{K: true}, MiniBatch: true, Differentiable: true}),
		mk("softmedian_pprgo", "soft_median", "Soft Median PPRGo (MLP, then the Soft Median over the top-k PPR neighbours; --temperature, --k)",
			Spec{Label: "Soft Median PPRGo", Order: 13, Uses: Uses{K: true, Temperature: true}, MiniBatch: true,
				Differentiable: true}),
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
	return PPRGoGraph(pi), nil
}

// PPRGoGraph is the graph PPRGo's Preprocess returns for the row-normalised
// top-k PPR matrix pi (graph.TopKPPR of every node): callers that computed
// or stored pi already use it instead of computing it again.
func PPRGoGraph(pi *tensor.CSR) *Graph { return &Graph{S: autograd.NewSparse(pi)} }

// Forward implements Model.
func (m *PPRGo) Forward(tp *autograd.Tape, g *Graph, x *autograd.Sparse, mode Mode) *autograd.Var {
	return m.propagate(tp, g.S, g.Vals, m.mlp(tp, x, mode))
}

// mlp is the two-layer MLP on the feature rows of x.
func (m *PPRGo) mlp(tp *autograd.Tape, x *autograd.Sparse, mode Mode) *autograd.Var {
	h := tp.ReLU(tp.SparseX(x, tp.Param(m.w1)))
	if mode.Train {
		h = tp.Dropout(h, m.dropout, mode.Seed)
	}
	return tp.MatMul(h, tp.Param(m.w2))
}

// propagate aggregates the rows of h over the rows of s (values vals).
func (m *PPRGo) propagate(tp *autograd.Tape, s *autograd.Sparse, vals, h *autograd.Var) *autograd.Var {
	if m.agg != nil {
		return tp.Aggregate(m.agg, s, vals, h)
	}
	return tp.SpMM(s, vals, h)
}

// Batched is a model that computes the logits of a set of target nodes
// without the others: the mini-batch training of train.Fit
// (Config.BatchSize) calls it once per batch, so a step costs O(batch)
// instead of O(n). Registry entries that implement it say so with
// Spec.MiniBatch.
type Batched interface {
	Model
	// ForwardNodes returns the len(nodes)×C logits of nodes (row i: node
	// nodes[i]). Only the parameters receive gradients.
	ForwardNodes(tp *autograd.Tape, g *Graph, x *autograd.Sparse, nodes []int, mode Mode) *autograd.Var
}

// ForwardNodes implements Batched, as the follow-up trains PPRGo: the rows
// of the top-k PPR matrix of the target nodes are taken, the union of their
// columns (the targets' influencers, ascending) goes through the MLP, and
// each target aggregates its influencers' rows, by the PPR-weighted sum or
// the robust aggregation. In inference mode row i equals row nodes[i] of
// Forward up to the rounding of the smaller matrix products; dropout masks
// are drawn per batch row instead of per node. g.Vals must be nil (edge
// weights as variables are a full-batch feature).
func (m *PPRGo) ForwardNodes(tp *autograd.Tape, g *Graph, x *autograd.Sparse, nodes []int, mode Mode) *autograd.Var {
	if g.Vals != nil {
		panic("model.PPRGo.ForwardNodes: edge-weight variables are not supported")
	}
	rows, cols := batchRows(g.S.A, nodes)
	// The influencer count varies from batch to batch, and a tape recycles
	// its buffers by shape: rounding it up to a multiple of batchPad (empty
	// feature rows, whose MLP output is 0 and which no target reads) keeps
	// the shapes few, so a training tape reuses its buffers instead of
	// keeping new ones for every batch.
	padded := (len(cols) + batchPad - 1) / batchPad * batchPad
	rows.Cols = padded
	h := m.mlp(tp, autograd.NewSparse(selectRows(x.A, cols, padded)), mode)
	return m.propagate(tp, autograd.NewSparse(rows), nil, h)
}

// batchPad is the multiple the influencer rows of a batch are padded to.
const batchPad = 1024

// batchRows returns the rows nodes of s as a len(nodes)×len(cols) matrix
// whose column j is column cols[j] of s, cols being the ascending union of
// the rows' columns (so each row keeps its column order).
func batchRows(s *tensor.CSR, nodes []int) (*tensor.CSR, []int) {
	nnz := 0
	for _, v := range nodes {
		lo, hi := s.RowRange(v)
		nnz += hi - lo
	}
	cols := make([]int, 0, nnz)
	for _, v := range nodes {
		lo, hi := s.RowRange(v)
		for _, c := range s.Indices[lo:hi] {
			cols = append(cols, int(c))
		}
	}
	slices.Sort(cols)
	cols = slices.Compact(cols)
	out := &tensor.CSR{Rows: len(nodes), Cols: len(cols), Indptr: make([]int, len(nodes)+1),
		Indices: make([]int32, 0, nnz), Values: make([]float32, 0, nnz)}
	for i, v := range nodes {
		lo, hi := s.RowRange(v)
		for e := lo; e < hi; e++ {
			j, _ := slices.BinarySearch(cols, int(s.Indices[e]))
			out.Indices = append(out.Indices, int32(j))
			out.Values = append(out.Values, s.Values[e])
		}
		out.Indptr[i+1] = len(out.Indices)
	}
	return out, cols
}

// selectRows returns the rows idx of a (in that order) followed by empty
// rows up to rows in all, as a new CSR.
func selectRows(a *tensor.CSR, idx []int, rows int) *tensor.CSR {
	nnz := 0
	for _, v := range idx {
		lo, hi := a.RowRange(v)
		nnz += hi - lo
	}
	out := &tensor.CSR{Rows: rows, Cols: a.Cols, Indptr: make([]int, rows+1),
		Indices: make([]int32, 0, nnz), Values: make([]float32, 0, nnz)}
	for i, v := range idx {
		lo, hi := a.RowRange(v)
		out.Indices = append(out.Indices, a.Indices[lo:hi]...)
		out.Values = append(out.Values, a.Values[lo:hi]...)
		out.Indptr[i+1] = len(out.Indices)
	}
	for i := len(idx) + 1; i <= rows; i++ {
		out.Indptr[i] = len(out.Indices)
	}
	return out
}

// PreprocessNodes implements NodePreprocessor: the rows of nodes of the
// top-k PPR matrix, one push per node (graph.TopKPPR with a node set; each
// row is the same bits as the node's row of Preprocess).
func (m *PPRGo) PreprocessNodes(adj, _ *tensor.CSR, nodes []int) (*Graph, error) {
	pi, err := graph.TopKPPR(adj, nodes, m.alpha, m.eps, m.k, 1)
	if err != nil {
		return nil, fmt.Errorf("%s preprocessing: %w", m.name, err)
	}
	return PPRGoGraph(pi), nil
}

// NodePreprocessor is a Batched model whose preprocessed rows of a few
// nodes need no other rows (PPRGo: a push from each node), so its logits at
// a target of a perturbed graph cost that target's preprocessing, not the
// whole graph's.
type NodePreprocessor interface {
	Batched
	// PreprocessNodes returns the graph whose row r is row nodes[r] of
	// Preprocess(adj, x); ForwardNodes on it with the nodes 0, 1, ...
	// gives their logits.
	PreprocessNodes(adj, x *tensor.CSR, nodes []int) (*Graph, error)
}

// PPRGoParts are what a local attack on a PPRGo model reads
// (attack/engine.PPRGo): the preprocessing's parameters, the MLP's weights
// (the model's own tensors: read them, do not change them) and a
// constructor of the model's robust aggregation.
type PPRGoParts struct {
	Alpha, Eps float64
	K          int
	// W1 (features × hidden) and W2 (hidden × classes): logits of node i
	// aggregate relu(x_i·W1)·W2 over its top-k PPR row.
	W1, W2 *tensor.Dense
	// NewAggregator returns a new instance of the aggregation (an
	// aggregator keeps buffers: one per goroutine); nil for pprgo's
	// PPR-weighted sum.
	NewAggregator func() (autograd.Aggregator, error)
}

// PPRGoParams returns the parts of a PPRGo model (pprgo, softmedian_pprgo);
// ok is false for any other model.
func PPRGoParams(m Model) (PPRGoParts, bool) {
	p, ok := m.(*PPRGo)
	if !ok {
		return PPRGoParts{}, false
	}
	return PPRGoParts{Alpha: p.alpha, Eps: p.eps, K: p.k, W1: p.w1.Value, W2: p.w2.Value, NewAggregator: p.newAgg}, true
}
