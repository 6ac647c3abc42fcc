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
	return addSelfLoops(a, fill, true)
}

// addSelfLoops is AddRemainingSelfLoops; src is nil unless withSrc.
func addSelfLoops(a *tensor.CSR, fill float32, withSrc bool) (out *tensor.CSR, src []int) {
	n := a.Rows
	has := make([]bool, n)
	added := 0
	for i := 0; i < n; i++ {
		_, has[i] = a.Find(i, i)
		if !has[i] {
			added++
		}
	}
	nnz := a.Nnz() + added
	out = &tensor.CSR{Rows: n, Cols: a.Cols, Indptr: make([]int, n+1),
		Indices: make([]int32, nnz), Values: make([]float32, nnz)}
	if withSrc {
		src = make([]int, nnz)
	}
	// Row by row: the entries before the diagonal, the added diagonal
	// entry (where the row has none), the entries after it.
	m := 0
	seg := func(lo, hi int) {
		copy(out.Indices[m:], a.Indices[lo:hi])
		copy(out.Values[m:], a.Values[lo:hi])
		if withSrc {
			for k := lo; k < hi; k++ {
				src[m+k-lo] = k
			}
		}
		m += hi - lo
	}
	for i := 0; i < n; i++ {
		lo, hi := a.Indptr[i], a.Indptr[i+1]
		if has[i] {
			seg(lo, hi)
		} else {
			cut := lo
			for cut < hi && int(a.Indices[cut]) < i {
				cut++
			}
			seg(lo, cut)
			out.Indices[m], out.Values[m] = int32(i), fill
			if withSrc {
				src[m] = -1
			}
			m++
			seg(cut, hi)
		}
		out.Indptr[i+1] = m
	}
	return out, src
}

// GCNNormValues computes the gcn_norm weights ŵ_rc = d_r^{-1/2} w_rc d_c^{-1/2}
// for the entries of a (self loops must already be present), where d is the
// COLUMN sum of a (PyG: deg = scatter_add(w, col)). Degrees that are zero
// give weight 0 (PyG masks inf to 0). It also returns d^{-1/2}.
func GCNNormValues(a *tensor.CSR) (vals []float32, dinv []float64) {
	return gcnNormValues(a, make([]float32, a.Nnz()))
}

// gcnNormValues is GCNNormValues writing into vals (which may be
// a.Values: every entry is read before it is written).
func gcnNormValues(a *tensor.CSR, vals []float32) ([]float32, []float64) {
	deg := a.ColSums()
	dinv := make([]float64, len(deg))
	for i, d := range deg {
		if d > 0 {
			dinv[i] = 1 / math.Sqrt(d)
		}
	}
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
	s, _ := addSelfLoops(a, 1, false)
	gcnNormValues(s, s.Values) // the copy's values are its own
	return s
}
