//go:build amd64 && !purego && !goexperiment.simd

package tensor

import (
	"fmt"

	"golang.org/x/sys/cpu"
)

// The kernels of this file run Go assembly (vec_amd64.s, AVX2 + FMA) in the
// default build. Each one performs the same float32 operations in the same
// order as the GOEXPERIMENT=simd build's kernel of the same name
// (vec_simd.go), so the two builds give the same bits on a CPU with AVX2;
// without AVX2/FMA, and with the purego build tag, the portable kernels run.
// Every assembly kernel ends with VZEROUPPER.

// useAVX2 is fixed at start-up from the CPU's features.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// SIMD reports which vector path the kernels use.
var SIMD = func() string {
	if useAVX2 {
		return "AVX2+FMA (assembly)"
	}
	return "none (CPU lacks AVX2/FMA)"
}()

// Assembly kernels (vec_amd64.s). Lengths are in elements; the callers
// below check that every buffer holds what the kernel reads or writes.

//go:noescape
func axpyAVX2(y, x *float32, n int, alpha float32) // n a multiple of 8

//go:noescape
func axpyDiffAVX2(y, z, a, b *float32, n int, c float32) // n a multiple of 8

//go:noescape
func dotAVX2(x, y *float32, n int, buf *[8]float32) // n a multiple of 16

//go:noescape
func sqDistAVX2(x, y *float32, n int, buf *[8]float32) // n a multiple of 16

//go:noescape
func maxIndexAVX2(idx *int32, n int) uint32

// indicesBelow reports whether every index of idx is in [0, rows): one
// vector pass (maxIndexAVX2) where a check per entry, next to the kernels'
// gathers, cost ~12% of a GCN epoch on cora_ml.
func indicesBelow(idx []int32, rows int) bool {
	if len(idx) == 0 {
		return true
	}
	return rows > 0 && uint64(maxIndexAVX2(&idx[0], len(idx))) < uint64(rows)
}

// checkColumns panics unless every column index of a's rows [lo, hi) is a
// row of x (len(x.Data)/x.Cols of them), which the assembly kernels, reading
// x's rows at those indices unchecked, need. SpMM has checked the shapes;
// this guards a CSR whose indices were changed after it was built.
func checkColumns(a *CSR, lo, hi int, x *Dense) {
	if !indicesBelow(a.Indices[a.Indptr[lo]:a.Indptr[hi]], len(x.Data)/x.Cols) {
		panic(fmt.Sprintf("tensor.SpMM: a column index of rows [%d, %d) of the %d×%d CSR is outside x's %d rows", lo, hi, a.Rows, a.Cols, x.Rows))
	}
}

//go:noescape
func spmmRow32AVX2(out, x, vals *float32, idx *int32, nnz, n int, acc bool)

//go:noescape
func spmmRowSeqAVX2(out, x, vals *float32, idx *int32, nnz, n, w int, acc bool) // w a multiple of 8

//go:noescape
func prefetchRowsAsm(base *float32, stride int, idx *int32, n, lines int)

//go:noescape
func spmmRow32ChainsAVX2(out0, out1, x, vals *float32, idx *int32, nnz, n int)

//go:noescape
func gemm2x32AVX2(out, a, b *float32, k, n int, acc bool)

//go:noescape
func gemm2x32LdAVX2(out *float32, ldc int, a, b *float32, k, n int)

//go:noescape
func gemm6x16AVX2(out *float32, ldc int, a *float32, lda int, b *float32, ldb, k, n int, acc bool)

// useGemm6 selects gemm6x16AVX2 for blocks of six rows (tests switch it off
// to compare with the two-row kernel's bits).
var useGemm6 = true

//go:noescape
func gramToDistAVX2(gr, nb *float32, n int, na float32) // n a multiple of 8

//go:noescape
func pairCoefAVX2(dst, dist, w, gr *float32, n int, ga, wa float32, buf *[8]float32) // n a multiple of 8

