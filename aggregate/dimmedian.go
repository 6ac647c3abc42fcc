package aggregate

import (
	"math"
	"slices"

	"github.com/rgnn/rgnn/tensor"
)

// DimMedian is the weighted dimension-wise median (reference
// weighted_dimwise_median): for row v and dimension c, the neighbours sorted
// by x_{·,c} (ties: column ascending), the first whose cumulative weight
// reaches half the row's total weight; out_vc = (Σ_j A_vj) · x_{sel,c}. The
// selected indices are constants of the backward pass.
type DimMedian struct {
	st struct {
		a      *tensor.CSR
		x, out *tensor.Dense
		rowSum []float64
		pick   []int32 // per (row, dim): entry position of the median (−1: empty)
		g      edgeGrads
	}
}

// Name implements Aggregator.
func (m *DimMedian) Name() string { return "dimmedian" }

// medianPicks fills pick (d entries) with the weighted median entry of row r
// per dimension. Each (value, entry) pair is packed into one uint64 whose
// order is the value's order with ties broken by entry position (column
// ascending), so a plain integer sort does the work.
func medianPicks(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32, keys []uint64) []uint64 {
	lo, hi := a.Indptr[r], a.Indptr[r+1]
	for c := range pick {
		pick[c] = -1
	}
	if hi == lo {
		return keys
	}
	for c := range pick {
		keys = keys[:0]
		for p := lo; p < hi; p++ {
			keys = append(keys, uint64(orderedBits(x.At(int(a.Indices[p]), c)))<<32|uint64(p-lo))
		}
		slices.Sort(keys)
		var cum float64
		chosen := lo + int(keys[len(keys)-1]&0xffffffff)
		for _, k := range keys {
			p := lo + int(k&0xffffffff)
			cum += float64(a.Values[p])
			if cum >= total/2 {
				chosen = p
				break
			}
		}
		pick[c] = int32(chosen)
	}
	return keys
}

// orderedBits maps a float32 to a uint32 with the same order (negative
// values flipped, −0 before +0).
func orderedBits(v float32) uint32 {
	b := math.Float32bits(v)
	if b&0x80000000 != 0 {
		return ^b
	}
	return b | 0x80000000
}

// Forward implements Aggregator.
func (m *DimMedian) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	checkShapes("DimMedian", a, x, out)
	st := &m.st
	st.a, st.x, st.out = a, x, out
	st.rowSum = rowSums(a, st.rowSum)
	d := x.Cols
	st.pick = grow(st.pick, a.Rows*d)
	tensor.ParallelChunks(a.Rows, 16, func(lo, hi int) {
		var keys []uint64
		for r := lo; r < hi; r++ {
			pick := st.pick[r*d : (r+1)*d]
			keys = medianPicks(a, x, r, st.rowSum[r], pick, keys)
			o := out.Row(r)
			for c, p := range pick {
				if p < 0 {
					o[c] = 0
				} else {
					o[c] = float32(st.rowSum[r]) * x.At(int(a.Indices[p]), c)
				}
			}
		}
	})
	return st
}

// Backward implements Aggregator.
func (m *DimMedian) Backward(_ any, gradOut, gradX *tensor.Dense, gradVals []float32) {
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
			g := gradOut.Row(r)
			pick := st.pick[r*d : (r+1)*d]
			addRowScaleGrad(gradVals, a, r, g, st.out.Row(r), st.rowSum[r])
			if gradX == nil {
				continue
			}
			s := float32(st.rowSum[r])
			for c, p := range pick {
				if p >= 0 {
					st.g.row(int(p), d)[c] += s * g[c]
				}
			}
		}
	})
	if gradX != nil {
		st.g.reduce(gradX)
	}
}
