//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"

// func tileAsm(out *[64]float32, k, panel *float32, r2 int)
//
// out[16i + j] = Σ_d k[i·r2 + d]·panel[16d + j] (i < 4, j < 16, r2 ≥ 1):
// eight 8-lane accumulators, one fused multiply-add chain over d each.
TEXT ·tileAsm(SB), NOSPLIT, $0-32
	MOVQ   out+0(FP), DI
	MOVQ   k+8(FP), SI
	MOVQ   panel+16(FP), DX
	MOVQ   r2+24(FP), CX
	MOVQ   CX, R8
	SHLQ   $2, R8
	LEAQ   (SI)(R8*2), BX
	LEAQ   (SI)(R8*1), R9
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

tiled:
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (SI)(R8*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (BX), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (BX)(R8*1), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $64, DX
	ADDQ         $4, SI
	ADDQ         $4, BX
	CMPQ         SI, R9
	JLT          tiled

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VZEROUPPER
	RET
