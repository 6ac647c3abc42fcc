package tensor

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// FlipEdges returns a copy of the symmetric adjacency adj with every
// undirected pair {u, v} in pairs toggled: removed (both directions) if the
// upper entry (min, max) is stored with a nonzero value, otherwise added in
// both directions with weight 1. Pairs may be given in either order. Self
// loops, out-of-range nodes and repeated pairs are errors. adj is not
// modified; the cost is O(nnz + p log p).
func FlipEdges(adj *CSR, pairs [][2]int) (*CSR, error) {
	if adj == nil {
		return nil, errors.New("flip edges: nil adjacency")
	}
	if adj.Rows != adj.Cols {
		return nil, fmt.Errorf("flip edges: adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	n := adj.Rows
	type edit struct {
		row, col int32
		add      bool
	}
	edits := make([]edit, 0, 2*len(pairs))
	norm := make([][2]int32, len(pairs))
	for i, p := range pairs {
		u, v := p[0], p[1]
		if u < 0 || v < 0 || u >= n || v >= n {
			return nil, fmt.Errorf("flip edges: pair %d (%d, %d) outside [0, %d)", i, u, v, n)
		}
		if u == v {
			return nil, fmt.Errorf("flip edges: pair %d (%d, %d) is a self loop", i, u, v)
		}
		norm[i] = [2]int32{int32(min(u, v)), int32(max(u, v))}
	}
	sorted := slices.Clone(norm)
	slices.SortFunc(sorted, func(a, b [2]int32) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return nil, fmt.Errorf("flip edges: pair (%d, %d) given more than once", sorted[i][0], sorted[i][1])
		}
	}
	for _, p := range sorted {
		u, v := p[0], p[1]
		k, ok := adj.Find(int(u), int(v))
		add := !ok || adj.Values[k] == 0
		edits = append(edits, edit{u, v, add}, edit{v, u, add})
	}
	slices.SortFunc(edits, func(a, b edit) int {
		if c := cmp.Compare(a.row, b.row); c != 0 {
			return c
		}
		return cmp.Compare(a.col, b.col)
	})
	out := &CSR{Rows: n, Cols: n, Indptr: make([]int, n+1),
		Indices: make([]int32, 0, adj.Nnz()+len(edits)), Values: make([]float32, 0, adj.Nnz()+len(edits))}
	e := 0
	for i := 0; i < n; i++ {
		k, hi := adj.Indptr[i], adj.Indptr[i+1]
		for k < hi || (e < len(edits) && int(edits[e].row) == i) {
			switch {
			case e < len(edits) && int(edits[e].row) == i && (k >= hi || edits[e].col <= adj.Indices[k]):
				ed := edits[e]
				e++
				stored := k < hi && adj.Indices[k] == ed.col
				if stored {
					k++
				}
				if ed.add {
					out.Indices = append(out.Indices, ed.col)
					out.Values = append(out.Values, 1)
				}
			default:
				out.Indices = append(out.Indices, adj.Indices[k])
				out.Values = append(out.Values, adj.Values[k])
				k++
			}
		}
		out.Indptr[i+1] = len(out.Indices)
	}
	return out, nil
}
