//go:build amd64 && !purego

package aggregate

import (
	"math/bits"

	"golang.org/x/sys/cpu"

	"github.com/rgnn/rgnn/tensor"
)

//go:generate go run dimmedian_gen.go

// The weighted dimension-wise median's AVX-512 and AVX2 kernels
// (dimmedian_amd64.s, written by dimmedian_gen.go). The GOEXPERIMENT=simd
// build uses them too: they are integer sorting networks and float64 sums
// in a fixed order, so an archsimd version would only repeat them.

// hasMedian512 selects the kernels where the CPU has AVX-512F (all that
// the Z-register kernels use); GODEBUG=cpu.avx512f=off turns them off.
// hasMedian512VL adds the Y-register kernel for groups of up to 8 columns.
// hasMedianAVX2 selects the AVX2 kernels where hasMedian512 does not
// (GODEBUG=cpu.avx512f=off on an AVX-512 CPU included).
var (
	hasMedian512   = cpu.X86.HasAVX512F
	hasMedian512VL = hasMedian512 && cpu.X86.HasAVX512VL
	hasMedianAVX2  = cpu.X86.HasAVX2
)

// dimMedianSizes are the padded neighbourhood sizes with a kernel, in
// ascending order (dimmedian_gen.go's sizes).
var dimMedianSizes = [...]int{4, 8, 12, 16, 24, 32, 40, 48, 56, 64}

