package aggregate

import (
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// KMedoid is the weighted Medoid in the top-k neighbourhood (reference
// weighted_medoid_k_neighborhood): out_v = (Σ_j A_vj) · x_{j*} with
// j* = argmin_a Σ_b w_b ‖x_{j_a} − x_{j_b}‖ over the top-k entries (first
// minimum in column order). The argmin is a constant of the backward pass.
type KMedoid struct {
	k  int
	st struct {
		a      *tensor.CSR
		x, out *tensor.Dense
		rowSum []float64
		arg    []int // entry position of the medoid per row (−1: empty row)
		g      edgeGrads
	}
}

// Name implements Aggregator.
func (m *KMedoid) Name() string {
	if m.k == math.MaxInt32 {
		return "medoid"
	}
	return "k_medoid"
}

// Forward implements Aggregator.
func (m *KMedoid) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	checkShapes("KMedoid", a, x, out)
	st := &m.st
	st.a, st.x, st.out = a, x, out
	st.rowSum = rowSums(a, st.rowSum)
	st.arg = grow(st.arg, a.Rows)
	tensor.ParallelChunks(a.Rows, 16, func(lo, hi int) {
		var sel []int
		var ws workspace
		for r := lo; r < hi; r++ {
			sel = selectTopK(a, r, m.k, sel[:0])
			o := out.Row(r)
			clear(o)
			st.arg[r] = -1
			if len(sel) == 0 {
				continue
			}
			nk := len(sel)
			dist := ws.distances(sel, a, x)
			best, bestC := 0, math.Inf(1)
			for i := 0; i < nk; i++ {
				var c float64
				for j, pj := range sel {
					c += float64(a.Values[pj]) * float64(dist[i*nk+j])
				}
				if c < bestC {
					best, bestC = i, c
				}
			}
			st.arg[r] = sel[best]
			tensor.Axpy(o, x.Row(int(a.Indices[sel[best]])), float32(st.rowSum[r]))
		}
	})
	return st
}

// Backward implements Aggregator.
func (m *KMedoid) Backward(_ any, gradOut, gradX *tensor.Dense, gradVals []float32) {
	st := &m.st
	a, x := st.a, st.x
	d := x.Cols
	if gradX != nil {
		st.g.reset(a, d)
	}
	tensor.Parallel(a.Rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			if gradX != nil {
				st.g.clearRow(a, r, d)
			}
			p := st.arg[r]
			if p < 0 {
				continue
			}
			g := gradOut.Row(r)
			if gradVals != nil {
				gy := tensor.Dot(g, x.Row(int(a.Indices[p])))
				for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
					gradVals[k] += gy
				}
			}
			if gradX != nil {
				tensor.Axpy(st.g.row(p, d), g, float32(st.rowSum[r]))
			}
		}
	})
	if gradX != nil {
		st.g.reduce(gradX)
	}
}
