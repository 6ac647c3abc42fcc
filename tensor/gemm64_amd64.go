//go:build amd64 && !purego && !goexperiment.simd

package tensor

// Assembly tiles of gemm64_amd64.s (the callers in gemm64.go have checked
// every length).

//go:noescape
func gemm64Tile8x4AVX(out *float64, ldo int, a *float64, lda int, b *float64, ldb int, k int)

//go:noescape
func gemm64Tile1x4AVX(out *float64, a *float64, b *float64, ldb int, k int)

//go:noescape
func gemmT64Tile8x4AVX(c *float64, ldc int, a *float64, lda int, x *float64, ldx int, rows int)

//go:noescape
func gemmT64Tile4x4AVX(c *float64, ldc int, a *float64, lda int, x *float64, ldx int, rows int)

//go:noescape
func gemmT64Tile1x4AVX(c *float64, ldc int, a *float64, lda int, x *float64, ldx int, rows int)

// gemm64Vec is Gemm64 in 8×4 register tiles (w a multiple of 4, k ≥ 1).
func gemm64Vec(out []float64, ldo int, a []float64, lda int, b []float64, ldb, rows, k, w int) bool {
	if !useAVX2 {
		return false
	}
	i := 0
	for ; i+8 <= rows; i += 8 {
		for j := 0; j < w; j += 4 {
			gemm64Tile8x4AVX(&out[i*ldo+j], ldo, &a[i*lda], lda, &b[j], ldb, k)
		}
	}
	for ; i < rows; i++ {
		for j := 0; j < w; j += 4 {
			gemm64Tile1x4AVX(&out[i*ldo+j], &a[i*lda], &b[j], ldb, k)
		}
	}
	return true
}

// gemmT64Vec is GemmT64 in 8×4, 4×4 and 1×4 register tiles (w a multiple
// of 4, rows ≥ 1).
func gemmT64Vec(c []float64, ldc int, a []float64, lda int, x []float64, ldx, rows, k, w int) bool {
	if !useAVX2 {
		return false
	}
	for j := 0; j < w; j += 4 {
		s := 0
		for ; s+8 <= k; s += 8 {
			gemmT64Tile8x4AVX(&c[s*ldc+j], ldc, &a[s], lda, &x[j], ldx, rows)
		}
		if s+4 <= k {
			gemmT64Tile4x4AVX(&c[s*ldc+j], ldc, &a[s], lda, &x[j], ldx, rows)
			s += 4
		}
		for ; s < k; s++ {
			gemmT64Tile1x4AVX(&c[s*ldc+j], ldc, &a[s], lda, &x[j], ldx, rows)
		}
	}
	return true
}

//go:noescape
func rot64AVX(x, y *float64, n int, c, s, ns float64)

// rot64Vec rotates the longest prefix that is a multiple of 4 and returns
// its length.
func rot64Vec(x, y []float64, c, s float64) int {
	n := len(x) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	rot64AVX(&x[0], &y[0], n, c, s, -s)
	return n
}
