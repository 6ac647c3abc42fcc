//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"

// AVX-512 kernels of gemm_amd64.go (Go operand order: the reverse of
// Intel's). Zeroing a Y register with VEX VXORPS clears its whole Z register.

// func gemm512AVX(out *float32, ldc int, a, b *float32, m, k, n int)
//
// out (row stride ldc) = a (m×k) · b (k×n), m a multiple of 4, n of 32: per
// 4 rows × 32 columns eight accumulators Z0–Z7, one fused multiply-add
// chain over t per element.
TEXT ·gemm512AVX(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	MOVQ m+32(FP), R9
	MOVQ k+40(FP), CX
	MOVQ n+48(FP), R10
	SHLQ $2, R10
	MOVQ CX, R11
	SHLQ $2, R11

g5i:
	CMPQ R9, $0
	JLE  g5done
	XORQ R14, R14

g5j:
	CMPQ   R14, R10
	JGE    g5inext
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ  CX, CX
	JZ     g5store
	MOVQ   SI, AX
	LEAQ   (SI)(R11*2), BX
	LEAQ   (SI)(R11*1), R12
	LEAQ   (DX)(R14*1), R15

g5t:
	VMOVUPS      (R15), Z8
	VMOVUPS      64(R15), Z9
	VBROADCASTSS (AX), Z10
	VFMADD231PS  Z8, Z10, Z0
	VFMADD231PS  Z9, Z10, Z1
	VBROADCASTSS (AX)(R11*1), Z11
	VFMADD231PS  Z8, Z11, Z2
	VFMADD231PS  Z9, Z11, Z3
	VBROADCASTSS (BX), Z12
	VFMADD231PS  Z8, Z12, Z4
	VFMADD231PS  Z9, Z12, Z5
	VBROADCASTSS (BX)(R11*1), Z13
	VFMADD231PS  Z8, Z13, Z6
	VFMADD231PS  Z9, Z13, Z7
	ADDQ         R10, R15
	ADDQ         $4, AX
	ADDQ         $4, BX
	CMPQ         AX, R12
	JLT          g5t

g5store:
	LEAQ    (DI)(R14*1), R13
	VMOVUPS Z0, (R13)
	VMOVUPS Z1, 64(R13)
	ADDQ    R8, R13
	VMOVUPS Z2, (R13)
	VMOVUPS Z3, 64(R13)
	ADDQ    R8, R13
	VMOVUPS Z4, (R13)
	VMOVUPS Z5, 64(R13)
	ADDQ    R8, R13
	VMOVUPS Z6, (R13)
	VMOVUPS Z7, 64(R13)
	ADDQ    $128, R14
	JMP     g5j

g5inext:
	LEAQ (DI)(R8*4), DI
	LEAQ (SI)(R11*4), SI
	SUBQ $4, R9
	JMP  g5i

g5done:
	VZEROUPPER
	RET

// func gemm8x16AVX(out *float32, ldc int, a *float32, k int, b *float32)
//
// out[i*ldc : +16] = Σ_t a[i*k+t] · b[32t : 32t+16] for the 8 rows i, k ≥ 1
// (gemmDiag's lower-right tile: b is the block transpose from column 16).
TEXT ·gemm8x16AVX(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ a+16(FP), SI
	MOVQ k+24(FP), CX
	MOVQ b+32(FP), DX
	MOVQ CX, R11
	SHLQ $2, R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ SI, AX
	LEAQ (SI)(R11*2), BX
	LEAQ (SI)(R11*4), R12
	LEAQ (BX)(R11*4), R13
	LEAQ (SI)(R11*1), R14

g8t:
	VMOVUPS      (DX), Z8
	VBROADCASTSS (AX), Z9
	VFMADD231PS  Z8, Z9, Z0
	VBROADCASTSS (AX)(R11*1), Z10
	VFMADD231PS  Z8, Z10, Z1
	VBROADCASTSS (BX), Z11
	VFMADD231PS  Z8, Z11, Z2
	VBROADCASTSS (BX)(R11*1), Z12
	VFMADD231PS  Z8, Z12, Z3
	VBROADCASTSS (R12), Z13
	VFMADD231PS  Z8, Z13, Z4
	VBROADCASTSS (R12)(R11*1), Z14
	VFMADD231PS  Z8, Z14, Z5
	VBROADCASTSS (R13), Z15
	VFMADD231PS  Z8, Z15, Z6
	VBROADCASTSS (R13)(R11*1), Z16
	VFMADD231PS  Z8, Z16, Z7
	ADDQ         $128, DX
	ADDQ         $4, AX
	ADDQ         $4, BX
	ADDQ         $4, R12
	ADDQ         $4, R13
	CMPQ         AX, R14
	JLT          g8t
	VMOVUPS Z0, (DI)
	ADDQ    R8, DI
	VMOVUPS Z1, (DI)
	ADDQ    R8, DI
	VMOVUPS Z2, (DI)
	ADDQ    R8, DI
	VMOVUPS Z3, (DI)
	ADDQ    R8, DI
	VMOVUPS Z4, (DI)
	ADDQ    R8, DI
	VMOVUPS Z5, (DI)
	ADDQ    R8, DI
	VMOVUPS Z6, (DI)
	ADDQ    R8, DI
	VMOVUPS Z7, (DI)
	VZEROUPPER
	RET

// func transpose16AVX(dst *float32, ldd int, src *float32, lds int, idx *[4][2][16]uint32)
//
// dst (16×16, row stride ldd) = the transpose of src (row stride lds): four
// stages of VPERMT2PS, stage s pairing rows i and i|b (b = 8>>s) with the
// index vectors idx[s][0] (lo, into row i) and idx[s][1] (hi, into i|b).
TEXT ·transpose16AVX(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	MOVQ idx+32(FP), DX
	VMOVUPS (SI), Z0
	ADDQ    R9, SI
	VMOVUPS (SI), Z1
	ADDQ    R9, SI
	VMOVUPS (SI), Z2
	ADDQ    R9, SI
	VMOVUPS (SI), Z3
	ADDQ    R9, SI
	VMOVUPS (SI), Z4
	ADDQ    R9, SI
	VMOVUPS (SI), Z5
	ADDQ    R9, SI
	VMOVUPS (SI), Z6
	ADDQ    R9, SI
	VMOVUPS (SI), Z7
	ADDQ    R9, SI
	VMOVUPS (SI), Z8
	ADDQ    R9, SI
	VMOVUPS (SI), Z9
	ADDQ    R9, SI
	VMOVUPS (SI), Z10
	ADDQ    R9, SI
	VMOVUPS (SI), Z11
	ADDQ    R9, SI
	VMOVUPS (SI), Z12
	ADDQ    R9, SI
	VMOVUPS (SI), Z13
	ADDQ    R9, SI
	VMOVUPS (SI), Z14
	ADDQ    R9, SI
	VMOVUPS (SI), Z15
	VMOVDQU32 0(DX), Z16
	VMOVDQU32 64(DX), Z17
	VMOVAPS   Z0, Z18
	VPERMT2PS Z8, Z16, Z0
	VPERMT2PS Z8, Z17, Z18
	VMOVAPS   Z18, Z8
	VMOVAPS   Z1, Z18
	VPERMT2PS Z9, Z16, Z1
	VPERMT2PS Z9, Z17, Z18
	VMOVAPS   Z18, Z9
	VMOVAPS   Z2, Z18
	VPERMT2PS Z10, Z16, Z2
	VPERMT2PS Z10, Z17, Z18
	VMOVAPS   Z18, Z10
	VMOVAPS   Z3, Z18
	VPERMT2PS Z11, Z16, Z3
	VPERMT2PS Z11, Z17, Z18
	VMOVAPS   Z18, Z11
	VMOVAPS   Z4, Z18
	VPERMT2PS Z12, Z16, Z4
	VPERMT2PS Z12, Z17, Z18
	VMOVAPS   Z18, Z12
	VMOVAPS   Z5, Z18
	VPERMT2PS Z13, Z16, Z5
	VPERMT2PS Z13, Z17, Z18
	VMOVAPS   Z18, Z13
	VMOVAPS   Z6, Z18
	VPERMT2PS Z14, Z16, Z6
	VPERMT2PS Z14, Z17, Z18
	VMOVAPS   Z18, Z14
	VMOVAPS   Z7, Z18
	VPERMT2PS Z15, Z16, Z7
	VPERMT2PS Z15, Z17, Z18
	VMOVAPS   Z18, Z15
	VMOVDQU32 128(DX), Z16
	VMOVDQU32 192(DX), Z17
	VMOVAPS   Z0, Z18
	VPERMT2PS Z4, Z16, Z0
	VPERMT2PS Z4, Z17, Z18
	VMOVAPS   Z18, Z4
	VMOVAPS   Z1, Z18
	VPERMT2PS Z5, Z16, Z1
	VPERMT2PS Z5, Z17, Z18
	VMOVAPS   Z18, Z5
	VMOVAPS   Z2, Z18
	VPERMT2PS Z6, Z16, Z2
	VPERMT2PS Z6, Z17, Z18
	VMOVAPS   Z18, Z6
	VMOVAPS   Z3, Z18
	VPERMT2PS Z7, Z16, Z3
	VPERMT2PS Z7, Z17, Z18
	VMOVAPS   Z18, Z7
	VMOVAPS   Z8, Z18
	VPERMT2PS Z12, Z16, Z8
	VPERMT2PS Z12, Z17, Z18
	VMOVAPS   Z18, Z12
	VMOVAPS   Z9, Z18
	VPERMT2PS Z13, Z16, Z9
	VPERMT2PS Z13, Z17, Z18
	VMOVAPS   Z18, Z13
	VMOVAPS   Z10, Z18
	VPERMT2PS Z14, Z16, Z10
	VPERMT2PS Z14, Z17, Z18
	VMOVAPS   Z18, Z14
	VMOVAPS   Z11, Z18
	VPERMT2PS Z15, Z16, Z11
	VPERMT2PS Z15, Z17, Z18
	VMOVAPS   Z18, Z15
	VMOVDQU32 256(DX), Z16
	VMOVDQU32 320(DX), Z17
	VMOVAPS   Z0, Z18
	VPERMT2PS Z2, Z16, Z0
	VPERMT2PS Z2, Z17, Z18
	VMOVAPS   Z18, Z2
	VMOVAPS   Z1, Z18
	VPERMT2PS Z3, Z16, Z1
	VPERMT2PS Z3, Z17, Z18
	VMOVAPS   Z18, Z3
	VMOVAPS   Z4, Z18
	VPERMT2PS Z6, Z16, Z4
	VPERMT2PS Z6, Z17, Z18
	VMOVAPS   Z18, Z6
	VMOVAPS   Z5, Z18
	VPERMT2PS Z7, Z16, Z5
	VPERMT2PS Z7, Z17, Z18
	VMOVAPS   Z18, Z7
	VMOVAPS   Z8, Z18
	VPERMT2PS Z10, Z16, Z8
	VPERMT2PS Z10, Z17, Z18
	VMOVAPS   Z18, Z10
	VMOVAPS   Z9, Z18
	VPERMT2PS Z11, Z16, Z9
	VPERMT2PS Z11, Z17, Z18
	VMOVAPS   Z18, Z11
	VMOVAPS   Z12, Z18
	VPERMT2PS Z14, Z16, Z12
	VPERMT2PS Z14, Z17, Z18
	VMOVAPS   Z18, Z14
	VMOVAPS   Z13, Z18
	VPERMT2PS Z15, Z16, Z13
	VPERMT2PS Z15, Z17, Z18
	VMOVAPS   Z18, Z15
	VMOVDQU32 384(DX), Z16
	VMOVDQU32 448(DX), Z17
	VMOVAPS   Z0, Z18
	VPERMT2PS Z1, Z16, Z0
	VPERMT2PS Z1, Z17, Z18
	VMOVAPS   Z18, Z1
	VMOVAPS   Z2, Z18
	VPERMT2PS Z3, Z16, Z2
	VPERMT2PS Z3, Z17, Z18
	VMOVAPS   Z18, Z3
	VMOVAPS   Z4, Z18
	VPERMT2PS Z5, Z16, Z4
	VPERMT2PS Z5, Z17, Z18
	VMOVAPS   Z18, Z5
	VMOVAPS   Z6, Z18
	VPERMT2PS Z7, Z16, Z6
	VPERMT2PS Z7, Z17, Z18
	VMOVAPS   Z18, Z7
	VMOVAPS   Z8, Z18
	VPERMT2PS Z9, Z16, Z8
	VPERMT2PS Z9, Z17, Z18
	VMOVAPS   Z18, Z9
	VMOVAPS   Z10, Z18
	VPERMT2PS Z11, Z16, Z10
	VPERMT2PS Z11, Z17, Z18
	VMOVAPS   Z18, Z11
	VMOVAPS   Z12, Z18
	VPERMT2PS Z13, Z16, Z12
	VPERMT2PS Z13, Z17, Z18
	VMOVAPS   Z18, Z13
	VMOVAPS   Z14, Z18
	VPERMT2PS Z15, Z16, Z14
	VPERMT2PS Z15, Z17, Z18
	VMOVAPS   Z18, Z15
	VMOVUPS Z0, (DI)
	ADDQ    R8, DI
	VMOVUPS Z1, (DI)
	ADDQ    R8, DI
	VMOVUPS Z2, (DI)
	ADDQ    R8, DI
	VMOVUPS Z3, (DI)
	ADDQ    R8, DI
	VMOVUPS Z4, (DI)
	ADDQ    R8, DI
	VMOVUPS Z5, (DI)
	ADDQ    R8, DI
	VMOVUPS Z6, (DI)
	ADDQ    R8, DI
	VMOVUPS Z7, (DI)
	ADDQ    R8, DI
	VMOVUPS Z8, (DI)
	ADDQ    R8, DI
	VMOVUPS Z9, (DI)
	ADDQ    R8, DI
	VMOVUPS Z10, (DI)
	ADDQ    R8, DI
	VMOVUPS Z11, (DI)
	ADDQ    R8, DI
	VMOVUPS Z12, (DI)
	ADDQ    R8, DI
	VMOVUPS Z13, (DI)
	ADDQ    R8, DI
	VMOVUPS Z14, (DI)
	ADDQ    R8, DI
	VMOVUPS Z15, (DI)
	VZEROUPPER
	RET

// func weightedSum512AVX(o, x *float32, ldx, n int, c *float32, m int)
//
// o (n a multiple of 16, m ≥ 1) = Σ_i c[i]·x[i*ldx : +n]: per 64 columns
// four accumulators, then per 16, each a fused multiply-add chain over i.
TEXT ·weightedSum512AVX(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ ldx+16(FP), R8
	SHLQ $2, R8
	MOVQ n+24(FP), R9
	SHLQ $2, R9
	MOVQ c+32(FP), DX
	MOVQ m+40(FP), CX
	LEAQ (DX)(CX*4), R12
	XORQ R10, R10

ws64:
	LEAQ   256(R10), AX
	CMPQ   AX, R9
	JGT    ws16
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ   (SI)(R10*1), R11
	MOVQ   DX, BX

ws64i:
	VBROADCASTSS (BX), Z4
	VFMADD231PS  (R11), Z4, Z0
	VFMADD231PS  64(R11), Z4, Z1
	VFMADD231PS  128(R11), Z4, Z2
	VFMADD231PS  192(R11), Z4, Z3
	ADDQ         R8, R11
	ADDQ         $4, BX
	CMPQ         BX, R12
	JLT          ws64i
	LEAQ         (DI)(R10*1), AX
	VMOVUPS      Z0, (AX)
	VMOVUPS      Z1, 64(AX)
	VMOVUPS      Z2, 128(AX)
	VMOVUPS      Z3, 192(AX)
	ADDQ         $256, R10
	JMP          ws64

ws16:
	CMPQ   R10, R9
	JGE    wsdone
	VXORPS Y0, Y0, Y0
	LEAQ   (SI)(R10*1), R11
	MOVQ   DX, BX

ws16i:
	VBROADCASTSS (BX), Z4
	VFMADD231PS  (R11), Z4, Z0
	ADDQ         R8, R11
	ADDQ         $4, BX
	CMPQ         BX, R12
	JLT          ws16i
	VMOVUPS      Z0, (DI)(R10*1)
	ADDQ         $64, R10
	JMP          ws16

wsdone:
	VZEROUPPER
	RET

// func pairCoef512AVX(dst, dist, w, gr *float32, n int, ga, wa float32)
//
// dst = (w·ga + gr·wa) / dist where dist > 0, else 0, 16 lanes at a time (n
// a multiple of 16).
TEXT ·pairCoef512AVX(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         dist+8(FP), SI
	MOVQ         w+16(FP), R8
	MOVQ         gr+24(FP), R9
	MOVQ         n+32(FP), CX
	VBROADCASTSS ga+40(FP), Z0
	VBROADCASTSS wa+44(FP), Z1
	VXORPS       Y2, Y2, Y2

pc16:
	CMPQ     CX, $16
	JLT      pcdone
	VMOVUPS  (SI), Z3
	VMULPS   (R8), Z0, Z4
	VMULPS   (R9), Z1, Z5
	VADDPS   Z5, Z4, Z4
	VCMPPS   $14, Z2, Z3, K1
	VDIVPS.Z Z3, Z4, K1, Z4
	VMOVUPS  Z4, (DI)
	ADDQ     $64, DI
	ADDQ     $64, SI
	ADDQ     $64, R8
	ADDQ     $64, R9
	SUBQ     $16, CX
	JMP      pc16

pcdone:
	VZEROUPPER
	RET

// func gatherRows512AVX(dst, x *float32, ldx int, rows *int32, m, d int)
//
// dst[i*d : (i+1)*d] = x[rows[i]*ldx : +d] for i < m (m ≥ 1; d ≥ 16 a
// multiple of 16): one call for a neighbourhood's rows instead of one copy
// per row.
TEXT ·gatherRows512AVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ ldx+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), DX
	MOVQ m+32(FP), CX
	MOVQ d+40(FP), R9
	SHLQ $2, R9

grow:
	MOVLQSX (DX), AX
	IMULQ   R8, AX
	LEAQ    (SI)(AX*1), R11
	XORQ    R10, R10

gcol:
	VMOVUPS (R11)(R10*1), Z0
	VMOVUPS Z0, (DI)(R10*1)
	ADDQ    $64, R10
	CMPQ    R10, R9
	JLT     gcol
	ADDQ    R9, DI
	ADDQ    $4, DX
	DECQ    CX
	JNZ     grow
	VZEROUPPER
	RET

// func fmaPeakAVX(n int)
//
// n iterations of eight independent 16-lane fused multiply-adds, nothing
// else: this core's multiply-add ceiling (BenchmarkFMAPeak), against which
// the GEMM kernels' rates are read.
TEXT ·fmaPeakAVX(SB), NOSPLIT, $0-8
	MOVQ   n+0(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	TESTQ  CX, CX
	JLE    fpdone

fploop:
	VFMADD231PS Z8, Z9, Z0
	VFMADD231PS Z8, Z9, Z1
	VFMADD231PS Z8, Z9, Z2
	VFMADD231PS Z8, Z9, Z3
	VFMADD231PS Z8, Z9, Z4
	VFMADD231PS Z8, Z9, Z5
	VFMADD231PS Z8, Z9, Z6
	VFMADD231PS Z8, Z9, Z7
	DECQ        CX
	JNZ         fploop

fpdone:
	VZEROUPPER
	RET

// func transpose8AVX2(dst *float32, ldd int, src *float32, lds int)
//
// dst (8×8, row stride ldd) = the transpose of src (row stride lds):
// unpack pairs of rows, shuffle pairs of pairs, exchange 128-bit halves.
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10   // 3·lds
	LEAQ (SI)(R9*4), R11   // row 4
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R9*1), Y1
	VMOVUPS (SI)(R9*2), Y2
	VMOVUPS (SI)(R10*1), Y3
	VMOVUPS (R11), Y4
	VMOVUPS (R11)(R9*1), Y5
	VMOVUPS (R11)(R9*2), Y6
	VMOVUPS (R11)(R10*1), Y7

	VUNPCKLPS Y1, Y0, Y8  // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9  // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0  // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xEE, Y10, Y8, Y1  // a1 b1 c1 d1 | a5 …
	VSHUFPS $0x44, Y11, Y9, Y2  // a2 … | a6 …
	VSHUFPS $0xEE, Y11, Y9, Y3  // a3 … | a7 …
	VSHUFPS $0x44, Y14, Y12, Y4 // e0 f0 g0 h0 | e4 …
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	LEAQ       (R8)(R8*2), R10
	LEAQ       (DI)(R8*4), R11
	VPERM2F128 $0x20, Y4, Y0, Y8
	VMOVUPS    Y8, (DI)
	VPERM2F128 $0x20, Y5, Y1, Y9
	VMOVUPS    Y9, (DI)(R8*1)
	VPERM2F128 $0x20, Y6, Y2, Y10
	VMOVUPS    Y10, (DI)(R8*2)
	VPERM2F128 $0x20, Y7, Y3, Y11
	VMOVUPS    Y11, (DI)(R10*1)
	VPERM2F128 $0x31, Y4, Y0, Y12
	VMOVUPS    Y12, (R11)
	VPERM2F128 $0x31, Y5, Y1, Y13
	VMOVUPS    Y13, (R11)(R8*1)
	VPERM2F128 $0x31, Y6, Y2, Y14
	VMOVUPS    Y14, (R11)(R8*2)
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS    Y15, (R11)(R10*1)
	VZEROUPPER
	RET

// func weightedSumAVX2(o, x *float32, ldx, n int, c *float32, m int)
//
// o (n, a multiple of 8) = Σ_{i<m} c[i] · x[i*ldx : i*ldx+n]: per block of
// 32 (then 8) columns the sums stay in registers while the rows stream
// past, each element one chain of fused multiply-adds over i in order from
// 0 — the operations of clearing o and calling tensor.Axpy row by row.
TEXT ·weightedSumAVX2(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ ldx+16(FP), R8
	SHLQ $2, R8
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), DX
	MOVQ m+40(FP), BX

ws32:
	CMPQ   CX, $32
	JLT    ws8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   SI, R9
	MOVQ   DX, R10
	MOVQ   BX, R11

ws32row:
	VBROADCASTSS (R10), Y4
	VFMADD231PS  (R9), Y4, Y0
	VFMADD231PS  32(R9), Y4, Y1
	VFMADD231PS  64(R9), Y4, Y2
	VFMADD231PS  96(R9), Y4, Y3
	ADDQ         R8, R9
	ADDQ         $4, R10
	DECQ         R11
	JNZ          ws32row
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	ADDQ         $128, DI
	ADDQ         $128, SI
	SUBQ         $32, CX
	JMP          ws32

ws8:
	CMPQ   CX, $8
	JLT    wsdone
	VXORPS Y0, Y0, Y0
	MOVQ   SI, R9
	MOVQ   DX, R10
	MOVQ   BX, R11

ws8row:
	VBROADCASTSS (R10), Y4
	VFMADD231PS  (R9), Y4, Y0
	ADDQ         R8, R9
	ADDQ         $4, R10
	DECQ         R11
	JNZ          ws8row
	VMOVUPS      Y0, (DI)
	ADDQ         $32, DI
	ADDQ         $32, SI
	SUBQ         $8, CX
	JMP          ws8

wsdone:
	VZEROUPPER
	RET
