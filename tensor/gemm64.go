package tensor

import (
	"fmt"
	"math"
)

// Float64 matrix products for the low-rank operators (SymLowRank) and
// block Lanczos (linalg.TruncatedSVD). Every output element is one chain of
// fused multiply-adds in a fixed order, starting from 0, so the vector
// kernels (4 lanes over output columns: gemm64_amd64.s, gemm64_simd.go)
// give the bits of the portable ones below. Single-threaded: callers
// parallelise over output rows or over fixed chunks of the reduced rows.

// Gemm64 writes out[i*ldo+j] = Σ_{s<k} a[i*lda+s]·b[s*ldb+j] for i < rows,
// j < w: per element the chain y = fma(a_is, b_sj, y) over s ascending.
// With AVX2+FMA, widths that are multiples of 4 run in register tiles of
// 8 rows × 4 columns.
func Gemm64(out []float64, ldo int, a []float64, lda int, b []float64, ldb, rows, k, w int) {
	if rows <= 0 || w <= 0 {
		return
	}
	if k < 0 || ldo < w || lda < k || (k > 0 && ldb < w) || len(out) < (rows-1)*ldo+w ||
		len(a) < (rows-1)*lda+k || (k > 0 && len(b) < (k-1)*ldb+w) {
		panic(fmt.Sprintf("tensor.Gemm64: %d×%d · %d×%d with strides %d, %d, %d and lengths %d, %d, %d",
			rows, k, k, w, ldo, lda, ldb, len(out), len(a), len(b)))
	}
	if k == 0 || w%4 != 0 || !gemm64Vec(out, ldo, a, lda, b, ldb, rows, k, w) {
		gemm64Generic(out, ldo, a, lda, b, ldb, rows, k, w)
	}
}

// GemmT64 writes c[s*ldc+j] = Σ_{i<rows} a[i*lda+s]·x[i*ldx+j] for s < k,
// j < w (c = aᵀ·x): per element the chain c = fma(a_is, x_ij, c) over i
// ascending. With AVX2+FMA, widths that are multiples of 4 run in register
// tiles of 8 (then 4, then 1) rows of c × 4 columns.
func GemmT64(c []float64, ldc int, a []float64, lda int, x []float64, ldx, rows, k, w int) {
	if k <= 0 || w <= 0 {
		return
	}
	if rows < 0 || ldc < w || lda < k || ldx < w || len(c) < (k-1)*ldc+w ||
		(rows > 0 && (len(a) < (rows-1)*lda+k || len(x) < (rows-1)*ldx+w)) {
		panic(fmt.Sprintf("tensor.GemmT64: (%d×%d)ᵀ · %d×%d with strides %d, %d, %d and lengths %d, %d, %d",
			rows, k, rows, w, ldc, lda, ldx, len(c), len(a), len(x)))
	}
	if rows == 0 || w%4 != 0 || !gemmT64Vec(c, ldc, a, lda, x, ldx, rows, k, w) {
		gemmT64Generic(c, ldc, a, lda, x, ldx, rows, k, w)
	}
}

// gemm64Generic is Gemm64's portable kernel: 2 rows × 4 columns of chains
// in registers, then the tails one row and one column at a time (the
// blocking changes no bits).
func gemm64Generic(out []float64, ldo int, a []float64, lda int, b []float64, ldb, rows, k, w int) {
	i := 0
	for ; i+2 <= rows; i += 2 {
		a0, a1 := a[i*lda:i*lda+k], a[(i+1)*lda:(i+1)*lda+k]
		o0, o1 := out[i*ldo:i*ldo+w], out[(i+1)*ldo:(i+1)*ldo+w]
		j := 0
		for ; j+4 <= w; j += 4 {
			var y0, y1, y2, y3, z0, z1, z2, z3 float64
			for s, av := range a0 {
				bs := b[s*ldb+j : s*ldb+j+4]
				bv := a1[s]
				y0 = math.FMA(av, bs[0], y0)
				y1 = math.FMA(av, bs[1], y1)
				y2 = math.FMA(av, bs[2], y2)
				y3 = math.FMA(av, bs[3], y3)
				z0 = math.FMA(bv, bs[0], z0)
				z1 = math.FMA(bv, bs[1], z1)
				z2 = math.FMA(bv, bs[2], z2)
				z3 = math.FMA(bv, bs[3], z3)
			}
			o0[j], o0[j+1], o0[j+2], o0[j+3] = y0, y1, y2, y3
			o1[j], o1[j+1], o1[j+2], o1[j+3] = z0, z1, z2, z3
		}
		for ; j < w; j++ {
			o0[j] = gemm64One(a0, b, ldb, j)
			o1[j] = gemm64One(a1, b, ldb, j)
		}
	}
	for ; i < rows; i++ {
		ai := a[i*lda : i*lda+k]
		oi := out[i*ldo : i*ldo+w]
		for j := range oi {
			oi[j] = gemm64One(ai, b, ldb, j)
		}
	}
}

