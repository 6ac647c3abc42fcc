package tensor

import (
	"fmt"
	"math"
)

func checkMul(op string, m, k1, k2, n int, dst *Dense, rows, cols int) {
	if k1 != k2 || dst.Rows != rows || dst.Cols != cols {
		panic(fmt.Sprintf("tensor.%s: shapes %d×%d · %d×%d into %s", op, m, k1, k2, n, dst.Shape()))
	}
}

// smallDim is the width below which a row is too short for vector kernels
// and the kernels switch to the other loop order.
const smallDim = 16

// MatMul computes dst = a·b (or dst += a·b when acc), parallel over rows of a.
func MatMul(dst, a, b *Dense, acc bool) {
	checkMul("MatMul", a.Rows, a.Cols, b.Rows, b.Cols, dst, a.Rows, b.Cols)
	if b.Cols <= 8 && a.Cols <= 256 && matMulNarrowVec(dst, a, b, acc, 0, 0) {
		// At most 8 output columns from a short inner dimension (a
		// hidden layer): one vector register per output row. Long inner
		// dimensions (dense n×n graphs) keep the dot-product path.
		Parallel(a.Rows, func(lo, hi int) { matMulNarrowVec(dst, a, b, acc, lo, hi) })
		return
	}
	if b.Cols < smallDim && a.Cols >= smallDim {
		// Narrow output: dot products of a's rows with b's columns.
		matMulBT(dst, a, transposeDense(b), acc)
		return
	}
	n := b.Cols
	Parallel(a.Rows, func(lo, hi int) {
		// One axpy of b's row k per nonzero a[i][k], k ascending: the
		// kernels keep a tile of output rows in registers across k.
		if axpyBlock(dst.Data[lo*n:hi*n], n, a.Data[lo*a.Cols:hi*a.Cols], a.Cols, 1, b.Data, n, hi-lo, a.Cols, n, acc) {
			return
		}
		for i := lo; i < hi; i++ {
			out := dst.Data[i*n : (i+1)*n]
			if !acc {
				clear(out)
			}
			arow := a.Data[i*a.Cols : (i+1)*a.Cols]
			for k, av := range arow {
				if av == 0 {
					continue
				}
				axpy(out, b.Data[k*n:(k+1)*n], av)
			}
		}
	})
}

// MatMulBT computes dst = a·bᵀ (or += when acc).
func MatMulBT(dst, a, b *Dense, acc bool) {
	checkMul("MatMulBT", a.Rows, a.Cols, b.Cols, b.Rows, dst, a.Rows, b.Rows)
	if a.Cols < smallDim && b.Rows >= smallDim {
		// Short inner dimension: a row of dst is a few axpys of bᵀ's rows.
		MatMul(dst, a, transposeDense(b), acc)
		return
	}
	matMulBT(dst, a, b, acc)
}

// matMulBT computes dst = a·bᵀ (+= when acc), every element one dot of a
// row of a with a row of b: with the vector kernels a row of a against
// 16 (or 8) rows of b at once, b packed once per call (dotRows).
func matMulBT(dst, a, b *Dense, acc bool) {
	if bt := dotPack(b); bt != nil {
		Parallel(a.Rows, func(lo, hi int) { dotRows(dst, a, bt, b.Rows, acc, lo, hi) })
		return
	}
	Parallel(a.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			arow := a.Row(i)
			out := dst.Row(i)
			for j := 0; j < b.Rows; j++ {
				s := dot(arow, b.Row(j))
				if acc {
					out[j] += s
				} else {
					out[j] = s
				}
			}
		}
	})
}