//go:noescape
func adamAVX2(w, gr, m, v *float32, n int, c *AdamCoeffs) // n a multiple of 8

//go:noescape
func spmmNarrowRowAVX2(out, x, vals *float32, idx *int32, nnz, n int, acc bool, mask *[16]int32)

//go:noescape
func matNarrowRowAVX2(out, ar, bd *float32, k int, acc bool, mask *[8]int32)

// hsum8 is the SIMD build's horizontal sum of eight lanes.
func hsum8(b *[8]float32) float32 {
	return ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]))
}

// axpy computes y += alpha·x with 8-wide fused multiply-adds.
func axpy(y, x []float32, alpha float32) {
	if !useAVX2 || len(y) < 8 {
		axpyGeneric(y, x, alpha)
		return
	}
	x = x[:len(y)]
	n := len(y) &^ 7
	axpyAVX2(&y[0], &x[0], n, alpha)
	if n < len(y) {
		axpyGeneric(y[n:], x[n:], alpha)
	}
}

// axpyDiff computes d = c·(a − b), y += d, z −= d 8 lanes at a time
// (subtract, multiply, add, subtract: the plain loop's roundings).
func axpyDiff(y, z, a, b []float32, c float32) {
	if !useAVX2 || len(y) < 8 {
		axpyDiffGeneric(y, z, a, b, c)
		return
	}
	z, a, b = z[:len(y)], a[:len(y)], b[:len(y)]
	n := len(y) &^ 7
	axpyDiffAVX2(&y[0], &z[0], &a[0], &b[0], n, c)
	if n < len(y) {
		axpyDiffGeneric(y[n:], z[n:], a[n:], b[n:], c)
	}
}

// dot returns Σ x_i y_i with 8-wide fused multiply-adds.
func dot(x, y []float32) float32 {
	if !useAVX2 || len(x) < 16 {
		return dotGeneric(x, y)
	}
	y = y[:len(x)]
	n := len(x) &^ 15
	var buf [8]float32
	dotAVX2(&x[0], &y[0], n, &buf)
	s := hsum8(&buf)
	if n < len(x) {
		s += dotGeneric(x[n:], y[n:])
	}
	return s
}

// sqDist returns Σ (x_i − y_i)² with 8-wide fused multiply-adds.
//
// Deliberate speed copy of dot's driver: each calls its assembly kernel
// directly, so buf stays on the stack (a shared driver taking the kernel as
// a func value would not be inlined, and buf would escape to the heap on
// every call of these per-row reductions).
func sqDist(x, y []float32) float32 {
	if !useAVX2 || len(x) < 16 {
		return sqDistGeneric(x, y)
	}
	y = y[:len(x)]
	n := len(x) &^ 15
	var buf [8]float32
	sqDistAVX2(&x[0], &y[0], n, &buf)
	s := hsum8(&buf)
	if n < len(x) {
		s += sqDistGeneric(x[n:], y[n:])
	}
	return s
}

// spmmRows computes rows [lo, hi) of dst = a·x (+= when acc) for x with
// more than narrowCols columns. For a multiple of 32 columns it keeps 32
// output columns in four vector registers across a row's entries (two
// entries per step into separate accumulators). Other widths (a model's
// output layer with 40, 47 or 70 classes) keep the columns up to the last
// multiple of 8 in registers in blocks of 32 and 8 (spmmRowSeqAVX2) and do
// the rest in Go, each column accumulated over the row's entries in order:
// the same float32 operations as one axpy per entry, so the same bits as
// the axpy loop of the other builds. It reports false when it does not
// apply.
func spmmRows(dst *Dense, a *CSR, x *Dense, acc bool, lo, hi int) bool {
	n := x.Cols
	if !useAVX2 || n%32 != 0 && n <= narrowCols {
		return false
	}
	if n == 0 || lo >= hi {
		return true
	}
	if n%32 == 0 && longRows(a, x, lo, hi) {
		spmmLongRows(dst, a, x, acc, lo, hi)
		return true
	}
	w := n &^ 7 // the columns in registers when n is not a multiple of 32
	_ = dst.Data[hi*n-1]
	checkColumns(a, lo, hi, x)
	for i := lo; i < hi; i++ {
		out := dst.Data[i*n : (i+1)*n]
		k0, k1 := a.Indptr[i], a.Indptr[i+1]
		if k0 == k1 {
			if !acc {
				clear(out)
			}
			continue
		}
		vals, idx := a.Values[k0:k1], a.Indices[k0:k1]
		if n%32 == 0 {
			spmmRow32AVX2(&out[0], &x.Data[0], &vals[0], &idx[0], k1-k0, n, acc)
			continue
		}
		spmmRowSeqAVX2(&out[0], &x.Data[0], &vals[0], &idx[0], k1-k0, n, w, acc)
		if w == n {
			continue
		}
		tail := out[w:]
		if !acc {
			clear(tail)
		}
		for k, c := range idx {
			v := vals[k]
			xr := x.Data[int(c)*n+w : (int(c)+1)*n]
			for j, xv := range xr {
				tail[j] += v * xv
			}
		}
	}
	return true
}

