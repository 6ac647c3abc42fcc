package data

import (
	"fmt"
	"slices"

	"github.com/rgnn/rgnn/nprand"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// Split reproduces the reference's split (rgnn/data.py: split): with numpy's
// legacy RandomState seeded by seed, per class in order a permutation of its
// nodes gives nPerClass training and nPerClass validation nodes; the
// training and validation lists are then permuted; the remaining nodes are
// the (sorted) test set.
func Split(labels []int32, numClasses, nPerClass int, seed uint32) (train, val, test []int, err error) {
	if nPerClass < 1 {
		return nil, nil, nil, fmt.Errorf("split: %d nodes per class", nPerClass)
	}
	r := nprand.New(seed)
	byClass := make([][]int, numClasses)
	for i, y := range labels {
		if int(y) >= numClasses || y < 0 {
			return nil, nil, nil, fmt.Errorf("split: label %d of node %d outside %d classes", y, i, numClasses)
		}
		byClass[y] = append(byClass[y], i)
	}
	for c, nodes := range byClass {
		if len(nodes) < 2*nPerClass {
			return nil, nil, nil, fmt.Errorf("split: class %d has %d nodes, fewer than 2×%d", c, len(nodes), nPerClass)
		}
		perm := r.Permutation(nodes)
		train = append(train, perm[:nPerClass]...)
		val = append(val, perm[nPerClass:2*nPerClass]...)
	}
	train = r.Permutation(train)
	val = r.Permutation(val)
	used := make([]bool, len(labels))
	for _, v := range slices.Concat(train, val) {
		used[v] = true
	}
	for i, u := range used {
		if !u {
			test = append(test, i)
		}
	}
	return train, val, test, nil
}

// LoadPerturbedAdj reads a perturbed adjacency in the reference attack
// format (edge_index [2, E], edge_weight [E], shape [2]) for a graph of n
// nodes, as a symmetric unweighted CSR without self loops.
func LoadPerturbedAdj(path string, n int) (*tensor.CSR, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	ei, shape, err := a.Int64("edge_index")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[0] != 2 {
		return nil, fmt.Errorf("%s: edge_index has shape %v, want [2, E]", path, shape)
	}
	e := shape[1]
	var w []float32
	if a.Has("edge_weight") {
		if w, _, err = a.Float32("edge_weight"); err != nil {
			return nil, err
		}
		if len(w) != e {
			return nil, fmt.Errorf("%s: %d edge weights for %d edges", path, len(w), e)
		}
		// A negative weight is not an edge to add: refused, as in dataset files.
		if err := CheckWeights(path, "edge_weight", w, func(k int) string {
			return fmt.Sprintf("edge %d (%d, %d)", k, ei[k], ei[e+k])
		}); err != nil {
			return nil, err
		}
	}
	if a.Has("shape") {
		s, _, err := a.Int64("shape")
		if err != nil {
			return nil, err
		}
		if len(s) != 2 || s[0] != int64(n) || s[1] != int64(n) {
			return nil, fmt.Errorf("%s: graph shape %v does not match the dataset's %d nodes", path, s, n)
		}
	}
	es := make([]tensor.Entry, 0, 2*e)
	for k := 0; k < e; k++ {
		u, v := ei[k], ei[e+k]
		if u < 0 || v < 0 || u >= int64(n) || v >= int64(n) {
			return nil, fmt.Errorf("%s: edge (%d, %d) outside %d nodes", path, u, v, n)
		}
		if u == v || (w != nil && w[k] == 0) {
			continue
		}
		es = append(es, tensor.Entry{Row: int32(u), Col: int32(v), Val: 1}, tensor.Entry{Row: int32(v), Col: int32(u), Val: 1})
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range adj.Values {
		adj.Values[i] = 1
	}
	return adj, nil
}

// SavePerturbedAdj writes adj in the reference attack format (edge_index
// with both directions of every edge, edge_weight, shape), atomically,
// followed by any extra entries (e.g. a targeted attack's feature_flips).
func SavePerturbedAdj(path string, adj *tensor.CSR, extra ...npz.Entry) error {
	e := adj.Nnz()
	ei := make([]int64, 2*e)
	w := make([]float32, e)
	for r := 0; r < adj.Rows; r++ {
		for k := adj.Indptr[r]; k < adj.Indptr[r+1]; k++ {
			ei[k], ei[e+k], w[k] = int64(r), int64(adj.Indices[k]), adj.Values[k]
		}
	}
	entries := append([]npz.Entry{npz.I64("edge_index", []int{2, e}, ei), npz.F32("edge_weight", []int{e}, w),
		npz.I64("shape", []int{2}, []int64{int64(adj.Rows), int64(adj.Cols)})}, extra...)
	return npz.WriteFile(path, entries...)
}

// FixedSplit is a dataset's official split: node ids (rows of the graph) of
// the training, validation and test sets, each in the order the dataset
// lists them.
type FixedSplit struct {
	Name             string // the split's name in the dataset, e.g. "time"
	Train, Val, Test []int
}

// SplitFor returns the split a graph is evaluated on: copies of its fixed
// split when it has one (OGB datasets; the seed is then ignored), else
// exactly Split(g.Labels, g.NumClasses, 20, seed), the paper's 20 training
// and 20 validation nodes per class.
func SplitFor(g *Graph, seed uint32) (train, val, test []int, err error) {
	if g.Split == nil {
		train, val, test, err = Split(g.Labels, g.NumClasses, 20, seed)
		if err != nil && g.RawNodes > g.NumNodes() {
			err = fmt.Errorf("%w (in the largest connected component, %d of the file's %d nodes)", err, g.NumNodes(), g.RawNodes)
		}
		return train, val, test, err
	}
	n := g.NumNodes()
	for _, part := range [][]int{g.Split.Train, g.Split.Val, g.Split.Test} {
		for _, v := range part {
			if v < 0 || v >= n {
				return nil, nil, nil, fmt.Errorf("split %q of %s: node %d outside %d nodes", g.Split.Name, g.Name, v, n)
			}
		}
	}
	return slices.Clone(g.Split.Train), slices.Clone(g.Split.Val), slices.Clone(g.Split.Test), nil
}
