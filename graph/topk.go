package graph

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/rgnn/rgnn/linalg"
)

// tieRel is the relative tolerance (times the row's largest value) under
// which two diffusion values count as tied. Exactly tied values (for example
// two leaves hanging off the same node) differ only by rounding noise after
// a numerical solve; treating them as ties makes the top-k choice follow the
// documented rule "column ascending" instead of that noise.
const tieRel = 1e-9

// candidate is one (column, value) pair of a row considered for the top-k.
type candidate struct {
	col int32
	val float64
}

// topKSelector keeps the scratch space of selectTopK so that a goroutine can
// reuse it across rows.
type topKSelector struct {
	vals []float64
	pool []candidate
	keys []uint64
	out  []candidate
	// mark has one bit per column of the range byColumn scans, val the
	// value of every marked column.
	mark []uint64
	val  []float64
	// high, run and sel are boundaryRun's scratch.
	high, run, sel []candidate
}

// selectTopK returns the k entries of row with the largest values, ordered by
// value descending with ties (within tieRel·max) broken by column ascending,
// and then re-sorted by column ascending for storage. If fewer than k
// candidates exist all are returned. The returned slice aliases scratch space
// and is valid until the next call.
func (s *topKSelector) selectTopK(row []candidate, k int) []candidate {
	if k <= 0 || len(row) == 0 {
		return row[:0]
	}
	if k >= len(row) {
		return s.byColumn(row) // everything is selected
	}
	// k-th largest value by quickselect on a copy of the values.
	s.vals = s.vals[:0]
	rowMax := math.Inf(-1)
	for _, c := range row {
		s.vals = append(s.vals, c.val)
		rowMax = max(rowMax, c.val)
	}
	kth := KthLargest(s.vals, k)
	tol := tieRel * math.Abs(rowMax)
	// Everything that can end up in the first k after tie regrouping has a
	// value ≥ kth − tol (see regroupTies).
	s.pool = s.pool[:0]
	for _, c := range row {
		if c.val >= kth-tol {
			s.pool = append(s.pool, c)
		}
	}
	return s.fromPool(k, kth, tol)
}

// fromPool returns the top k of s.pool (every candidate with a value ≥
// kth − tol, kth the k-th largest value), by column.
func (s *topKSelector) fromPool(k int, kth, tol float64) []candidate {
	if len(s.pool) == k {
		// No value below the k-th lies within tol of it (the common case):
		// the pool is the selection whatever regroupTies' order.
		return s.byColumn(s.pool)
	}
	if sel, ok := s.boundaryRun(k, kth, tol); ok {
		return s.byColumn(sel)
	}
	return s.byColumn(regroupTies(s.pool, tol)[:k])
}

// boundaryRun is regroupTies(s.pool, tol)[:k] as a set, without sorting the
// pool: a row of a small component of a sampled graph has a few positive
// values and then hundreds or thousands of zeros, all in the pool, and
// sorting them cost more than its diffusion. The first k positions after
// regroupTies are the values above the run that holds position k−1 (the
// boundary run) and that run's members of lowest column. Runs start at the
// largest value not yet in one and take every value v with start − v ≤
// tol, so only the values above kth (fewer than k) need sorting to find
// where the boundary run starts: at the first run start w with w − kth ≤
// tol (that run holds kth's position), or at kth itself. The tests compare
// it with regroupTies on exact ties, chained near-ties and zeros.
func (s *topKSelector) boundaryRun(k int, kth, tol float64) ([]candidate, bool) {
	if math.IsNaN(kth) || math.IsNaN(tol) {
		return nil, false
	}
	high := s.high[:0]
	for _, c := range s.pool {
		if c.val > kth {
			high = append(high, c)
		}
	}
	s.high = high
	if len(high) >= k {
		return nil, false // not the k-th largest: leave it to regroupTies
	}
	slices.SortFunc(high, func(a, b candidate) int {
		if a.val != b.val {
			return cmp.Compare(b.val, a.val)
		}
		return cmp.Compare(a.col, b.col)
	})
	start, lo := kth, len(high) // the boundary run's first value and position
	for i := 0; i < len(high); {
		w := high[i].val
		if w-kth <= tol {
			start, lo = w, i
			break
		}
		j := i + 1
		for j < len(high) && w-high[j].val <= tol {
			j++
		}
		i = j
	}
	sel, run := s.sel[:0], s.run[:0]
	sorted := true
	for i, c := range s.pool {
		switch {
		case c.val > start:
			sel = append(sel, c)
		case start-c.val <= tol:
			run = append(run, c)
		}
		if i > 0 && c.col <= s.pool[i-1].col {
			sorted = false
		}
	}
	s.sel, s.run = sel, run
	need := k - lo
	if len(sel) != lo || len(run) < need {
		return nil, false // cannot happen; regroupTies decides then
	}
	if !sorted && len(run) > need {
		run = s.byColumn(run) // into s.out, read before byColumn(sel) overwrites it
	}
	sel = append(sel, run[:need]...)
	s.sel = sel
	return sel, true
}