// adamVec runs AdamUpdate 8 lanes at a time and returns how many elements
// it handled (the SIMD build's lane arithmetic; √ in float32).
func adamVec(w, g, m, v []float32, c AdamCoeffs) int {
	if !useAVX2 {
		return 0
	}
	n := len(w) &^ 7
	if n == 0 {
		return 0
	}
	_, _, _ = g[n-1], m[n-1], v[n-1]
	adamAVX2(&w[0], &g[0], &m[0], &v[0], n, &c)
	return n
}

// gemmSmallVec is GemmSmall's register-blocked kernel for n a multiple of
// 32: two output rows × 32 columns stay in eight vector registers across
// the whole inner dimension. m odd is finished by a one-row loop.
func gemmSmallVec(out, a, b []float32, m, k, n int, acc bool) bool {
	if !useAVX2 || n%32 != 0 {
		return false
	}
	if n == 0 || m == 0 {
		return true
	}
	i := 0
	if k > 0 {
		if useGemm6 {
			for ; i+6 <= m; i += 6 {
				gemm6x16AVX2(&out[i*n], n, &a[i*k], k, &b[0], n, k, n, acc)
			}
		}
		for ; i+2 <= m; i += 2 {
			gemm2x32AVX2(&out[i*n], &a[i*k], &b[0], k, n, acc)
		}
	} else {
		for ; i+2 <= m; i += 2 {
			if !acc {
				clear(out[i*n : (i+2)*n])
			}
		}
	}
	for ; i < m; i++ {
		o := out[i*n : (i+1)*n]
		if !acc {
			clear(o)
		}
		for t, av := range a[i*k : (i+1)*k] {
			axpy(o, b[t*n:(t+1)*n], av)
		}
	}
	return true
}

// gemmLdVec is GemmLd's AVX2 path.
func gemmLdVec(out []float32, ldc int, a, b []float32, m, k, n int) bool {
	if !useAVX2 || n%32 != 0 || n == 0 || m == 0 || k == 0 || ldc < n ||
		len(out) < (m-1)*ldc+n || len(a) < m*k || len(b) < k*n {
		return false
	}
	i := 0
	if useGemm6 {
		for ; i+6 <= m; i += 6 {
			gemm6x16AVX2(&out[i*ldc], ldc, &a[i*k], k, &b[0], n, k, n, false)
		}
	}
	for ; i+2 <= m; i += 2 {
		gemm2x32LdAVX2(&out[i*ldc], ldc, &a[i*k], &b[0], k, n)
	}
	if i < m { // gemmSmallVec's last odd row: one Axpy per t
		o := out[i*ldc : i*ldc+n]
		clear(o)
		for t, av := range a[i*k : (i+1)*k] {
			axpy(o, b[t*n:(t+1)*n], av)
		}
	}
	return true
}

