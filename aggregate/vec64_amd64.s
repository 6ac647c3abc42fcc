//go:build amd64 && !purego

#include "textflag.h"

// Four-lane AVX kernels of vec64_amd64.go for the float64 steps of the
// softmax weights (Go operand order: the reverse of Intel's). Each lane
// does what the scalar loop does to its element: the bits are the same.

// func max64AVX(z *float64, n int) (m float64, nan bool)
//
// m = max(z[:n]) (n a positive multiple of 4); nan reports a NaN in z.
TEXT ·max64AVX(SB), NOSPLIT, $0-25
	MOVQ    z+0(FP), SI
	MOVQ    n+8(FP), CX
	VMOVUPD (SI), Y0
	VCMPPD  $3, Y0, Y0, Y1
	ADDQ    $32, SI
	SUBQ    $4, CX

mloop:
	CMPQ    CX, $0
	JLE     mdone
	VMOVUPD (SI), Y2
	VMAXPD  Y2, Y0, Y0
	VCMPPD  $3, Y2, Y2, Y3
	VORPD   Y3, Y1, Y1
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     mloop

mdone:
	VEXTRACTF128 $1, Y0, X2
	VMAXPD       X2, X0, X0
	VPERMILPD    $1, X0, X2
	VMAXPD       X2, X0, X0
	VMOVSD       X0, m+16(FP)
	VPTEST       Y1, Y1
	SETNE        nan+24(FP)
	VZEROUPPER
	RET

// func sub64AVX(s, z *float64, n int, m float64)
//
// s[i] = z[i] − m for i < n (n a multiple of 4).
TEXT ·sub64AVX(SB), NOSPLIT, $0-32
	MOVQ         s+0(FP), DI
	MOVQ         z+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD m+24(FP), Y1

sloop:
	CMPQ    CX, $0
	JLE     sdone
	VMOVUPD (SI), Y0
	VSUBPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JMP     sloop

sdone:
	VZEROUPPER
	RET

// func div64AVX(s *float64, n int, d float64)
//
// s[i] /= d for i < n (n a multiple of 4).
TEXT ·div64AVX(SB), NOSPLIT, $0-24
	MOVQ         s+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSD d+16(FP), Y1

dloop:
	CMPQ    CX, $0
	JLE     ddone
	VMOVUPD (DI), Y0
	VDIVPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $4, CX
	JMP     dloop

ddone:
	VZEROUPPER
	RET

// func crit64AVX(crit *float64, c *float32, n int, invT float64)
//
// crit[i] = −c'·invT with c' = float64(c[i]), or MaxFloat32 where c[i] is
// not finite (n a multiple of 4).
TEXT ·crit64AVX(SB), NOSPLIT, $0-32
	MOVQ         crit+0(FP), DI
	MOVQ         c+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD invT+24(FP), Y1
	MOVQ         $0x7fffffffffffffff, AX
	VMOVQ        AX, X2
	VBROADCASTSD X2, Y2                // |·| mask
	MOVQ         $0x7ff0000000000000, AX
	VMOVQ        AX, X3
	VBROADCASTSD X3, Y3                // +Inf
	MOVQ         $0x47efffffe0000000, AX
	VMOVQ        AX, X4
	VBROADCASTSD X4, Y4                // MaxFloat32
	MOVQ         $0x8000000000000000, AX
	VMOVQ        AX, X5
	VBROADCASTSD X5, Y5                // sign bit

cloop:
	CMPQ      CX, $0
	JLE       cdone
	VCVTPS2PD (SI), Y0
	VANDPD    Y2, Y0, Y6
	VCMPPD    $5, Y3, Y6, Y6           // NLT_US: |c| ≥ +Inf or NaN
	VBLENDVPD Y6, Y4, Y0, Y0
	VXORPD    Y5, Y0, Y0
	VMULPD    Y1, Y0, Y0
	VMOVUPD   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $4, CX
	JMP       cloop

cdone:
	VZEROUPPER
	RET

// func mulDiv64AVX(dst, s *float64, w *float32, n int, z float64)
//
// dst[i] = s[i]·float64(w[i]) / z for i < n (n a multiple of 4).
TEXT ·mulDiv64AVX(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         s+8(FP), SI
	MOVQ         w+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSD z+32(FP), Y1

qloop:
	CMPQ      CX, $0
	JLE       qdone
	VCVTPS2PD (DX), Y0
	VMULPD    (SI), Y0, Y0
	VDIVPD    Y1, Y0, Y0
	VMOVUPD   Y0, (DI)
	ADDQ      $16, DX
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $4, CX
	JMP       qloop

qdone:
	VZEROUPPER
	RET

// func corrGrads64AVX(gs, tv, s, e *float64, w *float32, n int, z, ebar float64)
//
// For i < n (a multiple of 4), with δ = e[i] − ebar:
// gs[i] = (float64(w[i]) / z)·δ and tv[i] = (s[i] / z)·δ.
TEXT ·corrGrads64AVX(SB), NOSPLIT, $0-64
	MOVQ         gs+0(FP), DI
	MOVQ         tv+8(FP), R8
	MOVQ         s+16(FP), SI
	MOVQ         e+24(FP), DX
	MOVQ         w+32(FP), R9
	MOVQ         n+40(FP), CX
	VBROADCASTSD z+48(FP), Y1
	VBROADCASTSD ebar+56(FP), Y2

gloop:
	CMPQ      CX, $0
	JLE       gdone
	VMOVUPD   (DX), Y3
	VSUBPD    Y2, Y3, Y3                  // δ
	VCVTPS2PD (R9), Y0
	VDIVPD    Y1, Y0, Y0
	VMULPD    Y3, Y0, Y0
	VMOVUPD   Y0, (DI)
	VMOVUPD   (SI), Y4
	VDIVPD    Y1, Y4, Y4
	VMULPD    Y3, Y4, Y4
	VMOVUPD   Y4, (R8)
	ADDQ      $32, DI
	ADDQ      $32, R8
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $16, R9
	SUBQ      $4, CX
	JMP       gloop

gdone:
	VZEROUPPER
	RET

// func softGrad64AVX(gc32 *float32, s, gs *float64, n int, sg, invT float64)
//
// gc32[i] = float32((−s[i])·(gs[i] − sg)·invT) for i < n (a multiple of 4).
TEXT ·softGrad64AVX(SB), NOSPLIT, $0-48
	MOVQ         gc32+0(FP), DI
	MOVQ         s+8(FP), SI
	MOVQ         gs+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSD sg+32(FP), Y1
	VBROADCASTSD invT+40(FP), Y2
	MOVQ         $0x8000000000000000, AX
	VMOVQ        AX, X5
	VBROADCASTSD X5, Y5                   // sign bit

floop:
	CMPQ      CX, $0
	JLE       fdone
	VMOVUPD   (DX), Y3
	VSUBPD    Y1, Y3, Y3
	VMOVUPD   (SI), Y0
	VXORPD    Y5, Y0, Y0
	VMULPD    Y3, Y0, Y0
	VMULPD    Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS   X0, (DI)
	ADDQ      $16, DI
	ADDQ      $32, SI
	ADDQ      $32, DX
	SUBQ      $4, CX
	JMP       floop

fdone:
	VZEROUPPER
	RET
