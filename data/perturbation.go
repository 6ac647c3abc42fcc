package data

import (
	"fmt"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// CompactFrom is the number of nodes from which SavePerturbedGraph writes
// the compact form: the lists of added and removed edges instead of every
// edge (a Products-sized graph has 124M directed edges; an attack changes
// a few thousand).
const CompactFrom = 100_000

// SavePerturbedGraph writes the perturbed adjacency of the clean graph:
// in the reference attack format (SavePerturbedAdj) below CompactFrom
// nodes, else in the compact form — `added` and `removed` (k×2 int64,
// each undirected edge once as (u, v) with u < v) and `shape` — which
// LoadPerturbedGraph reads back against the clean graph. extra entries
// (feature flips) follow in both forms.
func SavePerturbedGraph(path string, clean, perturbed *tensor.CSR, extra ...npz.Entry) error {
	if clean.Rows < CompactFrom {
		return SavePerturbedAdj(path, perturbed, extra...)
	}
	return SavePerturbation(path, clean, perturbed, extra...)
}

// SavePerturbation writes the compact form of perturbed against clean
// (see SavePerturbedGraph), atomically.
func SavePerturbation(path string, clean, perturbed *tensor.CSR, extra ...npz.Entry) error {
	var added, removed []int64
	err := DiffEdges(clean, perturbed, func(u, v int32, add bool) {
		if add {
			added = append(added, int64(u), int64(v))
		} else {
			removed = append(removed, int64(u), int64(v))
		}
	})
	if err != nil {
		return fmt.Errorf("perturbation %s: %w", path, err)
	}
	entries := append([]npz.Entry{npz.I64("added", []int{len(added) / 2, 2}, added),
		npz.I64("removed", []int{len(removed) / 2, 2}, removed),
		npz.I64("shape", []int{2}, []int64{int64(clean.Rows), int64(clean.Cols)})}, extra...)
	return npz.WriteFile(path, entries...)
}

// DiffEdges calls fn for every pair u < v that is an edge (a nonzero entry)
// of exactly one of clean and perturbed (CSR, the same shape), in row-major
// order; added says that it is perturbed's.
func DiffEdges(clean, perturbed *tensor.CSR, fn func(u, v int32, added bool)) error {
	if clean.Rows != perturbed.Rows || clean.Cols != perturbed.Cols {
		return fmt.Errorf("clean graph %d×%d, perturbed %d×%d", clean.Rows, clean.Cols, perturbed.Rows, perturbed.Cols)
	}
	for u := 0; u < clean.Rows; u++ {
		a, b := upperRow(clean, u), upperRow(perturbed, u)
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			switch {
			case j == len(b) || i < len(a) && a[i] < b[j]:
				fn(int32(u), a[i], false)
				i++
			case i == len(a) || b[j] < a[i]:
				fn(int32(u), b[j], true)
				j++
			default:
				i++
				j++
			}
		}
	}
	return nil
}

// upperRow lists row u's nonzero columns above the diagonal, ascending.
func upperRow(a *tensor.CSR, u int) []int32 {
	lo, hi := a.RowRange(u)
	var out []int32
	for k := lo; k < hi; k++ {
		if v := a.Indices[k]; int(v) > u && a.Values[k] != 0 {
			out = append(out, v)
		}
	}
	return out
}

// LoadPerturbedGraph reads a perturbed graph of clean in either form: the
// reference attack format (LoadPerturbedAdj) or the compact one (added and
// removed edges, SavePerturbation), which is applied to clean. Every added
// edge must be absent from clean and every removed one present.
func LoadPerturbedGraph(path string, clean *tensor.CSR) (*tensor.CSR, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	if !a.Has("added") && !a.Has("removed") {
		return LoadPerturbedAdj(path, clean.Rows)
	}
	n := clean.Rows
	if a.Has("shape") {
		s, _, err := a.Int64("shape")
		if err != nil {
			return nil, err
		}
		if len(s) != 2 || s[0] != int64(n) || s[1] != int64(n) {
			return nil, fmt.Errorf("%s: graph shape %v does not match the dataset's %d nodes", path, s, n)
		}
	}
	var pairs [][2]int
	for _, key := range []string{"added", "removed"} {
		if !a.Has(key) {
			continue
		}
		v, shape, err := a.Int64(key)
		if err != nil {
			return nil, err
		}
		if len(shape) != 2 || shape[1] != 2 {
			return nil, fmt.Errorf("%s: %s has shape %v, want [k, 2]", path, key, shape)
		}
		for i := 0; i < len(v); i += 2 {
			u, w := v[i], v[i+1]
			if u < 0 || w < 0 || u >= int64(n) || w >= int64(n) || u == w {
				return nil, fmt.Errorf("%s: %s edge (%d, %d) is not a pair of distinct nodes of %d", path, key, u, w, n)
			}
			_, present := clean.Find(int(u), int(w))
			if present != (key == "removed") {
				state := "already in"
				if key == "removed" {
					state = "not in"
				}
				return nil, fmt.Errorf("%s: %s edge (%d, %d) is %s the clean graph", path, key, u, w, state)
			}
			pairs = append(pairs, [2]int{int(u), int(w)})
		}
	}
	adj, err := tensor.FlipEdges(clean, pairs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return adj, nil
}