// gemmLd6Vec is GemmLd6's AVX2 path: six-row blocks, the last one moved
// up to end at row m (its first rows are computed twice, with the same
// bits).
func gemmLd6Vec(out []float32, ldc int, a []float32, lda int, b []float32, ldb, m, k, n int) bool {
	if !useAVX2 || !useGemm6 || n%16 != 0 || n == 0 || m < 6 || k < 1 || ldc < n || lda < k || ldb < n ||
		len(out) < (m-1)*ldc+n || len(a) < (m-1)*lda+k || len(b) < (k-1)*ldb+n {
		return false
	}
	for i := 0; i < m; i += 6 {
		i = min(i, m-6)
		gemm6x16AVX2(&out[i*ldc], ldc, &a[i*lda], lda, &b[0], ldb, k, n, false)
	}
	return true
}

// gramToDistVec is GramToDist 8 lanes at a time; it returns how many
// entries it handled.
func gramToDistVec(g, nb []float32, na float32) int {
	if !useAVX2 {
		return 0
	}
	n := len(g) &^ 7
	if n == 0 {
		return 0
	}
	_ = nb[n-1]
	gramToDistAVX2(&g[0], &nb[0], n, na)
	return n
}

// pairCoefVec is PairCoef 8 lanes at a time (division by zero is masked).
func pairCoefVec(dst, dist, w, g []float32, ga, wa float32) (int, float32) {
	if !useAVX2 {
		return 0, 0
	}
	n := len(dst) &^ 7
	if n == 0 {
		return 0, 0
	}
	_, _, _ = dist[n-1], w[n-1], g[n-1]
	var buf [8]float32
	pairCoefAVX2(&dst[0], &dist[0], &w[0], &g[0], n, ga, wa, &buf)
	return n, hsum8(&buf)
}

// laneMask returns 8 lanes of -1 for the first n (clamped to 0..8).
func laneMask(m []int32, n int) {
	for i := range m {
		if i < n {
			m[i] = -1
		} else {
			m[i] = 0
		}
	}
}

// spmmNarrowVec is spmmNarrow with the output row (at most 16 columns) in
// two vector registers, loading x's short rows with masked loads; entries
// alternate between two accumulator pairs so consecutive FMAs overlap. It
// reports false when it does not apply.
func spmmNarrowVec(dst *Dense, a *CSR, x *Dense, acc bool, lo, hi int) bool {
	n := x.Cols
	if !useAVX2 || n > 16 || n == 0 {
		return false
	}
	if lo >= hi {
		return true
	}
	var mask [16]int32
	laneMask(mask[:8], n)
	laneMask(mask[8:], n-8)
	_ = dst.Data[hi*n-1]
	checkColumns(a, lo, hi, x)
	for i := lo; i < hi; i++ {
		k0, k1 := a.Indptr[i], a.Indptr[i+1]
		if k0 == k1 {
			if !acc {
				clear(dst.Data[i*n : (i+1)*n])
			}
			continue
		}
		vals, idx := a.Values[k0:k1], a.Indices[k0:k1]
		spmmNarrowRowAVX2(&dst.Data[i*n], &x.Data[0], &vals[0], &idx[0], k1-k0, n, acc, &mask)
	}
	return true
}

// matMulNarrowVec computes rows [lo, hi) of dst = a·b (+= when acc) for b
// with at most 8 columns: the output row lives in one vector register, fed
// by broadcasts of a's row and b's rows (padded to 8 lanes per call), with
// four accumulators over the inner dimension. It reports false when it
// does not apply.
func matMulNarrowVec(dst, a, b *Dense, acc bool, lo, hi int) bool {
	n, k := b.Cols, a.Cols
	if !useAVX2 || n > 8 || n == 0 {
		return false
	}
	if lo >= hi {
		return true
	}
	bd := make([]float32, k*8+8)
	for t := range k {
		copy(bd[t*8:t*8+n], b.Data[t*n:(t+1)*n])
	}
	var mask [8]int32
	laneMask(mask[:], n)
	_ = dst.Data[hi*n-1]
	if k > 0 {
		_ = a.Data[hi*k-1]
	}
	var zero float32
	for i := lo; i < hi; i++ {
		ar := &zero
		if k > 0 {
			ar = &a.Data[i*k]
		}
		matNarrowRowAVX2(&dst.Data[i*n], ar, &bd[0], k, acc, &mask)
	}
	return true
}

