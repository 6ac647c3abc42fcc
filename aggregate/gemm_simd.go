//go:build goexperiment.simd && amd64

package aggregate

import (
	"simd/archsimd"
	"unsafe"

	"github.com/rgnn/rgnn/tensor"
)

// useAVX512 selects the 16-lane kernel where the CPU has AVX-512F.
var useAVX512 = archsimd.X86.AVX512()

// gemm512 is the AVX-512 kernel: out (row stride ldc) = a·b, m a multiple
// of 4, n of 32, len(b) ≥ k·n (callers check).
//
// The rows of b are addressed with unsafe.Add from b's first element, each
// address inside b (t < k, j+32 ≤ n): the bounds checks of slicing b in
// the inner loop cost 20–30% of the kernel's time.
func gemm512(out []float32, ldc int, a, b []float32, m, k, n int) {
	if len(b) < k*n || n%32 != 0 {
		panic("aggregate.gemm512: b too short")
	}
	base := unsafe.Pointer(unsafe.SliceData(b))
	for i := 0; i < m; i += 4 {
		a0 := a[i*k : (i+1)*k]
		a1 := a[(i+1)*k : (i+2)*k][:len(a0)]
		a2 := a[(i+2)*k : (i+3)*k][:len(a0)]
		a3 := a[(i+3)*k : (i+4)*k][:len(a0)]
		for j := 0; j < n; j += 32 {
			var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x16
			for t, av := range a0 {
				p := unsafe.Add(base, (t*n+j)*4)
				b0 := archsimd.LoadFloat32x16((*[16]float32)(p))
				b1 := archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(p, 64)))
				v := archsimd.BroadcastFloat32x16(av)
				c00, c01 = b0.MulAdd(v, c00), b1.MulAdd(v, c01)
				v = archsimd.BroadcastFloat32x16(a1[t])
				c10, c11 = b0.MulAdd(v, c10), b1.MulAdd(v, c11)
				v = archsimd.BroadcastFloat32x16(a2[t])
				c20, c21 = b0.MulAdd(v, c20), b1.MulAdd(v, c21)
				v = archsimd.BroadcastFloat32x16(a3[t])
				c30, c31 = b0.MulAdd(v, c30), b1.MulAdd(v, c31)
			}
			c00.StoreSlice(out[i*ldc+j:])
			c01.StoreSlice(out[i*ldc+j+16:])
			c10.StoreSlice(out[(i+1)*ldc+j:])
			c11.StoreSlice(out[(i+1)*ldc+j+16:])
			c20.StoreSlice(out[(i+2)*ldc+j:])
			c21.StoreSlice(out[(i+2)*ldc+j+16:])
			c30.StoreSlice(out[(i+3)*ldc+j:])
			c31.StoreSlice(out[(i+3)*ldc+j+16:])
		}
	}
	archsimd.ClearAVXUpperBits()
}

// hasTranspose8 reports whether transpose8 has a vector kernel here (AVX2:
// the tiles of hosts without AVX-512).
var hasTranspose8 = useAVX2

