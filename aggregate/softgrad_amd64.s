//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"

// AVX2 + FMA row kernels of softgrad_amd64.go (Go operand order: the
// reverse of Intel's). VEX forms only; every kernel ends with VZEROUPPER.

// func gemm6x16SubAVX2(gr *float32, ldg int, rows *int32, a *float32, lda int, b *float32, ldb, k, n int)
//
// For the six rows i of a (row stride lda) and n (a multiple of 16)
// columns: p = a_i·b (b k×n, row stride ldb; one fused multiply-add chain
// over t from 0 per element, tensor's gemm6x16AVX2), then g[rows[i]] −= p
// (row stride ldg), 16 columns at a time, the rows in order.
TEXT ·gemm6x16SubAVX2(SB), NOSPLIT, $0-72
	MOVQ gr+0(FP), DI
	MOVQ ldg+8(FP), R11
	MOVQ rows+16(FP), R9
	MOVQ a+24(FP), SI
	MOVQ lda+32(FP), AX
	MOVQ b+40(FP), DX
	MOVQ ldb+48(FP), R8
	MOVQ k+56(FP), CX
	SHLQ $2, R11
	SHLQ $2, AX
	SHLQ $2, R8
	LEAQ (SI)(AX*2), R10
	ADDQ AX, R10
	XORQ R12, R12

gsj:
	CMPQ R12, n+64(FP)
	JGE  gsdone
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	VXORPS  Y6, Y6, Y6
	VXORPS  Y7, Y7, Y7
	VXORPS  Y8, Y8, Y8
	VXORPS  Y9, Y9, Y9
	VXORPS  Y10, Y10, Y10
	VXORPS  Y11, Y11, Y11
	LEAQ (DX)(R12*4), BX
	MOVQ CX, R13

