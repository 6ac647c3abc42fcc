package aggregate

import "github.com/rgnn/rgnn/tensor"

// gemm computes out = a·b (out m×n, a m×k, b k×n, row-major) like
// tensor.GemmSmall. With AVX-512 (gemm512), n a multiple of 32 and m of 4,
// four output rows × 32 columns stay in eight 16-lane registers across the
// inner dimension. Every output element is the same chain of fused
// multiply-adds over k in order as in the AVX2 kernel, so the bits do not
// depend on the vector width.
func gemm(out, a, b []float32, m, k, n int) {
	if !useAVX512 || n%32 != 0 || m%4 != 0 || len(out) < m*n || len(a) < m*k || len(b) < k*n {
		tensor.GemmSmall(out, a, b, m, k, n, false)
		return
	}
	gemm512(out, n, a, b, m, k, n)
}

// gemmDirect is gemmStrided's AVX-512 path: whole 4-row × 32-column tiles
// stored straight into out. It reports false when it does not apply (always
// without AVX-512).
func gemmDirect(out []float32, ldc int, a, b []float32, m, k, n, cols int) bool {
	if !useAVX512 || n%32 != 0 || m%4 != 0 || cols != n || len(a) < m*k || len(b) < k*n ||
		len(out) < (m-1)*ldc+n {
		return false
	}
	gemm512(out, ldc, a, b, m, k, n)
	return true
}

// gemmStrided computes the first cols columns of a·b (a m×k, b k×n) into
// out with row stride ldc: out[i*ldc+j] for i < m, j < cols. The kernels
// need whole vector widths, so unless the AVX-512 kernel can store directly
// the product goes through ws.blk.
func gemmStrided(out []float32, ldc int, a, b []float32, m, k, n, cols int, ws *workspace) {
	if gemmDirect(out, ldc, a, b, m, k, n, cols) {
		return
	}
	// Hosts without AVX-512: the same products stored straight into out.
	if cols == n && !useAVX512 && (gemmLd64(out, ldc, a, k, b, n, m, k, n) || tensor.GemmLd(out, ldc, a, b, m, k, n)) {
		return
	}
	ws.blk = grow(ws.blk, m*n)
	tensor.GemmSmall(ws.blk, a, b, m, k, n, false)
	for i := 0; i < m; i++ {
		copy(out[i*ldc:i*ldc+cols], ws.blk[i*n:i*n+cols])
	}
}

// weightedSumGeneric is weightedSum with tensor.Axpy.
func weightedSumGeneric(o, x []float32, ldx int, c []float32) {
	clear(o)
	if n := len(o); n < 8 {
		// tensor.Axpy's scalar path (a product, then a sum, each rounded)
		// inline: a call per row cost more than its n < 8 lanes (a Soft
		// Medoid layer's output over the classes).
		for i, ci := range c {
			for t, v := range x[i*ldx : i*ldx+n] {
				o[t] += ci * v
			}
		}
		return
	}
	for i, ci := range c {
		tensor.Axpy(o, x[i*ldx:i*ldx+len(o)], ci)
	}
}

// gatherRows copies row rows[i] of x into dst[i*d : (i+1)*d] (d = x.Cols)
// for every i: one vector call where the build has one, else a copy per
// row.
func gatherRows(dst []float32, x *tensor.Dense, rows []int32) {
	if gatherRowsVec(dst, x, rows) || gatherRowsAVX2Vec(dst, x, rows) {
		return
	}
	d := x.Cols
	for i, r := range rows {
		copy(dst[i*d:(i+1)*d], x.Row(int(r)))
	}
}