// transpose8 writes the transpose of the 8×8 tile src (row stride lds) into
// dst (row stride ldd): dst[j*ldd+i] = src[i*lds+j] (the default build's
// transpose8AVX2: pairs of rows, pairs of pairs, then 128-bit halves). It
// reports false (and does nothing) without AVX2.
func transpose8(dst []float32, ldd int, src []float32, lds int) bool {
	if !useAVX2 {
		return false
	}
	_ = src[7*lds+7]
	_ = dst[7*ldd+7]
	r0, r1 := archsimd.LoadFloat32x8Slice(src[0:]), archsimd.LoadFloat32x8Slice(src[lds:])
	r2, r3 := archsimd.LoadFloat32x8Slice(src[2*lds:]), archsimd.LoadFloat32x8Slice(src[3*lds:])
	r4, r5 := archsimd.LoadFloat32x8Slice(src[4*lds:]), archsimd.LoadFloat32x8Slice(src[5*lds:])
	r6, r7 := archsimd.LoadFloat32x8Slice(src[6*lds:]), archsimd.LoadFloat32x8Slice(src[7*lds:])
	s0, s1 := r0.SelectFromPairGrouped(0, 1, 4, 5, r1), r0.SelectFromPairGrouped(2, 3, 6, 7, r1)
	s2, s3 := r2.SelectFromPairGrouped(0, 1, 4, 5, r3), r2.SelectFromPairGrouped(2, 3, 6, 7, r3)
	s4, s5 := r4.SelectFromPairGrouped(0, 1, 4, 5, r5), r4.SelectFromPairGrouped(2, 3, 6, 7, r5)
	s6, s7 := r6.SelectFromPairGrouped(0, 1, 4, 5, r7), r6.SelectFromPairGrouped(2, 3, 6, 7, r7)
	// u_c: rows 0–3 of columns c and c+4; u_{c+4}: rows 4–7 of the same.
	u0, u1 := s0.SelectFromPairGrouped(0, 2, 4, 6, s2), s0.SelectFromPairGrouped(1, 3, 5, 7, s2)
	u2, u3 := s1.SelectFromPairGrouped(0, 2, 4, 6, s3), s1.SelectFromPairGrouped(1, 3, 5, 7, s3)
	u4, u5 := s4.SelectFromPairGrouped(0, 2, 4, 6, s6), s4.SelectFromPairGrouped(1, 3, 5, 7, s6)
	u6, u7 := s5.SelectFromPairGrouped(0, 2, 4, 6, s7), s5.SelectFromPairGrouped(1, 3, 5, 7, s7)
	u0.Select128FromPair(0, 2, u4).StoreSlice(dst[0:])
	u1.Select128FromPair(0, 2, u5).StoreSlice(dst[ldd:])
	u2.Select128FromPair(0, 2, u6).StoreSlice(dst[2*ldd:])
	u3.Select128FromPair(0, 2, u7).StoreSlice(dst[3*ldd:])
	u0.Select128FromPair(1, 3, u4).StoreSlice(dst[4*ldd:])
	u1.Select128FromPair(1, 3, u5).StoreSlice(dst[5*ldd:])
	u2.Select128FromPair(1, 3, u6).StoreSlice(dst[6*ldd:])
	u3.Select128FromPair(1, 3, u7).StoreSlice(dst[7*ldd:])
	archsimd.ClearAVXUpperBits()
	return true
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
	// Unrolled so that the sixteen rows stay in registers.
	r0 := archsimd.LoadFloat32x16Slice(src[0:])
	r1 := archsimd.LoadFloat32x16Slice(src[lds:])
	r2 := archsimd.LoadFloat32x16Slice(src[2*lds:])
	r3 := archsimd.LoadFloat32x16Slice(src[3*lds:])
	r4 := archsimd.LoadFloat32x16Slice(src[4*lds:])
	r5 := archsimd.LoadFloat32x16Slice(src[5*lds:])
	r6 := archsimd.LoadFloat32x16Slice(src[6*lds:])
	r7 := archsimd.LoadFloat32x16Slice(src[7*lds:])
	r8 := archsimd.LoadFloat32x16Slice(src[8*lds:])
	r9 := archsimd.LoadFloat32x16Slice(src[9*lds:])
	r10 := archsimd.LoadFloat32x16Slice(src[10*lds:])
	r11 := archsimd.LoadFloat32x16Slice(src[11*lds:])
	r12 := archsimd.LoadFloat32x16Slice(src[12*lds:])
	r13 := archsimd.LoadFloat32x16Slice(src[13*lds:])
	r14 := archsimd.LoadFloat32x16Slice(src[14*lds:])
	r15 := archsimd.LoadFloat32x16Slice(src[15*lds:])
	lo, hi := archsimd.LoadUint32x16Slice(transpose16Idx[0][0][:]), archsimd.LoadUint32x16Slice(transpose16Idx[0][1][:])
	r0, r8 = r0.ConcatPermute(r8, lo), r0.ConcatPermute(r8, hi)
	r1, r9 = r1.ConcatPermute(r9, lo), r1.ConcatPermute(r9, hi)
	r2, r10 = r2.ConcatPermute(r10, lo), r2.ConcatPermute(r10, hi)
	r3, r11 = r3.ConcatPermute(r11, lo), r3.ConcatPermute(r11, hi)
	r4, r12 = r4.ConcatPermute(r12, lo), r4.ConcatPermute(r12, hi)
	r5, r13 = r5.ConcatPermute(r13, lo), r5.ConcatPermute(r13, hi)
	r6, r14 = r6.ConcatPermute(r14, lo), r6.ConcatPermute(r14, hi)
	r7, r15 = r7.ConcatPermute(r15, lo), r7.ConcatPermute(r15, hi)
	lo, hi = archsimd.LoadUint32x16Slice(transpose16Idx[1][0][:]), archsimd.LoadUint32x16Slice(transpose16Idx[1][1][:])
	r0, r4 = r0.ConcatPermute(r4, lo), r0.ConcatPermute(r4, hi)
	r1, r5 = r1.ConcatPermute(r5, lo), r1.ConcatPermute(r5, hi)
	r2, r6 = r2.ConcatPermute(r6, lo), r2.ConcatPermute(r6, hi)
	r3, r7 = r3.ConcatPermute(r7, lo), r3.ConcatPermute(r7, hi)
	r8, r12 = r8.ConcatPermute(r12, lo), r8.ConcatPermute(r12, hi)
	r9, r13 = r9.ConcatPermute(r13, lo), r9.ConcatPermute(r13, hi)
	r10, r14 = r10.ConcatPermute(r14, lo), r10.ConcatPermute(r14, hi)
	r11, r15 = r11.ConcatPermute(r15, lo), r11.ConcatPermute(r15, hi)
	lo, hi = archsimd.LoadUint32x16Slice(transpose16Idx[2][0][:]), archsimd.LoadUint32x16Slice(transpose16Idx[2][1][:])
	r0, r2 = r0.ConcatPermute(r2, lo), r0.ConcatPermute(r2, hi)
	r1, r3 = r1.ConcatPermute(r3, lo), r1.ConcatPermute(r3, hi)
	r4, r6 = r4.ConcatPermute(r6, lo), r4.ConcatPermute(r6, hi)
	r5, r7 = r5.ConcatPermute(r7, lo), r5.ConcatPermute(r7, hi)
	r8, r10 = r8.ConcatPermute(r10, lo), r8.ConcatPermute(r10, hi)
	r9, r11 = r9.ConcatPermute(r11, lo), r9.ConcatPermute(r11, hi)
	r12, r14 = r12.ConcatPermute(r14, lo), r12.ConcatPermute(r14, hi)
	r13, r15 = r13.ConcatPermute(r15, lo), r13.ConcatPermute(r15, hi)
	lo, hi = archsimd.LoadUint32x16Slice(transpose16Idx[3][0][:]), archsimd.LoadUint32x16Slice(transpose16Idx[3][1][:])
	r0, r1 = r0.ConcatPermute(r1, lo), r0.ConcatPermute(r1, hi)
	r2, r3 = r2.ConcatPermute(r3, lo), r2.ConcatPermute(r3, hi)
	r4, r5 = r4.ConcatPermute(r5, lo), r4.ConcatPermute(r5, hi)
	r6, r7 = r6.ConcatPermute(r7, lo), r6.ConcatPermute(r7, hi)
	r8, r9 = r8.ConcatPermute(r9, lo), r8.ConcatPermute(r9, hi)
	r10, r11 = r10.ConcatPermute(r11, lo), r10.ConcatPermute(r11, hi)
	r12, r13 = r12.ConcatPermute(r13, lo), r12.ConcatPermute(r13, hi)
	r14, r15 = r14.ConcatPermute(r15, lo), r14.ConcatPermute(r15, hi)
	r0.StoreSlice(dst[0:])
	r1.StoreSlice(dst[ldd:])
	r2.StoreSlice(dst[2*ldd:])
	r3.StoreSlice(dst[3*ldd:])
	r4.StoreSlice(dst[4*ldd:])
	r5.StoreSlice(dst[5*ldd:])
	r6.StoreSlice(dst[6*ldd:])
	r7.StoreSlice(dst[7*ldd:])
	r8.StoreSlice(dst[8*ldd:])
	r9.StoreSlice(dst[9*ldd:])
	r10.StoreSlice(dst[10*ldd:])
	r11.StoreSlice(dst[11*ldd:])
	r12.StoreSlice(dst[12*ldd:])
	r13.StoreSlice(dst[13*ldd:])
	r14.StoreSlice(dst[14*ldd:])
	r15.StoreSlice(dst[15*ldd:])
	archsimd.ClearAVXUpperBits()
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
			weightedSum8(o, x, ldx, c) // hosts with AVX2 only
			return
		}
		weightedSumGeneric(o, x, ldx, c)
		return
	}
	_ = x[(m-1)*ldx+n-1]
	j := 0
	for ; j+64 <= n; j += 64 {
		var a0, a1, a2, a3 archsimd.Float32x16
		for i, ci := range c {
			v := archsimd.BroadcastFloat32x16(ci)
			r := x[i*ldx+j : i*ldx+j+64]
			a0 = archsimd.LoadFloat32x16Slice(r[0:]).MulAdd(v, a0)
			a1 = archsimd.LoadFloat32x16Slice(r[16:]).MulAdd(v, a1)
			a2 = archsimd.LoadFloat32x16Slice(r[32:]).MulAdd(v, a2)
			a3 = archsimd.LoadFloat32x16Slice(r[48:]).MulAdd(v, a3)
		}
		a0.StoreSlice(o[j:])
		a1.StoreSlice(o[j+16:])
		a2.StoreSlice(o[j+32:])
		a3.StoreSlice(o[j+48:])
	}
	for ; j < n; j += 16 {
		var a0 archsimd.Float32x16
		for i, ci := range c {
			a0 = archsimd.LoadFloat32x16Slice(x[i*ldx+j:]).MulAdd(archsimd.BroadcastFloat32x16(ci), a0)
		}
		a0.StoreSlice(o[j:])
	}
	archsimd.ClearAVXUpperBits()
}

