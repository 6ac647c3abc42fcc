//go:build amd64 && !purego

#include "textflag.h"

// func prefetch(p unsafe.Pointer)
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ       p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func prefetchIndexed32(base unsafe.Pointer, idx *int32, n int)
TEXT ·prefetchIndexed32(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ base+0(FP), DI
	MOVQ idx+8(FP), SI
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JLE  done

loop:
	MOVLQSX    (SI), AX
	SHLQ       $5, AX
	PREFETCHT0 (DI)(AX*1)
	ADDQ       $4, SI
	DECQ       CX
	JNZ        loop

done:
	RET