// gemm64One is one element of gemm64Generic.
func gemm64One(ai, b []float64, ldb, j int) float64 {
	var y float64
	for s, av := range ai {
		y = math.FMA(av, b[s*ldb+j], y)
	}
	return y
}

// gemmT64Generic is GemmT64's portable kernel: 2 rows of c × 4 columns of
// chains in registers, then the tails one element at a time (the blocking
// changes no bits).
func gemmT64Generic(c []float64, ldc int, a []float64, lda int, x []float64, ldx, rows, k, w int) {
	s := 0
	for ; s+2 <= k; s += 2 {
		j := 0
		for ; j+4 <= w; j += 4 {
			var y0, y1, y2, y3, z0, z1, z2, z3 float64
			for i := 0; i < rows; i++ {
				as := a[i*lda+s : i*lda+s+2]
				xi := x[i*ldx+j : i*ldx+j+4]
				y0 = math.FMA(as[0], xi[0], y0)
				y1 = math.FMA(as[0], xi[1], y1)
				y2 = math.FMA(as[0], xi[2], y2)
				y3 = math.FMA(as[0], xi[3], y3)
				z0 = math.FMA(as[1], xi[0], z0)
				z1 = math.FMA(as[1], xi[1], z1)
				z2 = math.FMA(as[1], xi[2], z2)
				z3 = math.FMA(as[1], xi[3], z3)
			}
			c0, c1 := c[s*ldc+j:s*ldc+j+4], c[(s+1)*ldc+j:(s+1)*ldc+j+4]
			c0[0], c0[1], c0[2], c0[3] = y0, y1, y2, y3
			c1[0], c1[1], c1[2], c1[3] = z0, z1, z2, z3
		}
		for ; j < w; j++ {
			c[s*ldc+j] = gemmT64One(a, lda, s, x, ldx, j, rows)
			c[(s+1)*ldc+j] = gemmT64One(a, lda, s+1, x, ldx, j, rows)
		}
	}
	for ; s < k; s++ {
		for j := 0; j < w; j++ {
			c[s*ldc+j] = gemmT64One(a, lda, s, x, ldx, j, rows)
		}
	}
}

// gemmT64One is one element of gemmT64Generic.
func gemmT64One(a []float64, lda, s int, x []float64, ldx, j, rows int) float64 {
	var y float64
	for i := 0; i < rows; i++ {
		y = math.FMA(a[i*lda+s], x[i*ldx+j], y)
	}
	return y
}

// Rot64 applies the plane rotation (c, s) to the vectors x and y:
// y_k ← s·x_k + c·y_k and x_k ← c·x_k − s·y_k (the old y_k), each as one
// fused multiply-add of a rounded product — fma(s, x, c·y) and
// fma(c, x, (−s)·y) — so the 4-wide kernels give the portable bits.
func Rot64(x, y []float64, c, s float64) {
	if len(y) != len(x) {
		panic(fmt.Sprintf("tensor.Rot64: lengths %d and %d", len(x), len(y)))
	}
	k := rot64Vec(x, y, c, s)
	rot64Generic(x[k:], y[k:], c, s)
}

func rot64Generic(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for k, xv := range x {
		h := y[k]
		y[k] = math.FMA(s, xv, c*h)
		x[k] = math.FMA(c, xv, (-s)*h)
	}
}
