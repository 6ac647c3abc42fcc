package aggregate

import (
	"math"
	"math/bits"
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
		ws     []workspace
		rowPass
	}
	fwd, bwd func(chunk, lo, hi int)
}

// Name implements Aggregator.
func (m *DimMedian) Name() string { return "dimmedian" }

// medianPicks fills pick (d entries) with the weighted median entry of row r
// per dimension c: with each neighbour's (value, entry) pair packed into
// one uint64 key, orderedBits(x[·,c])<<32 | i, whose order is the value's
// order with ties broken by entry position (column ascending), the first
// key in ascending order whose cumulative weight — the float64 sum of the
// float32 weights a.Values[lo:hi] in that order — reaches total/2, or the
// largest key if none does. Rows of up to 64 entries go to the build's
// sorting-network kernels where it has them (medianPicksVec: AVX-512, else
// AVX2); the rest to the portable selection, which gives the same picks.
func medianPicks(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32, ws *workspace) {
	lo, hi := a.Indptr[r], a.Indptr[r+1]
	switch hi - lo {
	case 0:
		for c := range pick {
			pick[c] = -1
		}
		return
	case 1: // the only key is the first crossing or the largest
		for c := range pick {
			pick[c] = int32(lo)
		}
		return
	}
	if medianPicksVec(x, a.Indices[lo:hi], a.Values[lo:hi], total/2, lo, pick, ws) {
		return
	}
	medianPicksGeneric(a, x, r, total, pick, ws)
}

// medianPicksGeneric is medianPicks in portable Go (the reference of the
// vector kernels): the neighbourhood is first gathered column-major (one
// contiguous run of values per dimension), then each dimension selects
// with weightedSelectM.
func medianPicksGeneric(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32, ws *workspace) {
	lo, hi := a.Indptr[r], a.Indptr[r+1]
	if hi == lo {
		for c := range pick {
			pick[c] = -1
		}
		return
	}
	nk, d := hi-lo, x.Cols
	xt := grow(ws.xt, d*nk)
	ws.xt = xt
	idx := a.Indices[lo:hi]
	i := 0
	for ; i+4 <= nk; i += 4 { // four rows at a time: adjacent stores
		x0, x1 := x.Row(int(idx[i])), x.Row(int(idx[i+1]))
		x2, x3 := x.Row(int(idx[i+2])), x.Row(int(idx[i+3]))
		for c := range d {
			o := xt[c*nk+i : c*nk+i+4 : c*nk+i+4]
			o[0], o[1], o[2], o[3] = x0[c], x1[c], x2[c], x3[c]
		}
	}
	for ; i < nk; i++ {
		for c, v := range x.Row(int(idx[i])) {
			xt[c*nk+i] = v
		}
	}
	w := a.Values[lo:hi]
	partition := exactSums(w)
	keys := grow(ws.keys, nk)
	ws.keys = keys
	for c := range pick {
		for i, v := range xt[c*nk : (c+1)*nk] {
			keys[i] = uint64(orderedBits(v))<<32 | uint64(i)
		}
		pick[c] = int32(lo + int(weightedSelectM(keys, w, total/2, partition)&0xffffffff))
	}
}

// exactSums reports whether every sum of a subset of w, added in any order
// in float64, is exact, and no weight is negative: then the cumulative
// weights in sorted order are monotone and equal to the sums quickselect's
// partitions form in their own order. Each nonzero finite float32 weight
// is an integer multiple of 2^(E−150) below 2^(E−126) (E its biased
// exponent, 1 for subnormals), so all such sums are multiples of
// 2^(Emin−150) below len(w)·2^(Emax−126), exact in float64's 53 bits when
// bits.Len(len(w)) + Emax − Emin ≤ 29.
func exactSums(w []float32) bool {
	emin, emax := uint32(255), uint32(0)
	for _, v := range w {
		b := math.Float32bits(v)
		if b&0x7fffffff == 0 {
			continue // ±0 adds nothing
		}
		if b>>31 != 0 || b>>23 == 0xff { // negative, ±Inf or NaN
			return false
		}
		e := max(b>>23, 1)
		emin, emax = min(emin, e), max(emax, e)
	}
	return emax < emin || bits.Len(uint(len(w)))+int(emax)-int(emin) <= 29
}

// weightedSelect returns the first key in ascending order whose cumulative
// weight (the float64 sum of the keys' weights in ascending order) reaches
// target, or the last key if none does. Keys are distinct; the low 32 bits
// of a key index w. Expected O(len(keys)) by quickselect where its sums are
// exact (exactSums); otherwise the keys are sorted. keys is reordered.
func weightedSelect(keys []uint64, w []float32, target float64) uint64 {
	return weightedSelectM(keys, w, target, exactSums(w))
}