// weightedSum8 is weightedSum in 8-lane registers (len(o) a multiple of 8):
// the sums of 32, then 8 columns stay in registers while the rows stream
// past, each element the chain of fused multiply-adds over i in order
// (the default build's weightedSumAVX2).
//
// Deliberate speed copy of weightedSum's 16-lane loops: archsimd's
// Float32x8 and Float32x16 are distinct types with no common interface the
// compiler turns into vector instructions (a generic body would call each
// MulAdd through a dictionary), so each width has its own loops.
func weightedSum8(o, x []float32, ldx int, c []float32) {
	n, m := len(o), len(c)
	_ = x[(m-1)*ldx+n-1]
	j := 0
	for ; j+32 <= n; j += 32 {
		var a0, a1, a2, a3 archsimd.Float32x8
		for i, ci := range c {
			v := archsimd.BroadcastFloat32x8(ci)
			r := x[i*ldx+j : i*ldx+j+32]
			a0 = archsimd.LoadFloat32x8Slice(r[0:]).MulAdd(v, a0)
			a1 = archsimd.LoadFloat32x8Slice(r[8:]).MulAdd(v, a1)
			a2 = archsimd.LoadFloat32x8Slice(r[16:]).MulAdd(v, a2)
			a3 = archsimd.LoadFloat32x8Slice(r[24:]).MulAdd(v, a3)
		}
		a0.StoreSlice(o[j:])
		a1.StoreSlice(o[j+8:])
		a2.StoreSlice(o[j+16:])
		a3.StoreSlice(o[j+24:])
	}
	for ; j < n; j += 8 {
		var a0 archsimd.Float32x8
		for i, ci := range c {
			a0 = archsimd.LoadFloat32x8Slice(x[i*ldx+j:]).MulAdd(archsimd.BroadcastFloat32x8(ci), a0)
		}
		a0.StoreSlice(o[j:])
	}
	archsimd.ClearAVXUpperBits()
}

