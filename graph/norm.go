package graph

import (
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// AddRemainingSelfLoops returns a copy of a (square) with a self loop of
// weight fill on every node that has none; existing self loops keep their
// weight (PyG add_remaining_self_loops). src[k] is the entry of a that entry
// k of the result copies, or -1 for an added loop, so gradients with respect
// to the result's values can be routed back to a's values.
func AddRemainingSelfLoops(a *tensor.CSR, fill float32) (out *tensor.CSR, src []int) {
	n := a.Rows
	added := 0
	for i := 0; i < n; i++ {
		if _, ok := a.Find(i, i); !ok {
			added++
		}
	}
	out = &tensor.CSR{Rows: n, Cols: a.Cols, Indptr: make([]int, n+1),
		Indices: make([]int32, 0, a.Nnz()+added), Values: make([]float32, 0, a.Nnz()+added)}
	src = make([]int, 0, a.Nnz()+added)
	for i := 0; i < n; i++ {
		lo, hi := a.Indptr[i], a.Indptr[i+1]
		_, has := a.Find(i, i)
		placed := has
		for k := lo; k < hi; k++ {
			c := a.Indices[k]
			if !placed && int(c) > i {
				out.Indices = append(out.Indices, int32(i))
				out.Values = append(out.Values, fill)
				src = append(src, -1)
				placed = true
			}
			out.Indices = append(out.Indices, c)
			out.Values = append(out.Values, a.Values[k])
			src = append(src, k)
		}
		if !placed {
			out.Indices = append(out.Indices, int32(i))
			out.Values = append(out.Values, fill)
			src = append(src, -1)
		}
		out.Indptr[i+1] = len(out.Indices)
	}
	return out, src
}

// GCNNormValues computes the gcn_norm weights ŵ_rc = d_r^{-1/2} w_rc d_c^{-1/2}
// for the entries of a (self loops must already be present), where d is the
// COLUMN sum of a (PyG: deg = scatter_add(w, col)). Degrees that are zero
// give weight 0 (PyG masks inf to 0). It also returns d^{-1/2}.
func GCNNormValues(a *tensor.CSR) (vals []float32, dinv []float64) {
	deg := a.ColSums()
	dinv = make([]float64, len(deg))
	for i, d := range deg {
		if d > 0 {
			dinv[i] = 1 / math.Sqrt(d)
		}
	}
	vals = make([]float32, a.Nnz())
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			vals[k] = float32(dinv[r] * float64(a.Values[k]) * dinv[a.Indices[k]])
		}
	}
	return vals, dinv
}

// GCNNorm is PyG's gcn_norm with add_self_loops=True, improved=False:
// remaining self loops of weight 1, column degrees, symmetric scaling.
func GCNNorm(a *tensor.CSR) *tensor.CSR {
	s, _ := AddRemainingSelfLoops(a, 1)
	vals, _ := GCNNormValues(s)
	s.Values = vals
	return s
}