// weightedSelectM is weightedSelect with exactSums(w) given by the caller:
// unless partition, the whole range is sorted and its cumulative weights
// are added in order.
func weightedSelectM(keys []uint64, w []float32, target float64, partition bool) uint64 {
	lo, hi := 0, len(keys)
	var acc float64 // weight of the keys known to lie below keys[lo:hi]
	for partition && hi-lo > 12 {
		// Median-of-three pivot, then a branch-free Lomuto partition
		// (keys[lo:i] < pivot ≤ keys[i:j]): the comparison outcomes are
		// random, so branches would mispredict half the time.
		m := lo + (hi-lo)/2
		a, b, c := keys[lo], keys[m], keys[hi-1]
		pivot := max(min(a, b), min(max(a, b), c))
		i := lo
		for j := lo; j < hi; j++ {
			k := keys[j]
			keys[j] = keys[i]
			keys[i] = k
			i += b2i(k < pivot)
		}
		var wl float64
		for _, k := range keys[lo:i] {
			wl += float64(w[k&0xffffffff])
		}
		wp := float64(w[pivot&0xffffffff])
		switch {
		case acc+wl >= target:
			hi = i
		case acc+wl+wp >= target:
			return pivot
		default:
			acc += wl + wp
			// Move the pivot out of the way: the > part is what remains.
			k := i
			for keys[k] != pivot {
				k++
			}
			keys[i], keys[k] = keys[k], keys[i]
			lo = i + 1
		}
	}
	part := keys[lo:hi]
	if len(part) <= 12 {
		insertionSort(part)
	} else {
		slices.Sort(part)
	}
	for _, k := range part {
		acc += float64(w[k&0xffffffff])
		if acc >= target {
			return k
		}
	}
	// No prefix reaches the target (e.g. negative weights): the largest key.
	return slices.Max(keys)
}

// b2i is 1 for true, 0 for false (compiled to SETcc, no branch).
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// insertionSort sorts a short slice ascending.
func insertionSort(s []uint64) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for ; j > 0 && s[j-1] > v; j-- {
			s[j] = s[j-1]
		}
		s[j] = v
	}
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

func (m *DimMedian) bind() {
	if m.fwd == nil {
		m.fwd, m.bwd = m.forwardRows, m.backwardRows
	}
}

// Forward implements Aggregator.
func (m *DimMedian) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	checkShapes("DimMedian", a, x, out)
	st := &m.st
	st.a, st.x, st.out = a, x, out
	st.rowSum = rowSums(a, st.rowSum)
	st.pick = grow(st.pick, a.Rows*x.Cols)
	chunks, _ := chunking(a.Rows, 16)
	st.ws = grow(st.ws, chunks)
	m.bind()
	st.par.run(a.Rows, 16, m.fwd)
	return st
}

func (m *DimMedian) forwardRows(chunk, lo, hi int) {
	st := &m.st
	a, x, out := st.a, st.x, st.out
	d := x.Cols
	ws := &st.ws[chunk]
	for r := lo; r < hi; r++ {
		pick := st.pick[r*d : (r+1)*d]
		medianPicks(a, x, r, st.rowSum[r], pick, ws)
		o := out.Row(r)
		for c, p := range pick {
			if p < 0 {
				o[c] = 0
			} else {
				o[c] = float32(st.rowSum[r]) * x.At(int(a.Indices[p]), c)
			}
		}
	}
}

// Backward implements Aggregator.
func (m *DimMedian) Backward(_ any, gradOut, gradX *tensor.Dense, gradVals []float32) {
	m.bind()
	m.st.backward(m.st.a, m.st.x.Cols, gradOut, gradX, gradVals, m.bwd)
}

func (m *DimMedian) backwardRows(chunk, lo, hi int) {
	st := &m.st
	a := st.a
	gradOut, gradX, gradVals := st.gradOut, st.gradX, st.gradVals
	d := st.x.Cols
	for r := lo; r < hi; r++ {
		g := gradOut.Row(r)
		pick := st.pick[r*d : (r+1)*d]
		addRowScaleGrad(gradVals, a, r, g, st.out.Row(r), st.rowSum[r])
		if gradX == nil {
			continue
		}
		s := float32(st.rowSum[r])
		for c, p := range pick {
			if p >= 0 {
				st.g.row(chunk, int(a.Indices[p]))[c] += s * g[c]
			}
		}
	}
}
