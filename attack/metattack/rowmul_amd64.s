//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"

// func rowMul16Asm(o, vals *float64, idx *int32, n int, w *float64)
//
// o[0:16] = Σ_p vals[p]·w[16·idx[p] : +16], n ≥ 1, four accumulators.
TEXT ·rowMul16Asm(SB), NOSPLIT, $0-40
	MOVQ   o+0(FP), DI
	MOVQ   vals+8(FP), SI
	MOVQ   idx+16(FP), R8
	MOVQ   n+24(FP), CX
	MOVQ   w+32(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   R9, R9

rmloop:
	VBROADCASTSD (SI)(R9*8), Y4
	MOVLQSX      (R8)(R9*4), AX
	SHLQ         $7, AX
	ADDQ         DX, AX
	VFMADD231PD  (AX), Y4, Y0
	VFMADD231PD  32(AX), Y4, Y1
	VFMADD231PD  64(AX), Y4, Y2
	VFMADD231PD  96(AX), Y4, Y3
	INCQ         R9
	CMPQ         R9, CX
	JLT          rmloop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET
