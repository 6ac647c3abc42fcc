package importer

import (
	"fmt"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// Input is a graph as read from a user's files, before standardisation.
type Input struct {
	// Nodes is the number of nodes (rows of the features and labels).
	Nodes    int
	Edges    *Edges
	Features *tensor.CSR // nil: none (identity features at load)
	Labels   []int64
	// Split is the given split (node ids of the input), nil if none.
	Split *[3][]int
	// KeepAll keeps every node (an OGB graph) instead of the largest
	// connected component, unless the options say otherwise.
	KeepAll bool
	// Sources names the files read.
	Sources []string
}

// ReadPyG reads a PyG-style .npz as a PyG user writes it with np.savez:
// edge_index [2, E] (integers), x [N, F] (numbers), y [N] (or [N, 1]),
// optionally edge_weight [E] and train_mask, val_mask, test_mask (boolean
// [N], or node ids).
func ReadPyG(a *npz.Archive) (*Input, error) {
	name := a.Path
	for _, k := range []string{"edge_index", "y"} {
		if !a.Has(k) {
			return nil, &InputError{File: name, Msg: fmt.Sprintf("no %q array (keys: %v)", k, a.Keys()),
				Fix: "np.savez(path, edge_index=data.edge_index.numpy(), x=data.x.numpy(), y=data.y.numpy(), ...)"}
		}
	}
	ya, err := a.Array("y")
	if err != nil {
		return nil, err
	}
	y, err := ArrayLabels(name+": y", ya)
	if err != nil {
		return nil, err
	}
	in := &Input{Nodes: len(y), Labels: y, Sources: []string{name}}
	if a.Has("x") {
		xa, err := a.Array("x")
		if err != nil {
			return nil, err
		}
		if in.Features, err = DenseFeatures(name+": x", xa); err != nil {
			return nil, err
		}
		if in.Features.Rows != in.Nodes {
			return nil, &InputError{File: name, Msg: fmt.Sprintf("x has %d rows but y %d labels", in.Features.Rows, in.Nodes),
				Fix: "x and y hold one row per node"}
		}
	}
	ei, err := a.Array("edge_index")
	if err != nil {
		return nil, err
	}
	if len(ei.Shape) != 2 || ei.Shape[0] != 2 {
		return nil, &InputError{File: name, Where: "edge_index", Msg: fmt.Sprintf("shape %v", ei.Shape), Fix: "edge_index is [2, E] (PyG's layout)"}
	}
	if ei.Kind() == 'f' || ei.Kind() == 'b' {
		return nil, &InputError{File: name, Where: "edge_index", Msg: "not an integer array", Fix: "edge_index holds integer node ids"}
	}
	idx, err := ei.Int64()
	if err != nil {
		return nil, &InputError{File: name, Where: "edge_index", Msg: err.Error(), Fix: fixNodeID}
	}
	e := ei.Shape[1]
	var w []float64
	if a.Has("edge_weight") {
		wa, err := a.Array("edge_weight")
		if err != nil {
			return nil, err
		}
		if w = wa.Float64(); len(wa.Shape) != 1 || len(w) != e {
			return nil, &InputError{File: name, Where: "edge_weight", Msg: fmt.Sprintf("shape %v for %d edges", wa.Shape, e), Fix: "edge_weight is [E], one weight per column of edge_index"}
		}
	}
	in.Edges = &Edges{}
	for k := range e {
		var wk float64
		if w != nil {
			wk = w[k]
		}
		if err := in.Edges.add(name, 0, fmt.Sprintf("edge_index[:, %d]", k), idx[k], idx[e+k], wk, w != nil, in.Nodes); err != nil {
			return nil, err
		}
	}
	masks := []string{"train_mask", "val_mask", "test_mask"}
	n := 0
	for _, m := range masks {
		if a.Has(m) {
			n++
		}
	}
	if n > 0 && n < 3 {
		return nil, &InputError{File: name, Msg: "a split needs train_mask, val_mask and test_mask", Fix: "save all three masks, or none (a random split per seed)"}
	}
	if n == 3 {
		in.Split = &[3][]int{}
		for i, m := range masks {
			arr, err := a.Array(m)
			if err != nil {
				return nil, err
			}
			if in.Split[i], err = ArraySplitPart(name+": "+m, arr, in.Nodes); err != nil {
				return nil, err
			}
		}
	}
	return in, nil
}
