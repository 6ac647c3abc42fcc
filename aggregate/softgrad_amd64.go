//go:build amd64 && !purego && !goexperiment.simd

package aggregate

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/rgnn/rgnn/tensor"
)

// The Soft Medoid's AVX2 row kernels for hosts without AVX-512
// (softgrad_amd64.s). Each repeats, operation for operation, the package
// tensor kernels the row code called before (GemmSmall and Axpy, Dot,
// PairCoef's lane sums), so the bits are unchanged; what they save is a Go
// call per row of the neighbourhood and the round trips through memory
// between them.

// useFMA is true where package tensor's AVX2 kernels run (AVX2 and FMA)
// and the AVX-512 kernels of this package do not.
var useFMA = useAVX2 && cpu.X86.HasFMA && !useAVX512

//go:noescape
func gemm6x16SubAVX2(gr *float32, ldg int, rows *int32, a *float32, lda int, b *float32, ldb, k, n int)

//go:noescape
func dotRowsAVX2(out, x *float32, ldx int, y *float32, n, m int)

//go:noescape
func rowSums8AVX2(out, x *float32, ldx, n, m int)

// gemmSubRows subtracts row i of a·b (a m×k with row stride lda, b k×n)
// from row rows[i] of g (row stride n) for the first rows of a in blocks
// of six, in row order, and returns how many it did (a multiple of 6; 0
// where it does not apply). Each product element is the chain of fused
// multiply-adds of tensor.GemmSmall, and g −= p is tensor.Axpy(g, p, −1)
// (one rounding of g − p either way), so the bits are those of GemmSmall
// into a buffer followed by one Axpy per row.
func gemmSubRows(g []float32, rows []int32, a []float32, lda int, b []float32, m, k, n int) int {
	if !useFMA || n%32 != 0 || n == 0 || k == 0 || m < 6 || lda < k || len(rows) < m ||
		len(a) < (m-1)*lda+k || len(b) < k*n {
		return 0
	}
	m6 := m - m%6
	for _, r := range rows[:m6] {
		if r < 0 || (int(r)+1)*n > len(g) {
			return 0
		}
	}
	m4 := m6
	if m-m6 >= 4 {
		m4 += 4
	}
	for _, r := range rows[m6:m4] {
		if r < 0 || (int(r)+1)*n > len(g) {
			m4 = m6
		}
	}
	for i := 0; i < m6; i += 6 {
		gemm6x16SubAVX2(&g[0], n, &rows[i], &a[i*lda], lda, &b[0], n, k, n)
	}
	if m4 > m6 {
		gemm4x16SubAVX2(&g[0], n, &rows[m6], &a[m6*lda], lda, &b[0], n, k, n)
	}
	return m4
}

//go:noescape
func gemm4x16SubAVX2(gr *float32, ldg int, rows *int32, a *float32, lda int, b *float32, ldb, k, n int)

//go:noescape
func gemm4x16LdAVX2(out *float32, ldc int, a *float32, lda int, b *float32, ldb, k, n int)

//go:noescape
func gemm6x16LdAVX2(out *float32, ldc int, a *float32, lda int, b *float32, ldb, k, n int)

// gemmLd64 writes out (row stride ldc) = a·b (a m×k, row stride lda; b k×n,
// row stride ldb; n a multiple of 16, m ≥ 4) in blocks of six and four
// rows: tensor.GemmLd6's element chains (so GemmLd's and GemmSmall's bits)
// without its last six-row block moved up over rows already done where
// four rows remain (GemmLd6 on 16 rows computed 18). A remainder of one to
// three rows is such a moved-up block. It reports false, having written
// nothing, where it does not apply.
func gemmLd64(out []float32, ldc int, a []float32, lda int, b []float32, ldb, m, k, n int) bool {
	if !useFMA || n%16 != 0 || n == 0 || m < 4 || k < 1 || ldc < n || lda < k || ldb < n ||
		len(out) < (m-1)*ldc+n || len(a) < (m-1)*lda+k || len(b) < (k-1)*ldb+n {
		return false
	}
	r := m % 6
	n6 := m - r
	if r == 2 && m >= 8 {
		n6 -= 6 // the last eight rows as 4 + 4
	}
	i := 0
	for ; i < n6; i += 6 {
		gemm6x16LdAVX2(&out[i*ldc], ldc, &a[i*lda], lda, &b[0], ldb, k, n)
	}
	for ; m-i >= 4; i += 4 {
		gemm4x16LdAVX2(&out[i*ldc], ldc, &a[i*lda], lda, &b[0], ldb, k, n)
	}
	if i < m {
		if m >= 6 {
			gemm6x16LdAVX2(&out[(m-6)*ldc], ldc, &a[(m-6)*lda], lda, &b[0], ldb, k, n)
		} else {
			gemm4x16LdAVX2(&out[(m-4)*ldc], ldc, &a[(m-4)*lda], lda, &b[0], ldb, k, n)
		}
	}
	return true
}

