//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"

// AVX2 + FMA kernels of vec_amd64.go. Go's operand order is the reverse of
// Intel's: VFMADD231PS m, b, c computes c = b·m + c with one rounding.

// func axpyAVX2(y, x *float32, n int, alpha float32)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-28
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS alpha+24(FP), Y0

axpy16:
	CMPQ        CX, $16
	JLT         axpy8
	VMOVUPS     (DI), Y1
	VMOVUPS     32(DI), Y2
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VMOVUPS     Y1, (DI)
	VMOVUPS     Y2, 32(DI)
	ADDQ        $64, DI
	ADDQ        $64, SI
	SUBQ        $16, CX
	JMP         axpy16

axpy8:
	CMPQ        CX, $8
	JLT         axpydone
	VMOVUPS     (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS     Y1, (DI)

axpydone:
	VZEROUPPER
	RET

// func axpyDiffAVX2(y, z, a, b *float32, n int, c float32)
// d = c·(a − b); y += d; z −= d — no fused operations.
TEXT ·axpyDiffAVX2(SB), NOSPLIT, $0-44
	MOVQ         y+0(FP), DI
	MOVQ         z+8(FP), R8
	MOVQ         a+16(FP), SI
	MOVQ         b+24(FP), DX
	MOVQ         n+32(FP), CX
	VBROADCASTSS c+40(FP), Y0

axpydiff8:
	CMPQ    CX, $8
	JLT     axpydiffdone
	VMOVUPS (SI), Y1
	VSUBPS  (DX), Y1, Y1
	VMULPS  Y1, Y0, Y1
	VMOVUPS (DI), Y2
	VADDPS  Y1, Y2, Y2
	VMOVUPS Y2, (DI)
	VMOVUPS (R8), Y3
	VSUBPS  Y1, Y3, Y3
	VMOVUPS Y3, (R8)
	ADDQ    $32, DI
	ADDQ    $32, R8
	ADDQ    $32, SI
	ADDQ    $32, DX
	SUBQ    $8, CX
	JMP     axpydiff8

axpydiffdone:
	VZEROUPPER
	RET

// func dotAVX2(x, y *float32, n int, buf *[8]float32)
TEXT ·dotAVX2(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVQ   buf+24(FP), DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

dotloop:
	CMPQ        CX, $16
	JLT         dotdone
	VMOVUPS     (SI), Y2
	VMOVUPS     32(SI), Y3
	VFMADD231PS (DI), Y2, Y0
	VFMADD231PS 32(DI), Y3, Y1
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         dotloop

dotdone:
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (DX)
	VZEROUPPER
	RET

// func sqDistAVX2(x, y *float32, n int, buf *[8]float32)
TEXT ·sqDistAVX2(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVQ   buf+24(FP), DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

sqloop:
	CMPQ        CX, $16
	JLT         sqdone
	VMOVUPS     (SI), Y2
	VMOVUPS     32(SI), Y3
	VSUBPS      (DI), Y2, Y2
	VSUBPS      32(DI), Y3, Y3
	VFMADD231PS Y2, Y2, Y0
	VFMADD231PS Y3, Y3, Y1
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         sqloop

sqdone:
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (DX)
	VZEROUPPER
	RET

// func spmmRow32AVX2(out, x, vals *float32, idx *int32, nnz, n int, acc bool)
//
// out[j] (+)= Σ_k vals[k]·x[idx[k]*n + j] for j < n (a multiple of 32), in
// blocks of 32 columns; entries k even go to Y0–Y3, odd to Y4–Y7 (the
// last odd-count entry to Y0–Y3), added at the end.
TEXT ·spmmRow32AVX2(SB), NOSPLIT, $0-49
	MOVQ    out+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    vals+16(FP), R8
	MOVQ    idx+24(FP), R9
	MOVQ    nnz+32(FP), R10
	MOVQ    n+40(FP), R11
	MOVBLZX acc+48(FP), R14
	XORQ    R12, R12
	MOVQ    R10, BX
	SUBQ    $1, BX

spmmj:
	CMPQ    R12, R11
	JGE     spmmdone
	TESTQ   R14, R14
	JZ      spmmzero
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	JMP     spmminit

spmmzero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

spmminit:
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ   R13, R13

spmmk:
	CMPQ         R13, BX
	JGE          spmmtail
	VBROADCASTSS (R8)(R13*4), Y8
	VBROADCASTSS 4(R8)(R13*4), Y9
	MOVLQSX      (R9)(R13*4), AX
	MOVLQSX      4(R9)(R13*4), DX
	IMULQ        R11, AX
	IMULQ        R11, DX
	ADDQ         R12, AX
	ADDQ         R12, DX
	LEAQ         (SI)(AX*4), AX
	LEAQ         (SI)(DX*4), DX
	VFMADD231PS  (AX), Y8, Y0
	VFMADD231PS  32(AX), Y8, Y1
	VFMADD231PS  64(AX), Y8, Y2
	VFMADD231PS  96(AX), Y8, Y3
	VFMADD231PS  (DX), Y9, Y4
	VFMADD231PS  32(DX), Y9, Y5
	VFMADD231PS  64(DX), Y9, Y6
	VFMADD231PS  96(DX), Y9, Y7
	ADDQ         $2, R13
	JMP          spmmk

spmmtail:
	CMPQ         R13, R10
	JGE          spmmstore
	VBROADCASTSS (R8)(R13*4), Y8
	MOVLQSX      (R9)(R13*4), AX
	IMULQ        R11, AX
	ADDQ         R12, AX
	LEAQ         (SI)(AX*4), AX
	VFMADD231PS  (AX), Y8, Y0
	VFMADD231PS  32(AX), Y8, Y1
	VFMADD231PS  64(AX), Y8, Y2
	VFMADD231PS  96(AX), Y8, Y3

spmmstore:
	VADDPS  Y4, Y0, Y0
	VADDPS  Y5, Y1, Y1
	VADDPS  Y6, Y2, Y2
	VADDPS  Y7, Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $32, R12
	JMP     spmmj

spmmdone:
	VZEROUPPER
	RET

// func gemm2x32AVX2(out, a, b *float32, k, n int, acc bool)
//
// Two rows of out (stride n) = (+=) two rows of a (stride k) · b (k×n), n a
// multiple of 32, k ≥ 1: per 32-column block eight accumulators over t.
TEXT ·gemm2x32AVX2(SB), NOSPLIT, $0-41
	MOVQ    out+0(FP), DI
	MOVQ    a+8(FP), SI
	MOVQ    b+16(FP), DX
	MOVQ    k+24(FP), CX
	MOVQ    n+32(FP), R8
	MOVBLZX acc+40(FP), R9
	LEAQ    (SI)(CX*4), R10
	LEAQ    (DI)(R8*4), R11
	SHLQ    $2, R8
	XORQ    R12, R12

gemmj:
	CMPQ    R12, R8
	JGE     gemmdone
	TESTQ   R9, R9
	JZ      gemmzero
	VMOVUPS (DI)(R12*1), Y0
	VMOVUPS 32(DI)(R12*1), Y1
	VMOVUPS 64(DI)(R12*1), Y2
	VMOVUPS 96(DI)(R12*1), Y3
	VMOVUPS (R11)(R12*1), Y4
	VMOVUPS 32(R11)(R12*1), Y5
	VMOVUPS 64(R11)(R12*1), Y6
	VMOVUPS 96(R11)(R12*1), Y7
	JMP     gemmstart

gemmzero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

gemmstart:
	LEAQ (DX)(R12*1), BX
	XORQ R13, R13

gemmt:
	VMOVUPS      (BX), Y8
	VMOVUPS      32(BX), Y9
	VMOVUPS      64(BX), Y10
	VMOVUPS      96(BX), Y11
	VBROADCASTSS (SI)(R13*4), Y12
	VBROADCASTSS (R10)(R13*4), Y13
	VFMADD231PS  Y8, Y12, Y0
	VFMADD231PS  Y9, Y12, Y1
	VFMADD231PS  Y10, Y12, Y2
	VFMADD231PS  Y11, Y12, Y3
	VFMADD231PS  Y8, Y13, Y4
	VFMADD231PS  Y9, Y13, Y5
	VFMADD231PS  Y10, Y13, Y6
	VFMADD231PS  Y11, Y13, Y7
	ADDQ         R8, BX
	INCQ         R13
	CMPQ         R13, CX
	JLT          gemmt

	VMOVUPS Y0, (DI)(R12*1)
	VMOVUPS Y1, 32(DI)(R12*1)
	VMOVUPS Y2, 64(DI)(R12*1)
	VMOVUPS Y3, 96(DI)(R12*1)
	VMOVUPS Y4, (R11)(R12*1)
	VMOVUPS Y5, 32(R11)(R12*1)
	VMOVUPS Y6, 64(R11)(R12*1)
	VMOVUPS Y7, 96(R11)(R12*1)
	ADDQ    $128, R12
	JMP     gemmj

gemmdone:
	VZEROUPPER
	RET

// func gemm2x32LdAVX2(out *float32, ldc int, a, b *float32, k, n int)
//
// gemm2x32AVX2 without accumulation into rows of stride ldc: two rows of
// out = two rows of a (stride k) · b (k×n), n a multiple of 32, k ≥ 1.
TEXT ·gemm2x32LdAVX2(SB), NOSPLIT, $0-48
	MOVQ    out+0(FP), DI
	MOVQ    ldc+8(FP), R11
	MOVQ    a+16(FP), SI
	MOVQ    b+24(FP), DX
	MOVQ    k+32(FP), CX
	MOVQ    n+40(FP), R8
	XORQ    R9, R9
	LEAQ    (SI)(CX*4), R10
	LEAQ    (DI)(R11*4), R11
	SHLQ    $2, R8
	XORQ    R12, R12

gemmldj:
	CMPQ    R12, R8
	JGE     gemmlddone
	TESTQ   R9, R9
	JZ      gemmldzero
	VMOVUPS (DI)(R12*1), Y0
	VMOVUPS 32(DI)(R12*1), Y1
	VMOVUPS 64(DI)(R12*1), Y2
	VMOVUPS 96(DI)(R12*1), Y3
	VMOVUPS (R11)(R12*1), Y4
	VMOVUPS 32(R11)(R12*1), Y5
	VMOVUPS 64(R11)(R12*1), Y6
	VMOVUPS 96(R11)(R12*1), Y7
	JMP     gemmldstart

gemmldzero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

gemmldstart:
	LEAQ (DX)(R12*1), BX
	XORQ R13, R13

gemmldt:
	VMOVUPS      (BX), Y8
	VMOVUPS      32(BX), Y9
	VMOVUPS      64(BX), Y10
	VMOVUPS      96(BX), Y11
	VBROADCASTSS (SI)(R13*4), Y12
	VBROADCASTSS (R10)(R13*4), Y13
	VFMADD231PS  Y8, Y12, Y0
	VFMADD231PS  Y9, Y12, Y1
	VFMADD231PS  Y10, Y12, Y2
	VFMADD231PS  Y11, Y12, Y3
	VFMADD231PS  Y8, Y13, Y4
	VFMADD231PS  Y9, Y13, Y5
	VFMADD231PS  Y10, Y13, Y6
	VFMADD231PS  Y11, Y13, Y7
	ADDQ         R8, BX
	INCQ         R13
	CMPQ         R13, CX
	JLT          gemmldt

	VMOVUPS Y0, (DI)(R12*1)
	VMOVUPS Y1, 32(DI)(R12*1)
	VMOVUPS Y2, 64(DI)(R12*1)
	VMOVUPS Y3, 96(DI)(R12*1)
	VMOVUPS Y4, (R11)(R12*1)
	VMOVUPS Y5, 32(R11)(R12*1)
	VMOVUPS Y6, 64(R11)(R12*1)
	VMOVUPS Y7, 96(R11)(R12*1)
	ADDQ    $128, R12
	JMP     gemmldj

gemmlddone:
	VZEROUPPER
	RET

// func gramToDistAVX2(gr, nb *float32, n int, na float32)
//
// g ← √max((na + nb) − 2g, 0); VMAXPS returns its second (Intel) source,
// 0, where the first is NaN, like the scalar loop.
TEXT ·gramToDistAVX2(SB), NOSPLIT, $0-28
	MOVQ         gr+0(FP), DI
	MOVQ         nb+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS na+24(FP), Y0
	MOVL         $0x40000000, AX
	VMOVD        AX, X1
	VBROADCASTSS X1, Y1
	VXORPS       Y2, Y2, Y2

gramloop:
	CMPQ    CX, $8
	JLT     gramdone
	VMOVUPS (DI), Y3
	VMULPS  Y3, Y1, Y3
	VADDPS  (SI), Y0, Y4
	VSUBPS  Y3, Y4, Y4
	VMAXPS  Y2, Y4, Y4
	VSQRTPS Y4, Y4
	VMOVUPS Y4, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     gramloop

gramdone:
	VZEROUPPER
	RET

// func pairCoefAVX2(dst, dist, w, gr *float32, n int, ga, wa float32, buf *[8]float32)
//
// dst = (w·ga + g·wa) / dist where dist > 0, else 0; buf = the lane sums.
TEXT ·pairCoefAVX2(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         dist+8(FP), SI
	MOVQ         w+16(FP), R8
	MOVQ         gr+24(FP), R9
	MOVQ         n+32(FP), CX
	VBROADCASTSS ga+40(FP), Y0
	VBROADCASTSS wa+44(FP), Y1
	MOVQ         buf+48(FP), DX
	VXORPS       Y2, Y2, Y2
	VXORPS       Y3, Y3, Y3

pairloop:
	CMPQ    CX, $8
	JLT     pairdone
	VMOVUPS (SI), Y4
	VMULPS  (R8), Y0, Y5
	VMULPS  (R9), Y1, Y6
	VADDPS  Y6, Y5, Y5
	VDIVPS  Y4, Y5, Y5
	VCMPPS  $14, Y2, Y4, Y7
	VANDPS  Y7, Y5, Y5
	VMOVUPS Y5, (DI)
	VADDPS  Y5, Y3, Y3
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R9
	SUBQ    $8, CX
	JMP     pairloop

pairdone:
	VMOVUPS Y3, (DX)
	VZEROUPPER
	RET

// func adamAVX2(w, gr, m, v *float32, n int, c *AdamCoeffs)
//
// AdamCoeffs: Beta1 0, Beta2 4, WeightDecay 8, StepSize 12, SqrtBC2 16,
// Eps 20 (bytes).
TEXT ·adamAVX2(SB), NOSPLIT, $0-48
	MOVQ         w+0(FP), DI
	MOVQ         gr+8(FP), SI
	MOVQ         m+16(FP), R8
	MOVQ         v+24(FP), R9
	MOVQ         n+32(FP), CX
	MOVQ         c+40(FP), AX
	MOVL         $0x3f800000, DX
	VMOVD        DX, X15
	VBROADCASTSS X15, Y15         // 1
	VBROADCASTSS 0(AX), Y0        // β₁
	VSUBPS       Y0, Y15, Y1      // 1 − β₁
	VBROADCASTSS 4(AX), Y2        // β₂
	VSUBPS       Y2, Y15, Y3      // 1 − β₂
	VBROADCASTSS 8(AX), Y4        // λ
	VBROADCASTSS 12(AX), Y5       // step
	VBROADCASTSS 16(AX), Y6       // √bc₂
	VBROADCASTSS 20(AX), Y7       // ε
	VXORPS       Y14, Y14, Y14

adamloop:
	CMPQ    CX, $8
	JLT     adamdone
	VMOVUPS (DI), Y8              // w
	VMULPS  Y8, Y4, Y9            // λw
	VADDPS  (SI), Y9, Y9          // g' = g + λw
	VMULPS  (R8), Y0, Y10         // β₁m
	VMULPS  Y9, Y1, Y11           // (1−β₁)g'
	VADDPS  Y11, Y10, Y10         // m
	VMULPS  (R9), Y2, Y11         // β₂v
	VMULPS  Y9, Y9, Y12           // g'²
	VMULPS  Y12, Y3, Y12          // (1−β₂)g'²
	VADDPS  Y12, Y11, Y11         // v
	VMOVUPS Y10, (R8)
	VMOVUPS Y11, (R9)
	VSQRTPS Y11, Y12
	VDIVPS  Y6, Y12, Y12
	VADDPS  Y7, Y12, Y12          // denom
	VMULPS  Y10, Y5, Y13          // step·m
	VDIVPS  Y12, Y13, Y13
	VSUBPS  Y13, Y8, Y8
	VMOVUPS Y8, (DI)
	VMOVUPS Y14, (SI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R9
	SUBQ    $8, CX
	JMP     adamloop

adamdone:
	VZEROUPPER
	RET

// func spmmNarrowRowAVX2(out, x, vals *float32, idx *int32, nnz, n int, acc bool, mask *[16]int32)
//
// One row of a·x for x with n ≤ 16 columns: columns 0–7 in Y0 (entries k
// even) and Y2 (odd), columns 8–15 in Y1 and Y3 when n > 8; x's rows and
// out are read and written with the lane masks Y10 (first 8) and Y11.
TEXT ·spmmNarrowRowAVX2(SB), NOSPLIT, $0-64
	MOVQ    out+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    vals+16(FP), R8
	MOVQ    idx+24(FP), R9
	MOVQ    nnz+32(FP), R10
	MOVQ    n+40(FP), R11
	MOVBLZX acc+48(FP), R14
	MOVQ    mask+56(FP), AX
	VMOVDQU (AX), Y10
	VMOVDQU 32(AX), Y11
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	TESTQ   R14, R14
	JZ      nstart
	VMASKMOVPS (DI), Y10, Y0
	VMASKMOVPS 32(DI), Y11, Y1

nstart:
	XORQ R13, R13
	MOVQ R10, BX
	SUBQ $1, BX
	CMPQ R11, $8
	JGT  nwide

nnarrow:
	CMPQ         R13, BX
	JGE          nnarrowtail
	VBROADCASTSS (R8)(R13*4), Y8
	VBROADCASTSS 4(R8)(R13*4), Y9
	MOVLQSX      (R9)(R13*4), AX
	MOVLQSX      4(R9)(R13*4), DX
	IMULQ        R11, AX
	IMULQ        R11, DX
	VMASKMOVPS   (SI)(AX*4), Y10, Y4
	VMASKMOVPS   (SI)(DX*4), Y10, Y5
	VFMADD231PS  Y4, Y8, Y0
	VFMADD231PS  Y5, Y9, Y2
	ADDQ         $2, R13
	JMP          nnarrow

nnarrowtail:
	CMPQ         R13, R10
	JGE          nstore
	VBROADCASTSS (R8)(R13*4), Y8
	MOVLQSX      (R9)(R13*4), AX
	IMULQ        R11, AX
	VMASKMOVPS   (SI)(AX*4), Y10, Y4
	VFMADD231PS  Y4, Y8, Y0
	JMP          nstore

nwide:
	CMPQ         R13, BX
	JGE          nwidetail
	VBROADCASTSS (R8)(R13*4), Y8
	VBROADCASTSS 4(R8)(R13*4), Y9
	MOVLQSX      (R9)(R13*4), AX
	MOVLQSX      4(R9)(R13*4), DX
	IMULQ        R11, AX
	IMULQ        R11, DX
	LEAQ         (SI)(AX*4), AX
	LEAQ         (SI)(DX*4), DX
	VMOVUPS      (AX), Y4
	VMASKMOVPS   32(AX), Y11, Y5
	VMOVUPS      (DX), Y6
	VMASKMOVPS   32(DX), Y11, Y7
	VFMADD231PS  Y4, Y8, Y0
	VFMADD231PS  Y6, Y9, Y2
	VFMADD231PS  Y5, Y8, Y1
	VFMADD231PS  Y7, Y9, Y3
	ADDQ         $2, R13
	JMP          nwide

nwidetail:
	CMPQ         R13, R10
	JGE          nstore
	VBROADCASTSS (R8)(R13*4), Y8
	MOVLQSX      (R9)(R13*4), AX
	IMULQ        R11, AX
	LEAQ         (SI)(AX*4), AX
	VMOVUPS      (AX), Y4
	VMASKMOVPS   32(AX), Y11, Y5
	VFMADD231PS  Y4, Y8, Y0
	VFMADD231PS  Y5, Y8, Y1

nstore:
	VADDPS     Y2, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)
	CMPQ       R11, $8
	JLE        ndone
	VADDPS     Y3, Y1, Y1
	VMASKMOVPS Y1, Y11, 32(DI)

ndone:
	VZEROUPPER
	RET

// func matNarrowRowAVX2(out, ar, bd *float32, k int, acc bool, mask *[8]int32)
//
// out (n ≤ 8 lanes, mask) (+)= Σ_t ar[t]·bd[8t : 8t+8], four accumulators
// over t (t mod 4 for t < k&^3, the rest into the first), summed as
// (c0+c1)+(c2+c3).
TEXT ·matNarrowRowAVX2(SB), NOSPLIT, $0-48
	MOVQ    out+0(FP), DI
	MOVQ    ar+8(FP), SI
	MOVQ    bd+16(FP), DX
	MOVQ    k+24(FP), CX
	MOVBLZX acc+32(FP), R14
	MOVQ    mask+40(FP), AX
	VMOVDQU (AX), Y10
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	MOVQ    CX, BX
	ANDQ    $-4, BX
	XORQ    R13, R13

mn4:
	CMPQ         R13, BX
	JGE          mn1
	VBROADCASTSS (SI)(R13*4), Y4
	VBROADCASTSS 4(SI)(R13*4), Y5
	VBROADCASTSS 8(SI)(R13*4), Y6
	VBROADCASTSS 12(SI)(R13*4), Y7
	VFMADD231PS  (DX), Y4, Y0
	VFMADD231PS  32(DX), Y5, Y1
	VFMADD231PS  64(DX), Y6, Y2
	VFMADD231PS  96(DX), Y7, Y3
	ADDQ         $128, DX
	ADDQ         $4, R13
	JMP          mn4

mn1:
	CMPQ         R13, CX
	JGE          mnsum
	VBROADCASTSS (SI)(R13*4), Y4
	VFMADD231PS  (DX), Y4, Y0
	ADDQ         $32, DX
	INCQ         R13
	JMP          mn1

mnsum:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	TESTQ  R14, R14
	JZ     mnstore
	VMASKMOVPS (DI), Y10, Y4
	VADDPS     Y4, Y0, Y0

mnstore:
	VMASKMOVPS Y0, Y10, (DI)
	VZEROUPPER
	RET

// func spmmRowSeqAVX2(out, x, vals *float32, idx *int32, nnz, n, w int, acc bool)
// The first w columns (a multiple of 8) of one output row of a·x, x with n
// columns per row: per block of 32 (then 8) columns the accumulators run
// over the row's entries in order, one fused multiply-add per entry, the
// same operations as one axpy per entry into the row (cleared unless acc).
TEXT ·spmmRowSeqAVX2(SB), NOSPLIT, $0-57
	MOVQ    out+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    vals+16(FP), R8
	MOVQ    idx+24(FP), R9
	MOVQ    nnz+32(FP), R10
	MOVQ    n+40(FP), R11
	MOVQ    w+48(FP), R15
	MOVBLZX acc+56(FP), R14
	XORQ    R12, R12

seq32:
	LEAQ    32(R12), CX
	CMPQ    CX, R15
	JGT     seq8
	TESTQ   R14, R14
	JZ      seq32zero
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	JMP     seq32init

seq32zero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

seq32init:
	XORQ R13, R13

seq32k:
	CMPQ         R13, R10
	JGE          seq32store
	VBROADCASTSS (R8)(R13*4), Y8
	MOVLQSX      (R9)(R13*4), AX
	IMULQ        R11, AX
	ADDQ         R12, AX
	LEAQ         (SI)(AX*4), AX
	VFMADD231PS  (AX), Y8, Y0
	VFMADD231PS  32(AX), Y8, Y1
	VFMADD231PS  64(AX), Y8, Y2
	VFMADD231PS  96(AX), Y8, Y3
	INCQ         R13
	JMP          seq32k

seq32store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $32, R12
	JMP     seq32

seq8:
	LEAQ    8(R12), CX
	CMPQ    CX, R15
	JGT     seqdone
	TESTQ   R14, R14
	JZ      seq8zero
	VMOVUPS (DI), Y0
	JMP     seq8init

seq8zero:
	VXORPS Y0, Y0, Y0

seq8init:
	XORQ R13, R13

seq8k:
	CMPQ         R13, R10
	JGE          seq8store
	VBROADCASTSS (R8)(R13*4), Y8
	MOVLQSX      (R9)(R13*4), AX
	IMULQ        R11, AX
	ADDQ         R12, AX
	VFMADD231PS  (SI)(AX*4), Y8, Y0
	INCQ         R13
	JMP          seq8k

seq8store:
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $8, R12
	JMP     seq8

seqdone:
	VZEROUPPER
	RET

// func prefetchRowsAsm(base *float32, stride int, idx *int32, n, lines int)
// Asks the CPU to load, into all cache levels, lines 64-byte lines from
// the start of row idx[i] (stride floats per row) of base, for i < n.
TEXT ·prefetchRowsAsm(SB), NOSPLIT, $0-40
	MOVQ base+0(FP), SI
	MOVQ stride+8(FP), BX
	MOVQ idx+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ lines+32(FP), R9
	SHLQ $2, BX
	XORQ R10, R10

pfrow:
	CMPQ    R10, CX
	JGE     pfdone
	MOVLQSX (R8)(R10*4), AX
	IMULQ   BX, AX
	ADDQ    SI, AX
	MOVQ    R9, DX

pfline:
	TESTQ      DX, DX
	JLE        pfnext
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	DECQ       DX
	JMP        pfline

pfnext:
	INCQ R10
	JMP  pfrow

pfdone:
	RET

// func spmmRow32ChainsAVX2(out0, out1, x, vals *float32, idx *int32, nnz, n int)
//
// spmmRow32AVX2's two accumulation chains, continued: per block of 32
// columns, entries k even (from the first) go on from out0's values, odd
// ones from out1's, a last unpaired entry to out0's; both chains are
// stored back apart (not added). A row cut into pieces gives, piece after
// piece (out0 and out1 swapped for a piece that starts at an odd entry),
// the chains spmmRow32AVX2 adds at its end.
TEXT ·spmmRow32ChainsAVX2(SB), NOSPLIT, $0-56
	MOVQ out0+0(FP), DI
	MOVQ out1+8(FP), R14
	MOVQ x+16(FP), SI
	MOVQ vals+24(FP), R8
	MOVQ idx+32(FP), R9
	MOVQ nnz+40(FP), R10
	MOVQ n+48(FP), R11
	XORQ R12, R12
	MOVQ R10, BX
	SUBQ $1, BX

chj:
	CMPQ    R12, R11
	JGE     chdone
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS (R14), Y4
	VMOVUPS 32(R14), Y5
	VMOVUPS 64(R14), Y6
	VMOVUPS 96(R14), Y7
	XORQ    R13, R13

chk:
	CMPQ         R13, BX
	JGE          chtail
	VBROADCASTSS (R8)(R13*4), Y8
	VBROADCASTSS 4(R8)(R13*4), Y9
	MOVLQSX      (R9)(R13*4), AX
	MOVLQSX      4(R9)(R13*4), DX
	IMULQ        R11, AX
	IMULQ        R11, DX
	ADDQ         R12, AX
	ADDQ         R12, DX
	LEAQ         (SI)(AX*4), AX
	LEAQ         (SI)(DX*4), DX
	VFMADD231PS  (AX), Y8, Y0
	VFMADD231PS  32(AX), Y8, Y1
	VFMADD231PS  64(AX), Y8, Y2
	VFMADD231PS  96(AX), Y8, Y3
	VFMADD231PS  (DX), Y9, Y4
	VFMADD231PS  32(DX), Y9, Y5
	VFMADD231PS  64(DX), Y9, Y6
	VFMADD231PS  96(DX), Y9, Y7
	ADDQ         $2, R13
	JMP          chk

chtail:
	CMPQ         R13, R10
	JGE          chstore
	VBROADCASTSS (R8)(R13*4), Y8
	MOVLQSX      (R9)(R13*4), AX
	IMULQ        R11, AX
	ADDQ         R12, AX
	LEAQ         (SI)(AX*4), AX
	VFMADD231PS  (AX), Y8, Y0
	VFMADD231PS  32(AX), Y8, Y1
	VFMADD231PS  64(AX), Y8, Y2
	VFMADD231PS  96(AX), Y8, Y3

chstore:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, (R14)
	VMOVUPS Y5, 32(R14)
	VMOVUPS Y6, 64(R14)
	VMOVUPS Y7, 96(R14)
	ADDQ    $128, DI
	ADDQ    $128, R14
	ADDQ    $32, R12
	JMP     chj

chdone:
	VZEROUPPER
	RET

// func gemm6x16AVX2(out *float32, ldc int, a *float32, lda int, b *float32, ldb, k, n int, acc bool)
//
// Six rows of out (stride ldc) = six rows of a (stride lda) · b (k×n, row
// stride ldb), n a multiple of 16, k ≥ 1; acc adds to out. Each output
// element is gemm2x32AVX2's chain: its start (0 or out) then one fused
// multiply-add per t in order, so the bits are gemm2x32AVX2's. Twelve
// accumulators (6 rows × 16 columns) instead of eight keep both FMA pipes
// busy across the four-cycle FMA latency on hosts without AVX-512.
TEXT ·gemm6x16AVX2(SB), NOSPLIT, $0-65
	MOVQ    out+0(FP), DI
	MOVQ    ldc+8(FP), R11
	MOVQ    a+16(FP), SI
	MOVQ    lda+24(FP), AX
	MOVQ    b+32(FP), DX
	MOVQ    ldb+40(FP), R8
	MOVQ    k+48(FP), CX
	MOVBLZX acc+64(FP), R9
	SHLQ    $2, R11
	SHLQ    $2, AX
	SHLQ    $2, R8
	LEAQ    (SI)(AX*2), R10
	ADDQ    AX, R10
	XORQ    R12, R12

g6j:
	CMPQ    R12, n+56(FP)
	JGE     g6done
	LEAQ    (DI)(R12*4), R15
	LEAQ    (R15)(R11*2), R13
	ADDQ    R11, R13
	TESTQ   R9, R9
	JZ      g6zero
	VMOVUPS (R15), Y0
	VMOVUPS 32(R15), Y1
	VMOVUPS (R15)(R11*1), Y2
	VMOVUPS 32(R15)(R11*1), Y3
	VMOVUPS (R15)(R11*2), Y4
	VMOVUPS 32(R15)(R11*2), Y5
	VMOVUPS (R13), Y6
	VMOVUPS 32(R13), Y7
	VMOVUPS (R13)(R11*1), Y8
	VMOVUPS 32(R13)(R11*1), Y9
	VMOVUPS (R13)(R11*2), Y10
	VMOVUPS 32(R13)(R11*2), Y11
	JMP     g6start

g6zero:
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

g6start:
	LEAQ (DX)(R12*4), BX
	MOVQ CX, R13

g6t:
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
	JNZ          g6t

	MOVQ    CX, R15
	SHLQ    $2, R15
	SUBQ    R15, SI
	SUBQ    R15, R10
	LEAQ    (DI)(R12*4), R15
	LEAQ    (R15)(R11*2), R13
	ADDQ    R11, R13
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
	ADDQ    $16, R12
	JMP     g6j

g6done:
	VZEROUPPER
	RET

// func maxIndexAVX2(idx *int32, n int) uint32
//
// The largest of idx[0:n] read as unsigned 32-bit values (so a negative
// index counts as ≥ 2³¹); 0 when n = 0.
TEXT ·maxIndexAVX2(SB), NOSPLIT, $0-20
	MOVQ  idx+0(FP), SI
	MOVQ  n+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	XORQ  AX, AX

mx16:
	CMPQ    CX, $16
	JLT     mxtail
	VPMAXUD (SI), Y0, Y0
	VPMAXUD 32(SI), Y1, Y1
	ADDQ    $64, SI
	SUBQ    $16, CX
	JMP     mx16

mxtail:
	TESTQ   CX, CX
	JZ      mxreduce
	MOVL    (SI), DX
	CMPL    DX, AX
	CMOVLHI DX, AX
	ADDQ    $4, SI
	DECQ    CX
	JMP     mxtail

mxreduce:
	VPMAXUD      Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD      X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPMAXUD      X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPMAXUD      X1, X0, X0
	VMOVD        X0, DX
	CMPL         DX, AX
	CMOVLHI      DX, AX
	MOVL         AX, ret+16(FP)
	VZEROUPPER
	RET
