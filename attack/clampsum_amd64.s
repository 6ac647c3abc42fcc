//go:build amd64 && !purego

#include "textflag.h"

// func clampSumAVX2(vals *float32, n int, mu float64) float64
//
// Σ clamp(float64(v) − μ, 0, 1) over n entries (n a multiple of 16, not
// NaN), each term as Go computes min(max(x−μ, 0), 1) (VMAXPD/VMINPD with
// the constant second, which they return on ties), summed in four 4-lane
// running sums: a sum in some order (ProjectBudget only needs its bound).
TEXT ·clampSumAVX2(SB), NOSPLIT, $0-32
	MOVQ         vals+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD mu+16(FP), Y15
	VXORPD       Y14, Y14, Y14
	MOVQ         $0x3ff0000000000000, AX
	VMOVQ        AX, X13
	VBROADCASTSD X13, Y13
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3
	SHLQ         $2, CX
	ADDQ         SI, CX
	CMPQ         SI, CX
	JGE          done

loop:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VSUBPD    Y15, Y4, Y4
	VSUBPD    Y15, Y5, Y5
	VSUBPD    Y15, Y6, Y6
	VSUBPD    Y15, Y7, Y7
	VMAXPD    Y14, Y4, Y4
	VMAXPD    Y14, Y5, Y5
	VMAXPD    Y14, Y6, Y6
	VMAXPD    Y14, Y7, Y7
	VMINPD    Y13, Y4, Y4
	VMINPD    Y13, Y5, Y5
	VMINPD    Y13, Y6, Y6
	VMINPD    Y13, Y7, Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	ADDQ      $64, SI
	CMPQ      SI, CX
	JLT       loop

done:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VPERMILPD    $1, X0, X1
	VADDSD       X1, X0, X0
	VMOVSD       X0, ret+24(FP)
	VZEROUPPER
	RET

// func minMaxAVX2(vals *float32, n int, out *[24]float32)
//
// Lane-wise extremes of n entries (n a multiple of 16): out[0:8] the
// least, out[8:16] the largest, out[16:24] nonzero where a NaN was seen
// (the extremes are then meaningless).
TEXT ·minMaxAVX2(SB), NOSPLIT, $0-24
	MOVQ         vals+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         out+16(FP), DI
	MOVL         $0x7f800000, AX
	VMOVD        AX, X0
	VBROADCASTSS X0, Y0
	VMOVAPS      Y0, Y1
	MOVL         $0xff800000, AX
	VMOVD        AX, X2
	VBROADCASTSS X2, Y2
	VMOVAPS      Y2, Y3
	VXORPS       Y6, Y6, Y6
	SHLQ         $2, CX
	ADDQ         SI, CX
	CMPQ         SI, CX
	JGE          mmdone

mmloop:
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMINPS  Y4, Y0, Y0
	VMINPS  Y5, Y1, Y1
	VMAXPS  Y4, Y2, Y2
	VMAXPS  Y5, Y3, Y3
	VCMPPS  $3, Y4, Y4, Y7
	VORPS   Y7, Y6, Y6
	VCMPPS  $3, Y5, Y5, Y7
	VORPS   Y7, Y6, Y6
	ADDQ    $64, SI
	CMPQ    SI, CX
	JLT     mmloop

mmdone:
	VMINPS  Y1, Y0, Y0
	VMAXPS  Y3, Y2, Y2
	VMOVUPS Y0, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y6, 64(DI)
	VZEROUPPER
	RET