// dotRows writes out[i] = tensor.Dot(y, x[i*ldx : i*ldx+len(y)]) for i <
// len(out), with Dot's bits (two 8-lane chains, their sum, the pairwise
// horizontal sum). It reports false, having written nothing, where it does
// not apply.
func dotRows(out, x []float32, ldx int, y []float32) bool {
	n, m := len(y), len(out)
	if !useFMA || n%16 != 0 || n == 0 || m == 0 || ldx < n || len(x) < (m-1)*ldx+n {
		return false
	}
	dotRowsAVX2(&out[0], &x[0], ldx, &y[0], n, m)
	return true
}

// rowSums8 writes out[i] = the sum of x[i*ldx : i*ldx+n] in tensor.PairCoef's
// order (one 8-lane chain, then the pairwise horizontal sum), n a multiple
// of 8. It reports false, having written nothing, where it does not apply.
func rowSums8(out, x []float32, ldx, n int) bool {
	m := len(out)
	if !useFMA || n%8 != 0 || n == 0 || m == 0 || ldx < n || len(x) < (m-1)*ldx+n {
		return false
	}
	rowSums8AVX2(&out[0], &x[0], ldx, n, m)
	return true
}

//go:noescape
func transposeTilesAVX2(dst *float32, ldd int, src *float32, lds, rows, cols int)

//go:noescape
func pairCoefUpperAVX2(cm *float32, ld int, dist, w, gr *float32, nk int)

//go:noescape
func gramToDistUpperAVX2(gm *float32, nk int, nrm *float32)

// transposeTiles8 writes the transpose of the rows×cols matrix src (row
// stride lds) into dst (row stride ldd), 8×8 tiles in one call (rows and
// cols multiples of 8): transpose8's tiles, so the same values. It reports
// false, having written nothing, where it does not apply.
func transposeTiles8(dst []float32, ldd int, src []float32, lds, rows, cols int) bool {
	if !useFMA || rows%8 != 0 || cols%8 != 0 || rows == 0 || cols == 0 || ldd < rows || lds < cols ||
		len(src) < (rows-1)*lds+cols || len(dst) < (cols-1)*ldd+rows {
		return false
	}
	transposeTilesAVX2(&dst[0], ldd, &src[0], lds, rows, cols)
	return true
}

// pairCoefUpper writes row i of the pair coefficients (tensor.PairCoef's
// values, without its sums) into cm[i*ld:] from column i&^7 to nk for
// every row i < nk (a multiple of 8). It reports false, having written
// nothing, where it does not apply.
func pairCoefUpper(cm []float32, ld int, dist, w, gc []float32) bool {
	nk := len(w)
	if !useFMA || nk%8 != 0 || nk == 0 || ld < nk || len(cm) < (nk-1)*ld+nk || len(dist) < nk*nk || len(gc) < nk {
		return false
	}
	pairCoefUpperAVX2(&cm[0], ld, &dist[0], &w[0], &gc[0], nk)
	return true
}

// gramToDistUpper turns the nk×nk Gram matrix g into distances on and right
// of the diagonal's 8×8 tiles, row i from column i&^7 (tensor.GramToDist's
// values), and zeroes the diagonal. It reports false, having written
// nothing, where it does not apply (nk a multiple of 8).
func gramToDistUpper(g []float32, nk int, nrm []float32) bool {
	if !useFMA || nk%8 != 0 || nk == 0 || len(g) < nk*nk || len(nrm) < nk {
		return false
	}
	gramToDistUpperAVX2(&g[0], nk, &nrm[0])
	return true
}

//go:noescape
func copyNTAVX2(dst, src *float32, n int)