// MatMulAT computes dst = aᵀ·b (or += when acc). Each goroutine owns rows of
// dst and sums over the rows of a in order, so the result does not depend on
// the number of goroutines.
func MatMulAT(dst, a, b *Dense, acc bool) {
	checkMul("MatMulAT", a.Cols, a.Rows, b.Rows, b.Cols, dst, a.Cols, b.Cols)
	if b.Cols < smallDim {
		// Narrow b (e.g. the last layer's weight gradient): accumulate
		// dstᵀ[j] += b[r][j]·a_r over the rows r in order (axpys of a's
		// long rows), then transpose the small result.
		nt, m := b.Cols, a.Cols
		tr := make([]float32, nt*m)
		if hasGemmKernels {
			// The kernels keep tiles of dstᵀ's rows in registers, in
			// column groups of 16 in parallel (split at multiples of 8, so
			// every column keeps axpy's fused or unfused update).
			ParallelChunks((m+15)/16, 1, func(lo, hi int) {
				c0, c1 := lo*16, min(m, hi*16)
				axpyBlocked(tr[c0:], m, b.Data, 1, nt, a.Data[c0:], m, nt, a.Rows, c1-c0, false)
			})
		} else {
			for r := 0; r < a.Rows; r++ {
				arow := a.Data[r*m : (r+1)*m]
				for j, bv := range b.Data[r*nt : (r+1)*nt] {
					if bv != 0 {
						axpy(tr[j*m:(j+1)*m], arow, bv)
					}
				}
			}
		}
		for i := 0; i < m; i++ {
			out := dst.Data[i*nt : (i+1)*nt]
			for j := range out {
				if acc {
					out[j] += tr[j*m+i]
				} else {
					out[j] = tr[j*m+i]
				}
			}
		}
		return
	}
	n := b.Cols
	ParallelChunks(a.Cols, 8, func(lo, hi int) {
		// Output rows lo..hi are a's columns: the kernels read them as
		// rows with stride 1 between rows and a.Cols between steps, in
		// blocks of atBlock rows of a and b.
		if axpyBlocked(dst.Data[lo*n:hi*n], n, a.Data[lo:], 1, a.Cols, b.Data, n, hi-lo, a.Rows, n, acc) {
			return
		}
		for i := lo; i < hi; i++ {
			out := dst.Data[i*n : (i+1)*n]
			if !acc {
				clear(out)
			}
		}
		for r := 0; r < a.Rows; r++ {
			arow := a.Data[r*a.Cols : (r+1)*a.Cols]
			brow := b.Data[r*n : (r+1)*n]
			for i := lo; i < hi; i++ {
				if av := arow[i]; av != 0 {
					axpy(dst.Data[i*n:(i+1)*n], brow, av)
				}
			}
		}
	})
}

// transposeDense returns aᵀ as a new matrix.
func transposeDense(a *Dense) *Dense {
	t := NewDense(a.Cols, a.Rows)
	Parallel(a.Cols, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			row := t.Data[j*a.Rows : (j+1)*a.Rows]
			for i := range row {
				row[i] = a.Data[i*a.Cols+j]
			}
		}
	})
	return t
}

// SpMM computes dst = a·x (or += when acc) for CSR a, parallel over rows.
func SpMM(dst *Dense, a *CSR, x *Dense, acc bool) {
	if a.Cols != x.Rows || dst.Rows != a.Rows || dst.Cols != x.Cols {
		panic(fmt.Sprintf("tensor.SpMM: %d×%d CSR · %s into %s", a.Rows, a.Cols, x.Shape(), dst.Shape()))
	}
	n := x.Cols
	parallelByNnz(a, func(lo, hi int) {
		if spmmRows(dst, a, x, acc, lo, hi) {
			return
		}
		if n <= narrowCols {
			spmmNarrow(dst, a, x, acc, lo, hi)
			return
		}
		for i := lo; i < hi; i++ {
			out := dst.Data[i*n : (i+1)*n]
			if !acc {
				clear(out)
			}
			for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
				c := int(a.Indices[k])
				axpy(out, x.Data[c*n:(c+1)*n], a.Values[k])
			}
		}
	})
}

// SpMMValuesGrad accumulates into g[k] (one per entry of a) the gradient of
// L with respect to a's values for y = a·x: g[k] += dot(dy[row k], x[col k]).
func SpMMValuesGrad(g []float32, a *CSR, x, dy *Dense) {
	Parallel(a.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dyr := dy.Row(i)
			for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
				g[k] += dot(dyr, x.Row(int(a.Indices[k])))
			}
		}
	})
}

// AxpyDiff computes, element by element, d = c·(a − b), y += d and z −= d
// (the Soft Median's gradient through the distance to the median, into a
// neighbour's and the median's gradient). Each step is rounded to float32
// separately — nothing is fused — so every build gives the bits of the
// plain loop.
func AxpyDiff(y, z, a, b []float32, c float32) { axpyDiff(y, z, a, b, c) }

func axpyDiffGeneric(y, z, a, b []float32, c float32) {
	z, a, b = z[:len(y)], a[:len(y)], b[:len(y)]
	for t := range y {
		d := c * (a[t] - b[t])
		y[t] += d
		z[t] -= d
	}
}

