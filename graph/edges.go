package graph

import "github.com/rgnn/rgnn/tensor"

// FlipEdges returns a copy of the symmetric adjacency adj with every
// undirected pair {u, v} in pairs toggled (tensor.FlipEdges, which package
// data uses too): removed (both directions) if the upper entry (min, max)
// is stored with a nonzero value, otherwise added in both directions with
// weight 1. Self loops, out-of-range nodes and repeated pairs are errors;
// adj is not modified.
func FlipEdges(adj *tensor.CSR, pairs [][2]int) (*tensor.CSR, error) {
	return tensor.FlipEdges(adj, pairs)
}

// UpperTriangleEdges lists the stored nonzero entries (u, v) with u < v in
// row-major order: the undirected edges of a symmetric adjacency.
func UpperTriangleEdges(adj *tensor.CSR) [][2]int {
	var out [][2]int
	for u := 0; u < adj.Rows; u++ {
		lo, hi := adj.Indptr[u], adj.Indptr[u+1]
		for k := lo; k < hi; k++ {
			if v := int(adj.Indices[k]); v > u && adj.Values[k] != 0 {
				out = append(out, [2]int{u, v})
			}
		}
	}
	return out
}

// Degrees returns, per row, the number of stored nonzero entries off the
// diagonal (the node degree of an unweighted graph; self loops do not
// count). Weighted degrees are adj.RowSums().
func Degrees(adj *tensor.CSR) []int {
	d := make([]int, adj.Rows)
	for u := range d {
		for k := adj.Indptr[u]; k < adj.Indptr[u+1]; k++ {
			if int(adj.Indices[k]) != u && adj.Values[k] != 0 {
				d[u]++
			}
		}
	}
	return d
}
