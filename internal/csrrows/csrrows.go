// Package csrrows copies runs of rows between compressed-row arrays (row
// ends indptr, column indices, values), for the graphs built from a
// previous version with a few rows changed (graph.DynamicPPR's push graph,
// rgnn serve's adjacency).
package csrrows

// Append appends rows lo … hi−1 of the compressed rows (indptr, indices,
// values) to dstIndices and dstValues, writes their ends as they land there
// into dstIndptr[lo+1 … hi] and returns the grown slices. Nothing happens
// when lo ≥ hi.
func Append[V any](dstIndptr []int, dstIndices []int32, dstValues []V, indptr []int, indices []int32, values []V, lo, hi int) ([]int32, []V) {
	if lo >= hi {
		return dstIndices, dstValues
	}
	a, b := indptr[lo], indptr[hi]
	shift := len(dstIndices) - a
	dstIndices = append(dstIndices, indices[a:b]...)
	dstValues = append(dstValues, values[a:b]...)
	for v := lo; v < hi; v++ {
		dstIndptr[v+1] = indptr[v+1] + shift
	}
	return dstIndices, dstValues
}

// AppendIndices is Append without values (for rows whose values are kept
// elsewhere).
func AppendIndices(dstIndptr []int, dstIndices []int32, indptr []int, indices []int32, lo, hi int) []int32 {
	if lo >= hi {
		return dstIndices
	}
	a, b := indptr[lo], indptr[hi]
	shift := len(dstIndices) - a
	dstIndices = append(dstIndices, indices[a:b]...)
	for v := lo; v < hi; v++ {
		dstIndptr[v+1] = indptr[v+1] + shift
	}
	return dstIndices
}
