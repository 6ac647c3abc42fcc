//go:build amd64 && !purego

#include "textflag.h"

// func expAVX2(dst, x *float64, n int, c *[17][4]float64) int
//
// dst[i] = exp(x[i]) for groups of four (n a multiple of 4), by the
// operations of math.Exp's FMA path (src/math/exp_amd64.s) in the same
// order, lane by lane: k = round(x·log2e); r = (x − k·ln2u − k·ln2l)/16
// (fused); a degree-8 Taylor polynomial by fused multiply-adds; four
// squarings y·(y + 2); y·(y + 2) + 1 fused; times 2^k. It stops before a
// group with a lane that math.Exp handles otherwise (NaN, x > 709.78…, or an
// exponent outside [−1022, 1023]) and returns the number of elements done.
TEXT ·expAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), BX
	XORQ AX, AX

exploop:
	CMPQ CX, $4
	JLT  expdone
	VMOVUPD (SI), Y0

	// k = round(x·log2e), as int32 (X2) and as float64 (Y3)
	VMULPD     (BX), Y0, Y1
	VCVTPD2DQY Y1, X2
	VCVTDQ2PD  X2, Y3

	// the lanes math.Exp computes this way: x ≤ 709.78… (ordered) and
	// −1022 ≤ k ≤ 1023
	VCMPPD    $0x12, 416(BX), Y0, Y7
	VCMPPD    $0x1D, 448(BX), Y3, Y8
	VANDPD    Y8, Y7, Y7
	VCMPPD    $0x12, 480(BX), Y3, Y8
	VANDPD    Y8, Y7, Y7
	VMOVMSKPD Y7, DX
	CMPQ      DX, $15
	JNE       expdone

	// r = (x − k·ln2u − k·ln2l)·0.0625
	VMOVAPD      Y0, Y4
	VFNMADD231PD 32(BX), Y3, Y4
	VFNMADD231PD 64(BX), Y3, Y4
	VMULPD       96(BX), Y4, Y4

	// Taylor series
	VMOVUPD     128(BX), Y5
	VFMADD213PD 160(BX), Y4, Y5
	VFMADD213PD 192(BX), Y4, Y5
	VFMADD213PD 224(BX), Y4, Y5
	VFMADD213PD 256(BX), Y4, Y5
	VFMADD213PD 288(BX), Y4, Y5
	VFMADD213PD 320(BX), Y4, Y5
	VFMADD213PD 352(BX), Y4, Y5
	VMULPD      Y5, Y4, Y4
	VADDPD      384(BX), Y4, Y5
	VMULPD      Y5, Y4, Y4
	VADDPD      384(BX), Y4, Y5
	VMULPD      Y5, Y4, Y4
	VADDPD      384(BX), Y4, Y5
	VMULPD      Y5, Y4, Y4
	VADDPD      384(BX), Y4, Y5
	VFMADD213PD 352(BX), Y5, Y4

	// times 2^k
	VPMOVSXDQ X2, Y6
	VPADDQ    512(BX), Y6, Y6
	VPSLLQ    $52, Y6, Y6
	VMULPD    Y6, Y4, Y4

	VMOVUPD Y4, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $4, AX
	SUBQ    $4, CX
	JMP     exploop

expdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
