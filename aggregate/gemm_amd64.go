//go:build amd64 && !purego && !goexperiment.simd

package aggregate

import (
	"golang.org/x/sys/cpu"

	"github.com/rgnn/rgnn/tensor"
)

// The default build's AVX-512 kernels (gemm_amd64.s). Each performs the
// same float32 operations in the same order as the GOEXPERIMENT=simd
// build's kernel of the same name (gemm_simd.go), so both builds give the
// same bits; without AVX-512 they fall back to package tensor's kernels
// (AVX2 assembly), like the SIMD build.

// useAVX512 selects the 16-lane kernels where the CPU has AVX-512 (F, CD,
// BW, DQ, VL: what the SIMD build's archsimd.X86.AVX512 requires).
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512CD && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL && cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func gemm512AVX(out *float32, ldc int, a, b *float32, m, k, n int)

//go:noescape
func fmaPeakAVX(n int)

//go:noescape
func gemm8x16AVX(out *float32, ldc int, a *float32, k int, b *float32)

//go:noescape
func transpose16AVX(dst *float32, ldd int, src *float32, lds int, idx *[4][2][16]uint32)

//go:noescape
func transpose8AVX2(dst *float32, ldd int, src *float32, lds int)

//go:noescape
func weightedSumAVX2(o, x *float32, ldx, n int, c *float32, m int)

//go:noescape
func weightedSum512AVX(o, x *float32, ldx, n int, c *float32, m int)

//go:noescape
func gatherRows512AVX(dst, x *float32, ldx int, rows *int32, m, d int)

//go:noescape
func pairCoef512AVX(dst, dist, w, gr *float32, n int, ga, wa float32)

// gemm512 is the AVX-512 kernel: out (row stride ldc) = a·b, m a multiple
// of 4, n of 32, buffers checked by the callers.
func gemm512(out []float32, ldc int, a, b []float32, m, k, n int) {
	if m == 0 || n == 0 {
		return
	}
	if len(b) < k*n || len(a) < m*k || n%32 != 0 || m%4 != 0 || ldc < n || len(out) < (m-1)*ldc+n {
		panic("aggregate.gemm512: buffers too short")
	}
	var zero float32
	pa, pb := &zero, &zero
	if k > 0 {
		pa, pb = &a[0], &b[0]
	}
	gemm512AVX(&out[0], ldc, pa, pb, m, k, n)
}

// hasTranspose16 reports whether transpose16 has a vector kernel here.
var hasTranspose16 = useAVX512

// transpose16 writes the transpose of the 16×16 tile src (row stride lds)
// into dst (row stride ldd): dst[j*ldd+i] = src[i*lds+j]. It reports false
// (and does nothing) without AVX-512, where callers use scalar code.
func transpose16(dst []float32, ldd int, src []float32, lds int) bool {
	if !useAVX512 {
		return false
	}
	_ = src[15*lds+15]
	_ = dst[15*ldd+15]
	transpose16AVX(&dst[0], ldd, &src[0], lds, &transpose16Idx)
	return true
}

// hasTranspose8 reports whether transpose8 has a vector kernel here (AVX2:
// the tiles of hosts without AVX-512).
var hasTranspose8 = useAVX2

// transpose8 writes the transpose of the 8×8 tile src (row stride lds) into
// dst (row stride ldd): dst[j*ldd+i] = src[i*lds+j]. It reports false (and
// does nothing) without AVX2, where callers use scalar code.
func transpose8(dst []float32, ldd int, src []float32, lds int) bool {
	if !useAVX2 {
		return false
	}
	_ = src[7*lds+7]
	_ = dst[7*ldd+7]
	transpose8AVX2(&dst[0], ldd, &src[0], lds)
	return true
}

