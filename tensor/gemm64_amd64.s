//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"

// The float64 products of gemm64.go: 4-wide AVX2 fused multiply-adds, each
// lane one output element's chain in the portable kernels' order, so every
// build gives the same bits. VFMADD231PD m, b, c computes c = b·m + c with
// one rounding (Go's operand order is the reverse of Intel's).

// func gemm64Tile8x4AVX(out *float64, ldo int, a *float64, lda int, b *float64, ldb int, k int)
//
// Rows 0..7 (stride ldo) × columns 0..3 of out: out_ij = Σ_{s<k} a_is·b_sj,
// a with row stride lda, b with row stride ldb; k ≥ 1.
TEXT ·gemm64Tile8x4AVX(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DX
	MOVQ ldo+8(FP), R11
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	MOVQ k+48(FP), CX
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R11
	LEAQ (R8)(R8*2), R10
	LEAQ (SI)(R8*4), BX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

g8loop:
	VMOVUPD (DI), Y8
	VBROADCASTSD (SI), Y9
	VFMADD231PD Y8, Y9, Y0
	VBROADCASTSD (SI)(R8*1), Y9
	VFMADD231PD Y8, Y9, Y1
	VBROADCASTSD (SI)(R8*2), Y9
	VFMADD231PD Y8, Y9, Y2
	VBROADCASTSD (SI)(R10*1), Y9
	VFMADD231PD Y8, Y9, Y3
	VBROADCASTSD (BX), Y9
	VFMADD231PD Y8, Y9, Y4
	VBROADCASTSD (BX)(R8*1), Y9
	VFMADD231PD Y8, Y9, Y5
	VBROADCASTSD (BX)(R8*2), Y9
	VFMADD231PD Y8, Y9, Y6
	VBROADCASTSD (BX)(R10*1), Y9
	VFMADD231PD Y8, Y9, Y7
	ADDQ $8, SI
	ADDQ $8, BX
	ADDQ R9, DI
	DECQ CX
	JNZ  g8loop

	LEAQ (R11)(R11*2), R10
	LEAQ (DX)(R11*4), BX
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, (DX)(R11*1)
	VMOVUPD Y2, (DX)(R11*2)
	VMOVUPD Y3, (DX)(R10*1)
	VMOVUPD Y4, (BX)
	VMOVUPD Y5, (BX)(R11*1)
	VMOVUPD Y6, (BX)(R11*2)
	VMOVUPD Y7, (BX)(R10*1)
	VZEROUPPER
	RET

// func gemm64Tile1x4AVX(out *float64, a *float64, b *float64, ldb int, k int)
//
// One row of gemm64Tile8x4AVX; k ≥ 1.
TEXT ·gemm64Tile1x4AVX(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R9
	MOVQ k+32(FP), CX
	SHLQ $3, R9
	VXORPD Y0, Y0, Y0

g1loop:
	VBROADCASTSD (SI), Y9
	VFMADD231PD (DI), Y9, Y0
	ADDQ $8, SI
	ADDQ R9, DI
	DECQ CX
	JNZ  g1loop
	VMOVUPD Y0, (DX)
	VZEROUPPER
	RET

// func gemmT64Tile8x4AVX(c *float64, ldc int, a *float64, lda int, x *float64, ldx int, rows int)
//
// c[s*ldc+j] = Σ_{i<rows} a[i*lda+s]·x[i*ldx+j] for s < 8, j < 4; rows ≥ 1.
TEXT ·gemmT64Tile8x4AVX(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), DX
	MOVQ ldc+8(FP), R11
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	MOVQ x+32(FP), DI
	MOVQ ldx+40(FP), R9
	MOVQ rows+48(FP), CX
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

t8loop:
	VMOVUPD (DI), Y8
	VBROADCASTSD 0(SI), Y9
	VFMADD231PD Y8, Y9, Y0
	VBROADCASTSD 8(SI), Y9
	VFMADD231PD Y8, Y9, Y1
	VBROADCASTSD 16(SI), Y9
	VFMADD231PD Y8, Y9, Y2
	VBROADCASTSD 24(SI), Y9
	VFMADD231PD Y8, Y9, Y3
	VBROADCASTSD 32(SI), Y9
	VFMADD231PD Y8, Y9, Y4
	VBROADCASTSD 40(SI), Y9
	VFMADD231PD Y8, Y9, Y5
	VBROADCASTSD 48(SI), Y9
	VFMADD231PD Y8, Y9, Y6
	VBROADCASTSD 56(SI), Y9
	VFMADD231PD Y8, Y9, Y7
	ADDQ R8, SI
	ADDQ R9, DI
	DECQ CX
	JNZ  t8loop
	VMOVUPD Y0, (DX)
	ADDQ R11, DX
	VMOVUPD Y1, (DX)
	ADDQ R11, DX
	VMOVUPD Y2, (DX)
	ADDQ R11, DX
	VMOVUPD Y3, (DX)
	ADDQ R11, DX
	VMOVUPD Y4, (DX)
	ADDQ R11, DX
	VMOVUPD Y5, (DX)
	ADDQ R11, DX
	VMOVUPD Y6, (DX)
	ADDQ R11, DX
	VMOVUPD Y7, (DX)
	VZEROUPPER
	RET

// func gemmT64Tile4x4AVX(c *float64, ldc int, a *float64, lda int, x *float64, ldx int, rows int)
//
// c[s*ldc+j] = Σ_{i<rows} a[i*lda+s]·x[i*ldx+j] for s < 4, j < 4; rows ≥ 1.
TEXT ·gemmT64Tile4x4AVX(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), DX
	MOVQ ldc+8(FP), R11
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	MOVQ x+32(FP), DI
	MOVQ ldx+40(FP), R9
	MOVQ rows+48(FP), CX
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

t4loop:
	VMOVUPD (DI), Y8
	VBROADCASTSD 0(SI), Y9
	VFMADD231PD Y8, Y9, Y0
	VBROADCASTSD 8(SI), Y9
	VFMADD231PD Y8, Y9, Y1
	VBROADCASTSD 16(SI), Y9
	VFMADD231PD Y8, Y9, Y2
	VBROADCASTSD 24(SI), Y9
	VFMADD231PD Y8, Y9, Y3
	ADDQ R8, SI
	ADDQ R9, DI
	DECQ CX
	JNZ  t4loop
	VMOVUPD Y0, (DX)
	ADDQ R11, DX
	VMOVUPD Y1, (DX)
	ADDQ R11, DX
	VMOVUPD Y2, (DX)
	ADDQ R11, DX
	VMOVUPD Y3, (DX)
	VZEROUPPER
	RET

// func gemmT64Tile1x4AVX(c *float64, ldc int, a *float64, lda int, x *float64, ldx int, rows int)
//
// c[s*ldc+j] = Σ_{i<rows} a[i*lda+s]·x[i*ldx+j] for s < 1, j < 4; rows ≥ 1.
TEXT ·gemmT64Tile1x4AVX(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), DX
	MOVQ ldc+8(FP), R11
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	MOVQ x+32(FP), DI
	MOVQ ldx+40(FP), R9
	MOVQ rows+48(FP), CX
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R11
	VXORPD Y0, Y0, Y0

t1loop:
	VBROADCASTSD (SI), Y9
	VFMADD231PD (DI), Y9, Y0
	ADDQ R8, SI
	ADDQ R9, DI
	DECQ CX
	JNZ  t1loop
	VMOVUPD Y0, (DX)
	VZEROUPPER
	RET

// func rot64AVX(x, y *float64, n int, c, s, ns float64)
//
// Rot64 on n elements, n a positive multiple of 4: y = fma(s, x, c·y),
// x = fma(c, x, ns·y_old) with ns = −s.
TEXT ·rot64AVX(SB), NOSPLIT, $0-48
	MOVQ         x+0(FP), SI
	MOVQ         y+8(FP), DI
	MOVQ         n+16(FP), CX
	VBROADCASTSD c+24(FP), Y0
	VBROADCASTSD s+32(FP), Y1
	VBROADCASTSD ns+40(FP), Y6
	SHRQ         $2, CX

rotloop:
	VMOVUPD     (SI), Y2
	VMOVUPD     (DI), Y3
	VMULPD      Y3, Y0, Y4
	VFMADD231PD Y2, Y1, Y4
	VMULPD      Y3, Y6, Y5
	VFMADD231PD Y2, Y0, Y5
	VMOVUPD     Y4, (DI)
	VMOVUPD     Y5, (SI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         rotloop
	VZEROUPPER
	RET