// PrefetchRows asks the CPU to start loading the rows idx of the row-major
// matrix data (stride floats per row, each of at least width floats) into
// its caches, so that a later pass over them, in a random order that the
// hardware prefetcher cannot guess, does not wait for memory row by row.
// It changes no value; rows outside data are skipped, and so is a matrix
// small enough to stay in the caches (below prefetchMin floats), where the
// hint would only cost time.
func PrefetchRows(data []float32, stride, width int, idx []int32) {
	if len(idx) == 0 || stride <= 0 || width <= 0 || len(data) < prefetchMin {
		return
	}
	if !indicesBelow(idx, len(data)/stride) {
		return
	}
	lines := (width*4 + 63) / 64
	prefetchRowsAsm(&data[0], stride, &idx[0], len(idx), lines)
}

// prefetchMin is the size (floats, 8 MiB) from which PrefetchRows prefetches.
const prefetchMin = 1 << 21

// Rows of a whose entries reach more of x than the caches hold (the
// transposed feature matrix in a first layer's backward: a few rows of n
// entries each) are computed tile by tile over x (spmmLongRows). A row is
// long from longRowEntries entries on average, x large from longRowsX
// floats; a tile of x is longRowTile floats (a quarter of a 1 MiB L2).
const (
	longRowEntries = 4096
	longRowsX      = 1 << 20
	longRowTile    = 1 << 16
)

// longRows reports whether rows [lo, hi) of a are long (see longRowEntries).
func longRows(a *CSR, x *Dense, lo, hi int) bool {
	return len(x.Data) >= longRowsX && a.Indptr[hi]-a.Indptr[lo] >= longRowEntries*(hi-lo)
}

// spmmLongRows computes rows [lo, hi) of dst = a·x (+= when acc), x's width
// a multiple of 32, with the operations of spmmRow32AVX2 in its order —
// the same bits — but over one tile of x's rows at a time for all the rows,
// so that a tile is read from memory once, not once per row and column
// block. Between tiles each row keeps spmmRow32AVX2's two chains (its even
// and its odd entries) apart: the even chain in dst's row, the odd one in a
// scratch row; they are added at the end as spmmRow32AVX2 adds them.
func spmmLongRows(dst *Dense, a *CSR, x *Dense, acc bool, lo, hi int) {
	n := x.Cols
	checkColumns(a, lo, hi, x)
	rows := hi - lo
	odd := make([]float32, rows*n)
	next := make([]int, rows) // each row's next entry
	for r := range rows {
		next[r] = a.Indptr[lo+r]
		if !acc {
			clear(dst.Data[(lo+r)*n : (lo+r+1)*n])
		}
	}
	tile := max(1, longRowTile/n) // rows of x per tile
	for t0 := 0; t0 < x.Rows; t0 += tile {
		end := int32(min(t0+tile, x.Rows))
		for r := range rows {
			i := lo + r
			k0, k1 := next[r], a.Indptr[i+1]
			k := k0
			for k < k1 && a.Indices[k] < end {
				k++
			}
			if k == k0 {
				continue
			}
			even, oddRow := &dst.Data[i*n], &odd[r*n]
			if (k0-a.Indptr[i])%2 == 1 { // this piece starts at an odd entry
				even, oddRow = oddRow, even
			}
			spmmRow32ChainsAVX2(even, oddRow, &x.Data[0], &a.Values[k0], &a.Indices[k0], k-k0, n)
			next[r] = k
		}
	}
	for r := range rows {
		out, o := dst.Data[(lo+r)*n:(lo+r+1)*n], odd[r*n:(r+1)*n]
		for c := range out {
			out[c] += o[c]
		}
	}
}