// axpyGeneric computes y += alpha·x.
func axpyGeneric(y, x []float32, alpha float32) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += alpha * x[i]
		y[i+1] += alpha * x[i+1]
		y[i+2] += alpha * x[i+2]
		y[i+3] += alpha * x[i+3]
	}
	for ; i < len(y); i++ {
		y[i] += alpha * x[i]
	}
}

// dotGeneric returns Σ x_i y_i with four float32 partial sums.
func dotGeneric(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Axpy computes y += alpha·x.
func Axpy(y, x []float32, alpha float32) { axpy(y, x, alpha) }

// Dot returns Σ x_i y_i.
func Dot(x, y []float32) float32 { return dot(x, y) }

// sqDistGeneric returns Σ (x_i − y_i)² with four partial sums.
func sqDistGeneric(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		d0, d1, d2, d3 := x[i]-y[i], x[i+1]-y[i+1], x[i+2]-y[i+2], x[i+3]-y[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(x); i++ {
		d := x[i] - y[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// SqDist returns the squared Euclidean distance Σ (x_i − y_i)².
func SqDist(x, y []float32) float32 { return sqDist(x, y) }

// GemmSmall computes out = a·b (out m×n, a m×k, b k×n, all row-major
// slices) for the small dense blocks of the robust aggregations. acc adds
// to out instead of overwriting it.
func GemmSmall(out, a, b []float32, m, k, n int, acc bool) {
	if len(out) < m*n || len(a) < m*k || len(b) < k*n {
		panic(fmt.Sprintf("tensor.GemmSmall: %d×%d·%d×%d with buffers %d, %d, %d", m, k, k, n, len(a), len(b), len(out)))
	}
	if gemmSmallVec(out, a, b, m, k, n, acc) {
		return
	}
	for i := 0; i < m; i++ {
		o := out[i*n : (i+1)*n]
		if !acc {
			clear(o)
		}
		for t, av := range a[i*k : (i+1)*k] {
			if av != 0 {
				axpyGeneric(o, b[t*n:(t+1)*n], av)
			}
		}
	}
}

// GemmLd writes out (row stride ldc) = a·b (a m×k, b k×n, row-major) with
// GemmSmall's operations, so with its bits, straight into a strided
// matrix. It reports false, having written nothing, where the build has no
// vector kernel for the shape (AVX2 and n a multiple of 32; k ≥ 1).
func GemmLd(out []float32, ldc int, a, b []float32, m, k, n int) bool {
	return gemmLdVec(out, ldc, a, b, m, k, n)
}

// GemmLd6 is GemmLd with a (m×k, row stride lda) and b (k×n, row stride
// ldb) strided, for blocks of a larger product: the same chain of fused
// multiply-adds per element, so GemmLd's bits. It reports false, having
// written nothing, unless the build has the six-row AVX2 kernel (the
// default build on an AVX2 host), n is a multiple of 16, m ≥ 6 and k ≥ 1.
func GemmLd6(out []float32, ldc int, a []float32, lda int, b []float32, ldb, m, k, n int) bool {
	return gemmLd6Vec(out, ldc, a, lda, b, ldb, m, k, n)
}

// GramToDist turns Gram entries g_j = a·b_j into distances in place:
// g_j ← √max(0, na + nb_j − 2g_j), with na = ‖a‖² and nb_j = ‖b_j‖².
func GramToDist(g, nb []float32, na float32) {
	done := gramToDistVec(g, nb, na)
	for j := done; j < len(g); j++ {
		v := na + nb[j] - 2*g[j]
		if !(v > 0) {
			v = 0
		}
		g[j] = float32(math.Sqrt(float64(v)))
	}
}

// PairCoef fills dst[j] = (ga·w[j] + g[j]·wa) / dist[j] (0 where dist[j] ≤ 0)
// and returns Σ_j dst[j]: one row of the Soft Medoid's pairwise gradient
// coefficients.
func PairCoef(dst, dist, w, g []float32, ga, wa float32) float32 {
	done, sum := pairCoefVec(dst, dist, w, g, ga, wa)
	for j := done; j < len(dst); j++ {
		var v float32
		if dist[j] > 0 {
			v = (ga*w[j] + g[j]*wa) / dist[j]
		}
		dst[j] = v
		sum += v
	}
	return sum
}
