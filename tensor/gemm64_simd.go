//go:build goexperiment.simd && amd64

package tensor

import "simd/archsimd"

// gemm64Vec is Gemm64 in 8×4 register tiles (w a multiple of 4, k ≥ 1):
// the operations of gemm64Tile8x4AVX in the assembly build.
func gemm64Vec(out []float64, ldo int, a []float64, lda int, b []float64, ldb, rows, k, w int) bool {
	if !useAVX2 {
		return false
	}
	i := 0
	for ; i+8 <= rows; i += 8 {
		a0, a1, a2, a3 := a[i*lda:], a[(i+1)*lda:], a[(i+2)*lda:], a[(i+3)*lda:]
		a4, a5, a6, a7 := a[(i+4)*lda:], a[(i+5)*lda:], a[(i+6)*lda:], a[(i+7)*lda:]
		a0, a1, a2, a3 = a0[:k], a1[:k], a2[:k], a3[:k]
		a4, a5, a6, a7 = a4[:k], a5[:k], a6[:k], a7[:k]
		for j := 0; j < w; j += 4 {
			var y0, y1, y2, y3, y4, y5, y6, y7 archsimd.Float64x4
			for s := 0; s < k; s++ {
				bs := archsimd.LoadFloat64x4Slice(b[s*ldb+j:])
				y0 = archsimd.BroadcastFloat64x4(a0[s]).MulAdd(bs, y0)
				y1 = archsimd.BroadcastFloat64x4(a1[s]).MulAdd(bs, y1)
				y2 = archsimd.BroadcastFloat64x4(a2[s]).MulAdd(bs, y2)
				y3 = archsimd.BroadcastFloat64x4(a3[s]).MulAdd(bs, y3)
				y4 = archsimd.BroadcastFloat64x4(a4[s]).MulAdd(bs, y4)
				y5 = archsimd.BroadcastFloat64x4(a5[s]).MulAdd(bs, y5)
				y6 = archsimd.BroadcastFloat64x4(a6[s]).MulAdd(bs, y6)
				y7 = archsimd.BroadcastFloat64x4(a7[s]).MulAdd(bs, y7)
			}
			y0.StoreSlice(out[i*ldo+j:])
			y1.StoreSlice(out[(i+1)*ldo+j:])
			y2.StoreSlice(out[(i+2)*ldo+j:])
			y3.StoreSlice(out[(i+3)*ldo+j:])
			y4.StoreSlice(out[(i+4)*ldo+j:])
			y5.StoreSlice(out[(i+5)*ldo+j:])
			y6.StoreSlice(out[(i+6)*ldo+j:])
			y7.StoreSlice(out[(i+7)*ldo+j:])
		}
	}
	for ; i < rows; i++ {
		ai := a[i*lda : i*lda+k]
		for j := 0; j < w; j += 4 {
			var y archsimd.Float64x4
			for s, av := range ai {
				y = archsimd.BroadcastFloat64x4(av).MulAdd(archsimd.LoadFloat64x4Slice(b[s*ldb+j:]), y)
			}
			y.StoreSlice(out[i*ldo+j:])
		}
	}
	archsimd.ClearAVXUpperBits()
	return true
}

// gemmT64Vec is GemmT64 in 8×4, 4×4 and 1×4 register tiles (w a multiple
// of 4, rows ≥ 1): the operations of the assembly build's tiles.
func gemmT64Vec(c []float64, ldc int, a []float64, lda int, x []float64, ldx, rows, k, w int) bool {
	if !useAVX2 {
		return false
	}
	for j := 0; j < w; j += 4 {
		s := 0
		for ; s+8 <= k; s += 8 {
			var c0, c1, c2, c3, c4, c5, c6, c7 archsimd.Float64x4
			for i := 0; i < rows; i++ {
				ai := a[i*lda+s : i*lda+s+8]
				xi := archsimd.LoadFloat64x4Slice(x[i*ldx+j:])
				c0 = archsimd.BroadcastFloat64x4(ai[0]).MulAdd(xi, c0)
				c1 = archsimd.BroadcastFloat64x4(ai[1]).MulAdd(xi, c1)
				c2 = archsimd.BroadcastFloat64x4(ai[2]).MulAdd(xi, c2)
				c3 = archsimd.BroadcastFloat64x4(ai[3]).MulAdd(xi, c3)
				c4 = archsimd.BroadcastFloat64x4(ai[4]).MulAdd(xi, c4)
				c5 = archsimd.BroadcastFloat64x4(ai[5]).MulAdd(xi, c5)
				c6 = archsimd.BroadcastFloat64x4(ai[6]).MulAdd(xi, c6)
				c7 = archsimd.BroadcastFloat64x4(ai[7]).MulAdd(xi, c7)
			}
			c0.StoreSlice(c[s*ldc+j:])
			c1.StoreSlice(c[(s+1)*ldc+j:])
			c2.StoreSlice(c[(s+2)*ldc+j:])
			c3.StoreSlice(c[(s+3)*ldc+j:])
			c4.StoreSlice(c[(s+4)*ldc+j:])
			c5.StoreSlice(c[(s+5)*ldc+j:])
			c6.StoreSlice(c[(s+6)*ldc+j:])
			c7.StoreSlice(c[(s+7)*ldc+j:])
		}
		if s+4 <= k {
			var c0, c1, c2, c3 archsimd.Float64x4
			for i := 0; i < rows; i++ {
				ai := a[i*lda+s : i*lda+s+4]
				xi := archsimd.LoadFloat64x4Slice(x[i*ldx+j:])
				c0 = archsimd.BroadcastFloat64x4(ai[0]).MulAdd(xi, c0)
				c1 = archsimd.BroadcastFloat64x4(ai[1]).MulAdd(xi, c1)
				c2 = archsimd.BroadcastFloat64x4(ai[2]).MulAdd(xi, c2)
				c3 = archsimd.BroadcastFloat64x4(ai[3]).MulAdd(xi, c3)
			}
			c0.StoreSlice(c[s*ldc+j:])
			c1.StoreSlice(c[(s+1)*ldc+j:])
			c2.StoreSlice(c[(s+2)*ldc+j:])
			c3.StoreSlice(c[(s+3)*ldc+j:])
			s += 4
		}
		for ; s < k; s++ {
			var c0 archsimd.Float64x4
			for i := 0; i < rows; i++ {
				c0 = archsimd.BroadcastFloat64x4(a[i*lda+s]).MulAdd(archsimd.LoadFloat64x4Slice(x[i*ldx+j:]), c0)
			}
			c0.StoreSlice(c[s*ldc+j:])
		}
	}
	archsimd.ClearAVXUpperBits()
	return true
}

// rot64Vec rotates the longest prefix that is a multiple of 4 (the
// operations of rot64AVX) and returns its length.
func rot64Vec(x, y []float64, c, s float64) int {
	n := len(x) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	y = y[:len(x)]
	vc, vs, vns := archsimd.BroadcastFloat64x4(c), archsimd.BroadcastFloat64x4(s), archsimd.BroadcastFloat64x4(-s)
	for k := 0; k < n; k += 4 {
		xv := archsimd.LoadFloat64x4Slice(x[k:])
		yv := archsimd.LoadFloat64x4Slice(y[k:])
		vs.MulAdd(xv, vc.Mul(yv)).StoreSlice(y[k:])
		vc.MulAdd(xv, vns.Mul(yv)).StoreSlice(x[k:])
	}
	archsimd.ClearAVXUpperBits()
	return n
}
