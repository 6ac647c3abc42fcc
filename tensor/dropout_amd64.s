//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"

// AVX2 kernels of dropout.go (VEX forms only; every kernel ends with
// VZEROUPPER).

// func reluDropoutAVX2(o, x, b *float32, n int, h *[4]uint64, thr int32, scale float32)
//
// n a multiple of 16. Per 16 elements: four splitmix64 hashes of the
// counters h[0..3] (each advanced by 4γ after), 64-bit multiplies built
// from 32-bit ones; their 16-bit fields in order are the 16 elements'
// coins; o = ReLU(x + b) · (scale where coin > thr−1, else 0).
TEXT ·reluDropoutAVX2(SB), NOSPLIT, $0-48
	MOVQ         o+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         b+16(FP), DX
	MOVQ         n+24(FP), CX
	MOVQ         h+32(FP), AX
	VMOVDQU      (AX), Y14
	MOVL         thr+40(FP), AX
	DECL         AX
	VMOVD        AX, X8
	VPBROADCASTD X8, Y8
	VBROADCASTSS scale+44(FP), Y7
	MOVQ         $0x9e3779b97f4a7c15, AX
	VMOVQ        AX, X13
	VPBROADCASTQ X13, Y13
	VPSLLQ       $2, Y13, Y15
	MOVQ         $0xbf58476d1ce4e5b9, AX
	VMOVQ        AX, X12
	VPBROADCASTQ X12, Y12
	VPSRLQ       $32, Y12, Y11
	MOVQ         $0x94d049bb133111eb, AX
	VMOVQ        AX, X10
	VPBROADCASTQ X10, Y10
	VPSRLQ       $32, Y10, Y9

rdloop:
	CMPQ CX, $16
	JLT  rddone

	// z = splitmix64(h) for four counters.
	VPADDQ   Y13, Y14, Y0
	VPADDQ   Y15, Y14, Y14
	VPSRLQ   $30, Y0, Y1
	VPXOR    Y1, Y0, Y0
	VPSRLQ   $32, Y0, Y1
	VPMULUDQ Y12, Y1, Y1
	VPMULUDQ Y11, Y0, Y2
	VPADDQ   Y2, Y1, Y1
	VPSLLQ   $32, Y1, Y1
	VPMULUDQ Y12, Y0, Y0
	VPADDQ   Y1, Y0, Y0
	VPSRLQ   $27, Y0, Y1
	VPXOR    Y1, Y0, Y0
	VPSRLQ   $32, Y0, Y1
	VPMULUDQ Y10, Y1, Y1
	VPMULUDQ Y9, Y0, Y2
	VPADDQ   Y2, Y1, Y1
	VPSLLQ   $32, Y1, Y1
	VPMULUDQ Y10, Y0, Y0
	VPADDQ   Y1, Y0, Y0
	VPSRLQ   $31, Y0, Y1
	VPXOR    Y1, Y0, Y0

	// The masks of elements 0–7 (Y1) and 8–15 (Y2).
	VPMOVZXWD    X0, Y1
	VEXTRACTI128 $1, Y0, X2
	VPMOVZXWD    X2, Y2
	VPCMPGTD     Y8, Y1, Y1
	VPCMPGTD     Y8, Y2, Y2
	VANDPS       Y7, Y1, Y1
	VANDPS       Y7, Y2, Y2

	VMOVUPS (SI), Y3
	VADDPS  (DX), Y3, Y3
	VPSRAD  $31, Y3, Y4
	VPANDN  Y3, Y4, Y3
	VMULPS  Y1, Y3, Y3
	VMOVUPS Y3, (DI)
	VMOVUPS 32(SI), Y5
	VADDPS  32(DX), Y5, Y5
	VPSRAD  $31, Y5, Y6
	VPANDN  Y5, Y6, Y5
	VMULPS  Y2, Y5, Y5
	VMOVUPS Y5, 32(DI)

	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, DX
	SUBQ $16, CX
	JMP  rdloop

rddone:
	VZEROUPPER
	RET

// func reluDropoutBackAVX2(rd, gd, od *float32, rows, c int, scale float32, acc *float64) int
//
// c a multiple of 8. Row by row: stop (returning the row) if the row of o
// has a positive NaN; else r = (g·scale) with the bits cleared where o−1
// (as int32) is negative, and acc += float64(r) column by column.
TEXT ·reluDropoutBackAVX2(SB), NOSPLIT, $0-64
	MOVQ         rd+0(FP), DI
	MOVQ         gd+8(FP), SI
	MOVQ         od+16(FP), DX
	MOVQ         rows+24(FP), R8
	MOVQ         c+32(FP), R9
	VBROADCASTSS scale+40(FP), Y15
	MOVQ         acc+48(FP), R10
	MOVL         $0x7f800000, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	MOVL         $1, AX
	VMOVD        AX, X13
	VPBROADCASTD X13, Y13
	XORQ         R11, R11
	MOVQ         R9, R12
	SHLQ         $2, R12

rbrow:
	CMPQ  R11, R8
	JGE   rbdone
	VPXOR Y5, Y5, Y5
	XORQ  CX, CX

rbscan:
	CMPQ     CX, R9
	JGE      rbscanned
	VMOVDQU  (DX)(CX*4), Y0
	VPCMPGTD Y14, Y0, Y1
	VPOR     Y1, Y5, Y5
	ADDQ     $8, CX
	JMP      rbscan

rbscanned:
	VPTEST Y5, Y5
	JNZ    rbdone
	XORQ   CX, CX

rbcol:
	CMPQ         CX, R9
	JGE          rbnext
	VMOVDQU      (DX)(CX*4), Y0
	VMULPS       (SI)(CX*4), Y15, Y1
	VPSUBD       Y13, Y0, Y2
	VPSRAD       $31, Y2, Y2
	VPANDN       Y1, Y2, Y1
	VMOVUPS      Y1, (DI)(CX*4)
	VCVTPS2PD    X1, Y3
	VADDPD       (R10)(CX*8), Y3, Y3
	VMOVUPD      Y3, (R10)(CX*8)
	VEXTRACTF128 $1, Y1, X4
	VCVTPS2PD    X4, Y4
	VADDPD       32(R10)(CX*8), Y4, Y4
	VMOVUPD      Y4, 32(R10)(CX*8)
	ADDQ         $8, CX
	JMP          rbcol

rbnext:
	ADDQ R12, DI
	ADDQ R12, SI
	ADDQ R12, DX
	INCQ R11
	JMP  rbrow

rbdone:
	MOVQ R11, ret+56(FP)
	VZEROUPPER
	RET
