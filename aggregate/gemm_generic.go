//go:build !amd64 || (purego && !goexperiment.simd)

package aggregate

import "github.com/rgnn/rgnn/tensor"

// gemm512 is never called here (useAVX512 is false): gemm and gemmDirect
// (gemm.go) take the portable path.
func gemm512(out []float32, ldc int, a, b []float32, m, k, n int) {
	panic("aggregate.gemm512: no AVX-512 kernel in this build")
}

// hasTranspose16 reports whether transpose16 has a vector kernel here.
const hasTranspose16 = false

// hasTranspose8 reports whether transpose8 has a vector kernel here.
const hasTranspose8 = false

// transpose8 has no portable fast path.
func transpose8(dst []float32, ldd int, src []float32, lds int) bool { return false }

// transpose16 has no portable fast path.
func transpose16(dst []float32, ldd int, src []float32, lds int) bool { return false }

// weightedSum writes o = Σ_i c[i] · x[i*ldx : i*ldx+len(o)] for the rows
// i < len(c) (a vector–matrix product, cᵀX).
func weightedSum(o, x []float32, ldx int, c []float32) { weightedSumGeneric(o, x, ldx, c) }

// pairCoefRow writes dst[j] = (ga·w[j] + g[j]·wa) / dist[j] (0 where
// dist[j] ≤ 0), like tensor.PairCoef without the sum.
func pairCoefRow(dst, dist, w, g []float32, ga, wa float32) { tensor.PairCoef(dst, dist, w, g, ga, wa) }

// gemmDiag has no portable fast path.
func gemmDiag(out []float32, ldc int, a, b []float32, k int) bool { return false }

// useAVX512 reports whether the 16-lane kernels run (never here).
const useAVX512 = false

// gatherRowsVec has no portable fast path.
func gatherRowsVec(dst []float32, x *tensor.Dense, rows []int32) bool { return false }