gst:
	VMOVUPS      (BX), Y12
	VMOVUPS      32(BX), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (SI)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y2
	VFMADD231PS  Y13, Y14, Y3
	VBROADCASTSS (SI)(AX*2), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R10), Y14
	VFMADD231PS  Y12, Y14, Y6
	VFMADD231PS  Y13, Y14, Y7
	VBROADCASTSS (R10)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS (R10)(AX*2), Y14
	VFMADD231PS  Y12, Y14, Y10
	VFMADD231PS  Y13, Y14, Y11
	ADDQ         $4, SI
	ADDQ         $4, R10
	ADDQ         R8, BX
	DECQ         R13
	JNZ          gst

	MOVQ CX, R15
	SHLQ $2, R15
	SUBQ R15, SI
	SUBQ R15, R10
	LEAQ (DI)(R12*4), R15
	MOVLQSX 0(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y0, Y12, Y12
	VSUBPS  Y1, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 4(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y2, Y12, Y12
	VSUBPS  Y3, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 8(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y4, Y12, Y12
	VSUBPS  Y5, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 12(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y6, Y12, Y12
	VSUBPS  Y7, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 16(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y8, Y12, Y12
	VSUBPS  Y9, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 20(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y10, Y12, Y12
	VSUBPS  Y11, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	ADDQ $16, R12
	JMP  gsj

gsdone:
	VZEROUPPER
	RET

// func dotRowsAVX2(out, x *float32, ldx int, y *float32, n, m int)
//
// out[i] = y·x_i for i < m (x row stride ldx, n a multiple of 16, ≥ 16):
// tensor's dotAVX2 (16-column blocks into two 8-lane chains, added) and
// hsum8 (((b0+b1)+(b2+b3))+((b4+b5)+(b6+b7))) per row.
TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ ldx+16(FP), R8
	SHLQ $2, R8
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ m+40(FP), BX

drrow:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ   SI, R9
	MOVQ   DX, R10
	MOVQ   CX, R11

drloop:
	VMOVUPS     (R10), Y2
	VMOVUPS     32(R10), Y3
	VFMADD231PS (R9), Y2, Y0
	VFMADD231PS 32(R9), Y3, Y1
	ADDQ        $64, R9
	ADDQ        $64, R10
	SUBQ        $16, R11
	JNZ         drloop

	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VHADDPS      X1, X0, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	VMOVSS       X2, (DI)
	ADDQ         $4, DI
	ADDQ         R8, SI
	DECQ         BX
	JNZ          drrow
	VZEROUPPER
	RET

// func rowSums8AVX2(out, x *float32, ldx, n, m int)
//
// out[i] = Σ_j x[i*ldx+j] for i < m (n a multiple of 8): one 8-lane chain
// of adds from 0 over the row's 8-column blocks in order, then hsum8 — the
// sum tensor's pairCoefAVX2 and PairCoef return.
TEXT ·rowSums8AVX2(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ ldx+16(FP), R8
	SHLQ $2, R8
	MOVQ n+24(FP), CX
	MOVQ m+32(FP), BX

rsrow:
	VXORPS Y0, Y0, Y0
	MOVQ   SI, R9
	MOVQ   CX, R11

rsloop:
	VADDPS (R9), Y0, Y0
	ADDQ   $32, R9
	SUBQ   $8, R11
	JNZ    rsloop

	VEXTRACTF128 $1, Y0, X1
	VHADDPS      X1, X0, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	VMOVSS       X2, (DI)
	ADDQ         $4, DI
	ADDQ         R8, SI
	DECQ         BX
	JNZ          rsrow
	VZEROUPPER
	RET

// func transposeTilesAVX2(dst *float32, ldd int, src *float32, lds, rows, cols int)
//
// dst[j*ldd+i] = src[i*lds+j] for i < rows, j < cols (multiples of 8,
// ≥ 8): transpose8AVX2 on each 8×8 tile, the tiles in one call.
TEXT ·transposeTilesAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), R12
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), R13
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	MOVQ rows+32(FP), AX
	MOVQ cols+40(FP), BX
	LEAQ (R9)(R9*2), R10 // 3·lds
	LEAQ (R8)(R8*2), DX  // 3·ldd

tti:
	MOVQ R13, SI
	MOVQ R12, DI
	MOVQ BX, CX

ttj:
	LEAQ    (SI)(R9*4), R11
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R9*1), Y1
	VMOVUPS (SI)(R9*2), Y2
	VMOVUPS (SI)(R10*1), Y3
	VMOVUPS (R11), Y4
	VMOVUPS (R11)(R9*1), Y5
	VMOVUPS (R11)(R9*2), Y6
	VMOVUPS (R11)(R10*1), Y7

	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	LEAQ       (DI)(R8*4), R11
	VPERM2F128 $0x20, Y4, Y0, Y8
	VMOVUPS    Y8, (DI)
	VPERM2F128 $0x20, Y5, Y1, Y9
	VMOVUPS    Y9, (DI)(R8*1)
	VPERM2F128 $0x20, Y6, Y2, Y10
	VMOVUPS    Y10, (DI)(R8*2)
	VPERM2F128 $0x20, Y7, Y3, Y11
	VMOVUPS    Y11, (DI)(DX*1)
	VPERM2F128 $0x31, Y4, Y0, Y12
	VMOVUPS    Y12, (R11)
	VPERM2F128 $0x31, Y5, Y1, Y13
	VMOVUPS    Y13, (R11)(R8*1)
	VPERM2F128 $0x31, Y6, Y2, Y14
	VMOVUPS    Y14, (R11)(R8*2)
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS    Y15, (R11)(DX*1)

	ADDQ $32, SI
	LEAQ (DI)(R8*8), DI
	SUBQ $8, CX
	JNZ  ttj

	LEAQ (R13)(R9*8), R13
	ADDQ $32, R12
	SUBQ $8, AX
	JNZ  tti
	VZEROUPPER
	RET

// func pairCoefUpperAVX2(cm *float32, ld int, dist, w, gr *float32, nk int)
//
// For every row i < nk, from column i&^7 to nk (a multiple of 8):
// cm[i*ld+j] = (w_j·gr_i + gr_j·w_i) / dist[i*nk+j] where dist > 0, else 0 —
// tensor's pairCoefAVX2 per row, without its sums.
TEXT ·pairCoefUpperAVX2(SB), NOSPLIT, $0-48
	MOVQ   cm+0(FP), R12
	MOVQ   ld+8(FP), R11
	SHLQ   $2, R11
	MOVQ   dist+16(FP), R13
	MOVQ   w+24(FP), R8
	MOVQ   gr+32(FP), R9
	MOVQ   nk+40(FP), CX
	LEAQ   (CX*4), R10
	VXORPS Y2, Y2, Y2
	XORQ   AX, AX

purow:
	VBROADCASTSS (R9)(AX*4), Y0
	VBROADCASTSS (R8)(AX*4), Y1
	MOVQ         AX, BX
	ANDQ         $-8, BX

pucol:
	VMOVUPS (R13)(BX*4), Y4
	VMULPS  (R8)(BX*4), Y0, Y5
	VMULPS  (R9)(BX*4), Y1, Y6
	VADDPS  Y6, Y5, Y5
	VDIVPS  Y4, Y5, Y5
	VCMPPS  $14, Y2, Y4, Y7
	VANDPS  Y7, Y5, Y5
	VMOVUPS Y5, (R12)(BX*4)
	ADDQ    $8, BX
	CMPQ    BX, CX
	JLT     pucol

	ADDQ R11, R12
	ADDQ R10, R13
	INCQ AX
	CMPQ AX, CX
	JLT  purow
	VZEROUPPER
	RET

// func gramToDistUpperAVX2(gm *float32, nk int, nrm *float32)
//
// For every row i < nk of the nk×nk Gram matrix g, from column i&^7 to nk
// (a multiple of 8): g ← √max(0, (nrm_i + nrm_j) − 2g) — tensor's
// gramToDistAVX2 per row — and then g[i*nk+i] = 0.
TEXT ·gramToDistUpperAVX2(SB), NOSPLIT, $0-24
	MOVQ         gm+0(FP), R12
	MOVQ         nk+8(FP), CX
	MOVQ         nrm+16(FP), SI
	LEAQ         (CX*4), R10
	MOVL         $0x40000000, DX
	VMOVD        DX, X1
	VBROADCASTSS X1, Y1
	VXORPS       Y2, Y2, Y2
	XORQ         AX, AX

gdrow:
	VBROADCASTSS (SI)(AX*4), Y0
	MOVQ         AX, BX
	ANDQ         $-8, BX

gdcol:
	VMOVUPS (R12)(BX*4), Y3
	VMULPS  Y3, Y1, Y3
	VADDPS  (SI)(BX*4), Y0, Y4
	VSUBPS  Y3, Y4, Y4
	VMAXPS  Y2, Y4, Y4
	VSQRTPS Y4, Y4
	VMOVUPS Y4, (R12)(BX*4)
	ADDQ    $8, BX
	CMPQ    BX, CX
	JLT     gdcol

	VMOVSS X2, (R12)(AX*4)
	ADDQ   R10, R12
	INCQ   AX
	CMPQ   AX, CX
	JLT    gdrow
	VZEROUPPER
	RET

// func gemm4x16SubAVX2(gr *float32, ldg int, rows *int32, a *float32, lda int, b *float32, ldb, k, n int)
//
// gemm6x16SubAVX2 for 4 rows.
TEXT ·gemm4x16SubAVX2(SB), NOSPLIT, $0-72
	MOVQ gr+0(FP), DI
	MOVQ ldg+8(FP), R11
	MOVQ rows+16(FP), R9
	MOVQ a+24(FP), SI
	MOVQ lda+32(FP), AX
	MOVQ b+40(FP), DX
	MOVQ ldb+48(FP), R8
	MOVQ k+56(FP), CX
	SHLQ $2, R11
	SHLQ $2, AX
	SHLQ $2, R8
	LEAQ (SI)(AX*2), R10
	ADDQ AX, R10
	XORQ R12, R12

gemm4x16SubAVX2j:
	CMPQ R12, n+64(FP)
	JGE  gemm4x16SubAVX2done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	LEAQ (DX)(R12*4), BX
	MOVQ CX, R13

gemm4x16SubAVX2t:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (SI)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y2
	VFMADD231PS  Y13, Y14, Y3
	VBROADCASTSS (SI)(AX*2), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R10), Y14
	VFMADD231PS  Y12, Y14, Y6
	VFMADD231PS  Y13, Y14, Y7
	ADDQ $4, SI
	ADDQ $4, R10
	ADDQ R8, BX
	DECQ R13
	JNZ  gemm4x16SubAVX2t

	MOVQ CX, R15
	SHLQ $2, R15
	SUBQ R15, SI
	SUBQ R15, R10
	LEAQ (DI)(R12*4), R15
	MOVLQSX 0(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y0, Y12, Y12
	VSUBPS  Y1, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 4(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y2, Y12, Y12
	VSUBPS  Y3, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 8(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y4, Y12, Y12
	VSUBPS  Y5, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	MOVLQSX 12(R9), R13
	IMULQ   R11, R13
	VMOVUPS (R15)(R13*1), Y12
	VMOVUPS 32(R15)(R13*1), Y13
	VSUBPS  Y6, Y12, Y12
	VSUBPS  Y7, Y13, Y13
	VMOVUPS Y12, (R15)(R13*1)
	VMOVUPS Y13, 32(R15)(R13*1)
	ADDQ $16, R12
	JMP  gemm4x16SubAVX2j

gemm4x16SubAVX2done:
	VZEROUPPER
	RET

// func gemm4x16LdAVX2(out *float32, ldc int, a *float32, lda int, b *float32, ldb, k, n int)
//
// out (row stride ldc) = a·b for 4 rows of a (row stride lda) and n (a
// multiple of 16) columns of b (k×n, row stride ldb): tensor's
// gemm6x16AVX2 for 4 rows (one fused multiply-add chain over t from 0 per
// element), so GemmLd's bits.
TEXT ·gemm4x16LdAVX2(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ ldc+8(FP), R11
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), AX
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R8
	MOVQ k+48(FP), CX
	SHLQ $2, R11
	SHLQ $2, AX
	SHLQ $2, R8
	LEAQ (SI)(AX*2), R10
	ADDQ AX, R10
	XORQ R12, R12

gemm4x16LdAVX2j:
	CMPQ R12, n+56(FP)
	JGE  gemm4x16LdAVX2done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	LEAQ (DX)(R12*4), BX
	MOVQ CX, R13

gemm4x16LdAVX2t:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (SI)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y2
	VFMADD231PS  Y13, Y14, Y3
	VBROADCASTSS (SI)(AX*2), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R10), Y14
	VFMADD231PS  Y12, Y14, Y6
	VFMADD231PS  Y13, Y14, Y7
	ADDQ $4, SI
	ADDQ $4, R10
	ADDQ R8, BX
	DECQ R13
	JNZ  gemm4x16LdAVX2t

	MOVQ CX, R15
	SHLQ $2, R15
	SUBQ R15, SI
	SUBQ R15, R10
	LEAQ (DI)(R12*4), R15
	LEAQ (R15)(R11*2), R13
	ADDQ R11, R13
	VMOVUPS Y0, (R15)
	VMOVUPS Y1, 32(R15)
	VMOVUPS Y2, (R15)(R11*1)
	VMOVUPS Y3, 32(R15)(R11*1)
	VMOVUPS Y4, (R15)(R11*2)
	VMOVUPS Y5, 32(R15)(R11*2)
	VMOVUPS Y6, (R13)
	VMOVUPS Y7, 32(R13)
	ADDQ $16, R12
	JMP  gemm4x16LdAVX2j

gemm4x16LdAVX2done:
	VZEROUPPER
	RET

// func gemm6x16LdAVX2(out *float32, ldc int, a *float32, lda int, b *float32, ldb, k, n int)
//
// gemm4x16LdAVX2 for six rows (tensor's gemm6x16AVX2 without acc).
TEXT ·gemm6x16LdAVX2(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ ldc+8(FP), R11
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), AX
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R8
	MOVQ k+48(FP), CX
	SHLQ $2, R11
	SHLQ $2, AX
	SHLQ $2, R8
	LEAQ (SI)(AX*2), R10
	ADDQ AX, R10
	XORQ R12, R12

gemm6x16LdAVX2j:
	CMPQ R12, n+56(FP)
	JGE  gemm6x16LdAVX2done
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
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	LEAQ (DX)(R12*4), BX
	MOVQ CX, R13

gemm6x16LdAVX2t:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (SI)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y2
	VFMADD231PS  Y13, Y14, Y3
	VBROADCASTSS (SI)(AX*2), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R10), Y14
	VFMADD231PS  Y12, Y14, Y6
	VFMADD231PS  Y13, Y14, Y7
	VBROADCASTSS (R10)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS (R10)(AX*2), Y14
	VFMADD231PS  Y12, Y14, Y10
	VFMADD231PS  Y13, Y14, Y11
	ADDQ $4, SI
	ADDQ $4, R10
	ADDQ R8, BX
	DECQ R13
	JNZ  gemm6x16LdAVX2t

	MOVQ CX, R15
	SHLQ $2, R15
	SUBQ R15, SI
	SUBQ R15, R10
	LEAQ (DI)(R12*4), R15
	LEAQ (R15)(R11*2), R13
	ADDQ R11, R13
	VMOVUPS Y0, (R15)
	VMOVUPS Y1, 32(R15)
	VMOVUPS Y2, (R15)(R11*1)
	VMOVUPS Y3, 32(R15)(R11*1)
	VMOVUPS Y4, (R15)(R11*2)
	VMOVUPS Y5, 32(R15)(R11*2)
	VMOVUPS Y6, (R13)
	VMOVUPS Y7, 32(R13)
	VMOVUPS Y8, (R13)(R11*1)
	VMOVUPS Y9, 32(R13)(R11*1)
	VMOVUPS Y10, (R13)(R11*2)
	VMOVUPS Y11, 32(R13)(R11*2)
	ADDQ $16, R12
	JMP  gemm6x16LdAVX2j

gemm6x16LdAVX2done:
	VZEROUPPER
	RET

// func copyNTAVX2(dst, src *float32, n int)
//
// dst[i] = src[i] for i < n (a multiple of 8; dst 32-byte aligned) with
// non-temporal stores, which write memory without first reading the lines
// into the caches; SFENCE orders them before later stores.
TEXT ·copyNTAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

cnt32:
	CMPQ     CX, $32
	JLT      cnt8
	VMOVUPS  (SI), Y0
	VMOVUPS  32(SI), Y1
	VMOVUPS  64(SI), Y2
	VMOVUPS  96(SI), Y3
	VMOVNTPS Y0, (DI)
	VMOVNTPS Y1, 32(DI)
	VMOVNTPS Y2, 64(DI)
	VMOVNTPS Y3, 96(DI)
	ADDQ     $128, SI
	ADDQ     $128, DI
	SUBQ     $32, CX
	JMP      cnt32

cnt8:
	CMPQ     CX, $8
	JLT      cntdone
	VMOVUPS  (SI), Y0
	VMOVNTPS Y0, (DI)
	ADDQ     $32, SI
	ADDQ     $32, DI
	SUBQ     $8, CX
	JMP      cnt8

cntdone:
	SFENCE
	VZEROUPPER
	RET

// func gatherRowsAVX2(dst, x *float32, ldx int, rows *int32, m, d int)
//
// dst[i*d : (i+1)*d] = x[rows[i]*ldx : rows[i]*ldx+d] for i < m, d a
// multiple of 8: 32 and then 8 floats at a time.
TEXT ·gatherRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    ldx+16(FP), R8
	SHLQ    $2, R8
	MOVQ    rows+24(FP), R9
	MOVQ    m+32(FP), BX
	MOVQ    d+40(FP), CX
	MOVQ    CX, R11

grrow:
	MOVLQSX (R9), AX
	IMULQ   R8, AX
	ADDQ    SI, AX
	MOVQ    R11, R12

gr32:
	CMPQ    R12, $32
	JLT     gr8
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVUPS 96(AX), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, AX
	ADDQ    $128, DI
	SUBQ    $32, R12
	JMP     gr32

gr8:
	TESTQ   R12, R12
	JZ      grnext
	VMOVUPS (AX), Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, AX
	ADDQ    $32, DI
	SUBQ    $8, R12
	JMP     gr8

grnext:
	ADDQ $4, R9
	DECQ BX
	JNZ  grrow
	VZEROUPPER
	RET

// func gatherRowsOverAVX2(dst, x *float32, ldx int, rows *int32, m, d int)
//
// gatherRowsAVX2 for d not a multiple of 8 without masks: each row copies
// d rounded up to a multiple of 8 floats (reading past the end of the
// source row and writing past the end of the destination row, which the
// next row then overwrites; the caller checks both stay inside their
// slices).
TEXT ·gatherRowsOverAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ ldx+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), R9
	MOVQ m+32(FP), BX
	MOVQ d+40(FP), CX
	LEAQ (CX*4), R10

gorow:
	MOVLQSX (R9), AX
	IMULQ   R8, AX
	ADDQ    SI, AX
	MOVQ    DI, DX
	MOVQ    CX, R12

go8:
	VMOVUPS (AX), Y0
	VMOVUPS Y0, (DX)
	ADDQ    $32, AX
	ADDQ    $32, DX
	SUBQ    $8, R12
	JG      go8

	ADDQ R10, DI
	ADDQ $4, R9
	DECQ BX
	JNZ  gorow
	VZEROUPPER
	RET