// copyStream copies src into dst (len(dst) ≥ len(src)) with non-temporal
// stores where the build has them, so that a large result written once and
// read back much later (the kept distances) does not first read its lines
// from memory. It reports false, having written nothing, where it does not
// apply.
func copyStream(dst, src []float32) bool {
	n := len(src)
	if !useFMA || n < 64 || len(dst) < n {
		return false
	}
	h := int((32-uintptr(unsafe.Pointer(&dst[0]))%32)%32) / 4 // to a 32-byte boundary
	copy(dst[:h], src[:h])
	m := (n - h) &^ 7
	copyNTAVX2(&dst[h], &src[h], m)
	copy(dst[h+m:n], src[h+m:])
	return true
}

//go:noescape
func gatherRowsAVX2(dst, x *float32, ldx int, rows *int32, m, d int)

// gatherRowsAVX2Vec is gatherRows in one call on AVX2 hosts (cora_ml's
// first Soft Medoid layer, d = 64: −6–9% CPU of a forward+backward against
// a copy per row). Rows of other widths copy whole 8-float blocks into the
// next row's place, overwritten next (a masked tail, VMASKMOVPS, made d = 7
// no faster on Zen 3). It reports false where it does not apply.
func gatherRowsAVX2Vec(dst []float32, x *tensor.Dense, rows []int32) bool {
	d, m := x.Cols, len(rows)
	if !useFMA || d == 0 || m == 0 || len(dst) < m*d {
		return false
	}
	if d%8 != 0 {
		// Whole 8-float blocks past each row's end (the output layer, d =
		// 7), where they stay inside x and dst; the last row by copy.
		d8 := (d + 7) &^ 7
		if m < 2 || len(dst) < (m-2)*d+d8 {
			return false
		}
		for _, r := range rows {
			if r < 0 || int(r) >= x.Rows {
				return false // the portable copy fails on it as before (an index panic)
			}
		}
		for _, r := range rows[:m-1] {
			if int(r)*d+d8 > len(x.Data) {
				return false
			}
		}
		gatherRowsOverAVX2(&dst[0], &x.Data[0], d, &rows[0], m-1, d)
		copy(dst[(m-1)*d:m*d], x.Row(int(rows[m-1])))
		return true
	}
	for _, r := range rows {
		if r < 0 || int(r) >= x.Rows {
			return false // the portable copy fails on it as before (an index panic)
		}
	}
	gatherRowsAVX2(&dst[0], &x.Data[0], d, &rows[0], m, d)
	return true
}

//go:noescape
func gatherRowsOverAVX2(dst, x *float32, ldx int, rows *int32, m, d int)

// gramUpper is workspace.distances for nk a multiple of 16 and d of 8 on
// AVX2 hosts: the whole neighbourhood's transpose in ws.xt (d×nk), then
// the Gram matrix in blocks of six rows, each from the 16-column strip
// holding its first row's 8×8 diagonal tile to the last column (what
// mirrorTiles reads: 2,688 of 4,096 entries at nk = 64, the last block
// moved up over two rows), instead of 32-blocks whose six-row kernels end
// in four- or two-row ones. Every Gram entry is the same chain of fused
// multiply-adds over d, so the bits are those of the blocks. It reports
// false, having done nothing, where it does not apply.
func (ws *workspace) gramUpper(sel []int, a *tensor.CSR, x *tensor.Dense, dist []float32) bool {
	nk, d := len(sel), x.Cols
	if !useFMA || nk%16 != 0 || nk == 0 || d%8 != 0 || d == 0 || len(dist) < nk*nk {
		return false
	}
	ws.xs = grow(ws.xs, nk*d)
	ws.gatherInto(sel, a, x)
	ws.xt = grow(ws.xt, nk*d)
	xs, xt := ws.xs, ws.xt
	if !transposeTiles8(xt, nk, xs, d, nk, d) {
		panic("aggregate: gramUpper's transpose did not apply")
	}
	for i0 := 0; i0 < nk; i0 += 6 {
		i0 = min(i0, nk-6)
		c := i0 &^ 15
		gemm6x16LdAVX2(&dist[i0*nk+c], nk, &xs[i0*d], d, &xt[c], nk, d, nk-c)
	}
	ws.gramToDist(dist, nk)
	return true
}