// pairCoefRow writes dst[j] = (ga·w[j] + g[j]·wa) / dist[j] (0 where
// dist[j] ≤ 0), like tensor.PairCoef without the sum, 16 lanes at a time
// with AVX-512 (len(dst) a multiple of 16 there). The two products are
// rounded separately and then added, so entry (a, b) and entry (b, a) of
// the pairwise matrix are the same bits.
func pairCoefRow(dst, dist, w, g []float32, ga, wa float32) {
	n := len(dst)
	if !useAVX512 || n%16 != 0 {
		tensor.PairCoef(dst, dist, w, g, ga, wa)
		return
	}
	dist, w, g = dist[:n], w[:n], g[:n]
	a := archsimd.BroadcastFloat32x16(ga)
	b := archsimd.BroadcastFloat32x16(wa)
	var zero archsimd.Float32x16
	for j := 0; j < n; j += 16 {
		d := archsimd.LoadFloat32x16Slice(dist[j:])
		num := archsimd.LoadFloat32x16Slice(w[j:]).Mul(a).Add(archsimd.LoadFloat32x16Slice(g[j:]).Mul(b))
		num.Div(d).Masked(d.Greater(zero)).StoreSlice(dst[j:])
	}
	archsimd.ClearAVXUpperBits()
}

// gemmDiag computes a diagonal 32×32 block of the Gram matrix (a = the 32
// rows, 32×k; b = their transpose, k×32) into out (row stride ldc) without
// its lower-left 16×16 tile, which the callers do not read: rows 0–15 × all
// 32 columns and rows 16–31 × columns 16–31, 5/6 of the work. Each element
// is the same chain of fused multiply-adds as gemm's. It reports false
// without AVX-512.
func gemmDiag(out []float32, ldc int, a, b []float32, k int) bool {
	if !useAVX512 || len(a) < 32*k || len(b) < 32*k || len(out) < 31*ldc+32 {
		return false
	}
	gemm512(out, ldc, a, b, 16, k, 32)
	a = a[16*k:]
	out = out[16*ldc+16:]
	for i := 0; i < 16; i += 8 {
		a0, a1 := a[i*k:(i+1)*k], a[(i+1)*k:(i+2)*k]
		a2, a3 := a[(i+2)*k:(i+3)*k], a[(i+3)*k:(i+4)*k]
		a4, a5 := a[(i+4)*k:(i+5)*k], a[(i+5)*k:(i+6)*k]
		a6, a7 := a[(i+6)*k:(i+7)*k], a[(i+7)*k:(i+8)*k]
		var c0, c1, c2, c3, c4, c5, c6, c7 archsimd.Float32x16
		base := unsafe.Pointer(unsafe.SliceData(b)) // len(b) ≥ 32k: checked above
		for t := 0; t < k; t++ {
			bv := archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(base, (t*32+16)*4)))
			c0 = bv.MulAdd(archsimd.BroadcastFloat32x16(a0[t]), c0)
			c1 = bv.MulAdd(archsimd.BroadcastFloat32x16(a1[t]), c1)
			c2 = bv.MulAdd(archsimd.BroadcastFloat32x16(a2[t]), c2)
			c3 = bv.MulAdd(archsimd.BroadcastFloat32x16(a3[t]), c3)
			c4 = bv.MulAdd(archsimd.BroadcastFloat32x16(a4[t]), c4)
			c5 = bv.MulAdd(archsimd.BroadcastFloat32x16(a5[t]), c5)
			c6 = bv.MulAdd(archsimd.BroadcastFloat32x16(a6[t]), c6)
			c7 = bv.MulAdd(archsimd.BroadcastFloat32x16(a7[t]), c7)
		}
		c0.StoreSlice(out[i*ldc:])
		c1.StoreSlice(out[(i+1)*ldc:])
		c2.StoreSlice(out[(i+2)*ldc:])
		c3.StoreSlice(out[(i+3)*ldc:])
		c4.StoreSlice(out[(i+4)*ldc:])
		c5.StoreSlice(out[(i+5)*ldc:])
		c6.StoreSlice(out[(i+6)*ldc:])
		c7.StoreSlice(out[(i+7)*ldc:])
	}
	archsimd.ClearAVXUpperBits()
	return true
}

// gatherRowsVec: the SIMD build copies row by row (gatherRows).
func gatherRowsVec(dst []float32, x *tensor.Dense, rows []int32) bool { return false }