// dimMedianKernel is the signature of the exact kernels (dimMedianRowN):
// the picks of columns 0 … d−1 of x (x at column 0 of the first of them,
// ldx the row stride in bytes) for the row with entries idx (nk ≤ N of
// them, lo the first one's position) and weights w (zero-padded to 64),
// eight columns at a time with uint64 keys; keys holds N×8.
type dimMedianKernel func(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

// dimMedianFastKernel is the signature of the uint32-key kernels,
// dimMedian16xN (sixteen columns at a time, Z registers) and dimMedian8xN
// (eight, Y registers): dimMedianKernel with keys whose lowest
// max(4, ⌈log₂ N⌉) bits hold the index in place of the value's lowest
// bits. That is exact for a dimension unless two of the keys the scan
// reaches (up to the pick's successor) share their value bits; coll[g]
// gets those dimensions of group g (columns L·g … L·g+L−1) as a bit mask.
type dimMedianFastKernel func(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianRow4(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow8(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow12(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow16(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow24(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow32(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow40(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow48(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow56(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedianRow64(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)

//go:noescape
func dimMedian16x4(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x8(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x12(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x16(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x24(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x32(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x40(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x48(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x56(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian16x64(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x4(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x8(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x12(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x16(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x24(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x32(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x40(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x48(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x56(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedian8x64(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x4(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x8(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x12(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x16(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x24(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x32(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x40(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x48(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x56(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

//go:noescape
func dimMedianAVX2x64(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)

var dimMedianAVX2 = [...]dimMedianFastKernel{dimMedianAVX2x4, dimMedianAVX2x8, dimMedianAVX2x12, dimMedianAVX2x16, dimMedianAVX2x24, dimMedianAVX2x32, dimMedianAVX2x40, dimMedianAVX2x48, dimMedianAVX2x56, dimMedianAVX2x64}

var dimMedianExact = [...]dimMedianKernel{dimMedianRow4, dimMedianRow8, dimMedianRow12,
	dimMedianRow16, dimMedianRow24, dimMedianRow32, dimMedianRow40, dimMedianRow48,
	dimMedianRow56, dimMedianRow64}

var dimMedian16 = [...]dimMedianFastKernel{dimMedian16x4, dimMedian16x8, dimMedian16x12, dimMedian16x16, dimMedian16x24, dimMedian16x32, dimMedian16x40, dimMedian16x48, dimMedian16x56, dimMedian16x64}

var dimMedian8 = [...]dimMedianFastKernel{dimMedian8x4, dimMedian8x8, dimMedian8x12, dimMedian8x16, dimMedian8x24, dimMedian8x32, dimMedian8x40, dimMedian8x48, dimMedian8x56, dimMedian8x64}

// medianPicksVec computes medianPicks for a row with entries idx and
// weights w (2 ≤ len(idx) ≤ 64; lo its first entry position) on the
// AVX-512 kernels and reports true, or reports false (and does nothing)
// where they do not apply.
func medianPicksVec(x *tensor.Dense, idx []int32, w []float32, target float64, lo int, pick []int32, ws *workspace) bool {
	if hasMedian512 {
		return medianPicksAVX512(x, idx, w, target, lo, pick, ws, medianAuto)
	}
	return hasMedianAVX2 && medianPicksAVX2(x, idx, w, target, lo, pick, ws)
}

// medianPicksAVX2 is medianPicksVec on the AVX2 kernels (dimMedianAVX2xN:
// eight columns at a time, uint32 keys), whatever the CPU's AVX-512: the
// columns where they report a collision (keys with one prefix and unequal
// values up to the pick: near-ties, rare; equal values are not one) are
// recomputed with the portable selection, column by column.
func medianPicksAVX2(x *tensor.Dense, idx []int32, w []float32, target float64, lo int, pick []int32, ws *workspace) bool {
	nk, d := len(idx), x.Cols
	if nk < 2 || nk > 64 || len(w) != nk || len(pick) != d {
		return false
	}
	if d == 0 {
		return true
	}
	s, wp, keys := medianKernelArgs(x, idx, w, ws)
	coll := grow(ws.coll, (d+7)/8)
	ws.coll = coll
	dimMedianAVX2[s](&x.Data[0], 4*d, &idx[0], nk, &wp[0], target, lo, &pick[0], d, &keys[0], &coll[0])
	partition, known := false, false
	for g, m := range coll {
		for ; m != 0; m &= m - 1 {
			if !known {
				partition, known = exactSums(w), true
			}
			c := 8*g + bits.TrailingZeros16(m)
			k := grow(ws.keys, nk)
			ws.keys = k
			for i, j := range idx {
				k[i] = uint64(orderedBits(x.At(int(j), c)))<<32 | uint64(i)
			}
			pick[c] = int32(lo + int(weightedSelectM(k, w, target, partition)&0xffffffff))
		}
	}
	return true
}

// medianKernelArgs readies what every median kernel takes for a row with
// entries idx and weights w (2 ≤ len(idx) ≤ 64, x.Cols > 0): it checks the
// neighbour indices (the kernels load rows unchecked) and returns the size
// class s (dimMedianSizes[s] ≥ len(idx)), the weights zero-padded to 64 for
// the lookups and the keys' scratch, both from ws.
func medianKernelArgs(x *tensor.Dense, idx []int32, w []float32, ws *workspace) (s int, wp []float32, keys []uint64) {
	for _, j := range idx {
		if uint(j) >= uint(x.Rows) {
			panic("aggregate: neighbour index out of range")
		}
	}
	_ = x.Data[x.Rows*x.Cols-1]
	for dimMedianSizes[s] < len(idx) {
		s++
	}
	wp = grow(ws.wpad, 64)
	ws.wpad = wp
	copy(wp, w)
	clear(wp[len(idx):])
	keys = grow(ws.mkeys, 64*8)
	ws.mkeys = keys
	return s, wp, keys
}

// The kernel choices of medianPicksAVX512: medianAuto is medianPicksVec's;
// the others are for the tests and benchmarks.
const (
	medianAuto  = iota
	medianExact // the exact kernel on every column
	medianWide  // the 16-lane kernel on every column (no 8-lane remainder)
)

// medianPicksAVX512 is medianPicksVec with the kernels chosen by mode.
func medianPicksAVX512(x *tensor.Dense, idx []int32, w []float32, target float64, lo int, pick []int32, ws *workspace, mode int) bool {
	nk, d := len(idx), x.Cols
	if !hasMedian512 || nk < 2 || nk > 64 || len(w) != nk || len(pick) != d {
		return false
	}
	if d == 0 {
		return true
	}
	s, wp, keys := medianKernelArgs(x, idx, w, ws)
	if mode == medianExact {
		dimMedianExact[s](&x.Data[0], 4*d, &idx[0], nk, &wp[0], target, lo, &pick[0], d, &keys[0])
		return true
	}
	coll := grow(ws.coll, (d+7)/8)
	ws.coll = coll
	// Sixteen columns at a time; a remainder of up to 8 columns (all of
	// them for d ≤ 8) eight at a time where the CPU has AVX-512VL.
	wide := d
	if r := d % 16; r > 0 && r <= 8 && hasMedian512VL && mode != medianWide {
		wide = d - r
	}
	args := medianArgs{x: x, idx: idx, wp: wp, target: target, lo: lo, pick: pick, keys: keys, coll: coll, s: s}
	if wide > 0 {
		args.run(dimMedian16[s], 16, 0, wide)
	}
	if wide < d {
		args.run(dimMedian8[s], 8, wide, d-wide)
	}
	return true
}

// medianArgs are one row's arguments of the kernels.
type medianArgs struct {
	x      *tensor.Dense
	idx    []int32
	wp     []float32
	target float64
	lo     int
	pick   []int32
	keys   []uint64
	coll   []uint16
	s      int // size class: dimMedianSizes[s] ≥ len(idx)
}

// run computes the picks of columns c0 … c0+n−1 with the uint32-key kernel
// f (lanes columns at a time) and recomputes the groups of eight columns
// where it reports a collision with the exact kernel.
func (m *medianArgs) run(f dimMedianFastKernel, lanes, c0, n int) {
	d, nk := m.x.Cols, len(m.idx)
	f(&m.x.Data[c0], 4*d, &m.idx[0], nk, &m.wp[0], m.target, m.lo, &m.pick[c0], n, &m.keys[0], &m.coll[0])
	for g, mask := range m.coll[:(n+lanes-1)/lanes] {
		for h := 0; h < lanes/8; h++ {
			if mask>>(8*h)&0xff == 0 {
				continue
			}
			c := c0 + lanes*g + 8*h
			dimMedianExact[m.s](&m.x.Data[c], 4*d, &m.idx[0], nk, &m.wp[0], m.target, m.lo, &m.pick[c], min(8, c0+n-c), &m.keys[0])
		}
	}
}
