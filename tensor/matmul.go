package tensor

import "fmt"

// The dense products' register-blocked kernels (axpyBlock, dotRows) are
// per build: assembly (matmul_amd64.go), archsimd (matmul_simd.go), none
// in the portable build (matmul_generic.go), where MatMul, MatMulAT and
// MatMulBT keep their loops of axpy and dot calls — the reference whose
// bits every kernel reproduces.

// atBlock is the number of rows of a and b that MatMulAT's kernels run
// through before the next tile of output rows: a block of both stays in
// L2, so the tiles after the first read it from there.
const atBlock = 512

// checkAxpyBlock panics unless every element axpyBlock reads or writes lies
// inside its slice.
func checkAxpyBlock(c []float32, ldc int, a []float32, sai, sat int, b []float32, ldb, rows, tn, n int) {
	if ldc < n || ldb < n || sai < 0 || sat < 0 || tn < 0 ||
		len(c) < (rows-1)*ldc+n ||
		tn > 0 && (len(a) <= (rows-1)*sai+(tn-1)*sat || len(b) < (tn-1)*ldb+n) {
		panic(fmt.Sprintf("tensor: axpy block of %d×%d over %d steps (strides %d, %d, %d, %d) exceeds its buffers (%d, %d, %d)",
			rows, n, tn, ldc, sai, sat, ldb, len(c), len(a), len(b)))
	}
}

// axpyBlockDone is the start every build's axpyBlock kernel shares: it
// checks the buffers (checkAxpyBlock) and does the calls without products
// (no rows or columns: nothing; tn = 0: c's block cleared unless load). It
// reports whether that was all, leaving nothing for the kernel.
func axpyBlockDone(c []float32, ldc int, a []float32, sai, sat int, b []float32, ldb, rows, tn, n int, load bool) bool {
	if rows <= 0 || n <= 0 {
		return true
	}
	checkAxpyBlock(c, ldc, a, sai, sat, b, ldb, rows, tn, n)
	if tn == 0 {
		if !load {
			for r := range rows {
				clear(c[r*ldc : r*ldc+n])
			}
		}
		return true
	}
	return false
}

// axpyBlocked is axpyBlock over t in blocks of atBlock (the blocks after
// the first add to c), so that every tile of output rows reads a block of
// a and b that the previous tile left in the cache. It reports false when
// there is no vector kernel.
func axpyBlocked(c []float32, ldc int, a []float32, sai, sat int, b []float32, ldb, rows, tn, n int, load bool) bool {
	if !hasGemmKernels {
		return false
	}
	if tn == 0 {
		return axpyBlock(c, ldc, a, sai, sat, b, ldb, rows, 0, n, load)
	}
	for t0 := 0; t0 < tn; t0 += atBlock {
		t1 := min(tn, t0+atBlock)
		axpyBlock(c, ldc, a[t0*sat:], sai, sat, b[t0*ldb:], ldb, rows, t1-t0, n, load || t0 > 0)
	}
	return true
}

// packColumns returns bᵀ in blocks of w columns: p[blk][t][l] =
// b[blk·w + l][t], zero past b's last row.
func packColumns(b *Dense, w int) []float32 {
	nb := (b.Rows + w - 1) / w
	k := b.Cols
	p := make([]float32, nb*k*w)
	for j := 0; j < b.Rows; j++ {
		base := (j/w)*k*w + j%w
		for t, v := range b.Data[j*k : (j+1)*k] {
			p[base+t*w] = v
		}
	}
	return p
}