// byColumn returns c sorted by column ascending (columns are distinct and
// nonnegative), in s.out. When the columns span few 64-bit words per entry
// they are marked in a bitmap over their range and read back in order;
// otherwise (column, position) keys are sorted as integers. Both are much
// cheaper than sorting the pairs through a comparison function.
func (s *topKSelector) byColumn(c []candidate) []candidate {
	s.out = s.out[:0]
	if len(c) == 0 {
		return s.out
	}
	lo, hi := c[0].col, c[0].col
	for _, e := range c {
		lo, hi = min(lo, e.col), max(hi, e.col)
	}
	base := int(lo) &^ 63
	words := (int(hi)-base)/64 + 1
	if words > 4*len(c) {
		return s.byColumnSort(c)
	}
	if len(s.mark) < words {
		s.mark = make([]uint64, words)
	}
	if len(s.val) < words*64 {
		s.val = make([]float64, words*64)
	}
	mark, val := s.mark[:words], s.val[:words*64]
	for _, e := range c {
		j := int(e.col) - base
		mark[j/64] |= 1 << (j % 64)
		val[j] = e.val
	}
	for w, m := range mark {
		for m != 0 {
			j := w*64 + bits.TrailingZeros64(m)
			m &= m - 1
			s.out = append(s.out, candidate{col: int32(base + j), val: val[j]})
		}
		mark[w] = 0
	}
	return s.out
}

// byColumnSort is byColumn by sorting (column, position) keys.
func (s *topKSelector) byColumnSort(c []candidate) []candidate {
	s.keys = s.keys[:0]
	for i, e := range c {
		s.keys = append(s.keys, uint64(uint32(e.col))<<32|uint64(i))
	}
	slices.Sort(s.keys)
	for _, key := range s.keys {
		s.out = append(s.out, c[uint32(key)])
	}
	return s.out
}

// regroupTies sorts c by value descending (exact ties: column ascending) and
// then, walking runs whose values lie within tol of the run's first (largest)
// value, re-sorts each run by column ascending. A run that reaches into the
// first k positions starts at a value ≥ the k-th largest, so all its members
// are ≥ kth − tol: the caller's pre-filter keeps every possible member.
func regroupTies(c []candidate, tol float64) []candidate {
	slices.SortFunc(c, func(a, b candidate) int {
		if a.val != b.val {
			return cmp.Compare(b.val, a.val)
		}
		return cmp.Compare(a.col, b.col)
	})
	for lo := 0; lo < len(c); {
		hi := lo + 1
		for hi < len(c) && c[lo].val-c[hi].val <= tol {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(c[lo:hi], func(a, b candidate) int { return cmp.Compare(a.col, b.col) })
		}
		lo = hi
	}
	return c
}

// KthLargest returns the k-th largest value of v (1-based), partially
// reordering v: a deterministic quickselect (median-of-three pivots, no
// randomness), O(len(v)) on average. It panics unless 1 ≤ k ≤ len(v).
func KthLargest[T float32 | float64](v []T, k int) T {
	idx := k - 1
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// median of three, ordered descending
		if v[mid] > v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] > v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] > v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] > pivot {
				i++
			}
			for v[j] < pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case idx <= j:
			hi = j
		case idx >= i:
			lo = i
		default:
			return v[idx]
		}
	}
	return v[idx]
}

// selectTopKBlock is selectTopK of the row whose column j has the value
// x[j][b] (slot b of a block-CG worker's interleaved solution), the same
// selection, read in place: the k-th largest value comes from a min-heap
// of the k largest seen (the same value as KthLargest's: the k-th largest
// of the multiset), and only the pool of values ≥ kth − tol is gathered
// into candidates.
func (s *topKSelector) selectTopKBlock(x [][linalg.CGBlock]float64, b, k int) []candidate {
	n := len(x)
	if k <= 0 || n == 0 {
		return s.pool[:0]
	}
	if k >= n {
		s.pool = s.pool[:0]
		for j := range x {
			s.pool = append(s.pool, candidate{col: int32(j), val: x[j][b]})
		}
		return s.byColumn(s.pool)
	}
	h := append(s.vals[:0], make([]float64, k)...)
	s.vals = h
	rowMax := math.Inf(-1)
	for j := range k {
		v := x[j][b]
		h[j] = v
		rowMax = max(rowMax, v)
	}
	for i := k/2 - 1; i >= 0; i-- {
		siftDownMin(h, i)
	}
	for j := k; j < n; j++ {
		v := x[j][b]
		rowMax = max(rowMax, v)
		if v > h[0] {
			h[0] = v
			siftDownMin(h, 0)
		}
	}
	kth := h[0]
	tol := tieRel * math.Abs(rowMax)
	s.pool = s.pool[:0]
	for j := range x {
		if v := x[j][b]; v >= kth-tol {
			s.pool = append(s.pool, candidate{col: int32(j), val: v})
		}
	}
	return s.fromPool(k, kth, tol)
}

// siftDownMin restores the min-heap order of h below position i.
func siftDownMin(h []float64, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if !(h[m] < h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