// weightedSum writes o = Σ_i c[i] · x[i*ldx : i*ldx+len(o)] for the rows
// i < len(c) (a vector–matrix product, cᵀX). With AVX-512 and len(o) a
// multiple of 16 the output stays in registers across the rows: each output
// element is the chain of fused multiply-adds over i in order.
func weightedSum(o, x []float32, ldx int, c []float32) {
	n, m := len(o), len(c)
	if !useAVX512 || n%16 != 0 || m == 0 || n == 0 {
		if useAVX2 && !useAVX512 && n%8 == 0 && m > 0 && n > 0 {
			// Hosts with AVX2 only: the same chains in 8-lane registers.
			_ = x[(m-1)*ldx+n-1]
			weightedSumAVX2(&o[0], &x[0], ldx, n, &c[0], m)
			return
		}
		weightedSumGeneric(o, x, ldx, c)
		return
	}
	_ = x[(m-1)*ldx+n-1]
	weightedSum512AVX(&o[0], &x[0], ldx, n, &c[0], m)
}

// pairCoefRow writes dst[j] = (ga·w[j] + g[j]·wa) / dist[j] (0 where
// dist[j] ≤ 0), like tensor.PairCoef without the sum, 16 lanes at a time
// with AVX-512 (len(dst) a multiple of 16 there). The two products are
// rounded separately and then added, so entry (a, b) and entry (b, a) of
// the pairwise matrix are the same bits.
func pairCoefRow(dst, dist, w, g []float32, ga, wa float32) {
	n := len(dst)
	if !useAVX512 || n%16 != 0 || n == 0 {
		tensor.PairCoef(dst, dist, w, g, ga, wa)
		return
	}
	_, _, _ = dist[n-1], w[n-1], g[n-1]
	pairCoef512AVX(&dst[0], &dist[0], &w[0], &g[0], n, ga, wa)
}

// gemmDiag computes a diagonal 32×32 block of the Gram matrix (a = the 32
// rows, 32×k; b = their transpose, k×32) into out (row stride ldc) without
// its lower-left 16×16 tile, which the callers do not read: rows 0–15 × all
// 32 columns and rows 16–31 × columns 16–31, 5/6 of the work. Each element
// is the same chain of fused multiply-adds as gemm's. Without AVX-512 the
// six-row AVX2 kernel (tensor.GemmLd6) does the same (rows 16–31 in 16
// columns), with the bits of the whole block's tensor.GemmLd. It reports
// false where neither applies.
func gemmDiag(out []float32, ldc int, a, b []float32, k int) bool {
	if len(a) < 32*k || len(b) < 32*k || len(out) < 31*ldc+32 {
		return false
	}
	if !useAVX512 {
		if k > 0 && gemmLd64(out, ldc, a, k, b, 32, 16, k, 32) {
			return gemmLd64(out[16*ldc+16:], ldc, a[16*k:], k, b[16:], 32, 16, k, 16)
		}
		return k > 0 && tensor.GemmLd6(out, ldc, a, k, b, 32, 16, k, 32) &&
			tensor.GemmLd6(out[16*ldc+16:], ldc, a[16*k:], k, b[16:], 32, 16, k, 16)
	}
	gemm512(out, ldc, a, b, 16, k, 32)
	if k == 0 {
		for i := 16; i < 32; i++ {
			clear(out[i*ldc+16 : i*ldc+32])
		}
		return true
	}
	a = a[16*k:]
	gemm8x16AVX(&out[16*ldc+16], ldc, &a[0], k, &b[16])
	gemm8x16AVX(&out[24*ldc+16], ldc, &a[8*k], k, &b[16])
	return true
}

// gatherRowsVec is gatherRows' AVX-512 path (rows of a multiple of 16
// floats); it reports false where it does not apply.
func gatherRowsVec(dst []float32, x *tensor.Dense, rows []int32) bool {
	d, m := x.Cols, len(rows)
	if !useAVX512 || d == 0 || d%16 != 0 || m == 0 || len(dst) < m*d {
		return false
	}
	for _, r := range rows {
		if r < 0 || int(r) >= x.Rows {
			return false // the portable copy fails on it as before (an index panic)
		}
	}
	gatherRows512AVX(&dst[0], &x.Data[0], d, &rows[0], m, d)
	return true
}
