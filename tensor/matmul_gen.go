//go:build ignore

// matmul_gen.go writes matmul_amd64.s, the register-blocked kernels of the
// dense products (matmul_amd64.go):
//
//	go run matmul_gen.go
//
// Two families, each for AVX-512 (F and VL: k-mask skips) and for AVX2+FMA
// (blend skips):
//
//   - axpyZ<f><h><u> / axpyY<f><u>: a tile of output rows × one column panel
//     of fused units — f of 16 columns in Z registers and h = 1 one of 8 in
//     a Y register, or f of 8 in Y registers — and, when u = 1, the unfused
//     unit (the < 8 columns past the last multiple of 8, masked loads and
//     stores). Every output element follows the sequence of one axpy per
//     nonzero a value: for t in order, where a(r, t) ≠ ±0 (NaN included),
//     c ← fma(a, b, c) in the fused columns and c ← c + round(a·b) in the
//     unfused ones. The skip is a per-row mask (a k register or a blend), so
//     a zero a leaves c untouched whatever b holds. Rows are addressed as
//     a + r·sai + t·sat, so the same kernels serve a·b (a's rows) and aᵀ·b
//     (a's columns). The row count of a call selects an unrolled tile.
//   - dotZ / dotY: rows of a times the rows of b packed in column blocks
//     (bt[block][k][lane], 16 or 8 lanes), one output column per lane: the
//     sixteen partial sums of dot's vector path (lanes l and l + 8 of its
//     two 8-lane accumulators) are sixteen registers, then dot's reduction
//     ((s0+s1), hsum8's tree), the tail's four unfused partial sums and
//     (t0+t1)+(t2+t3) are the same operations, lane by lane.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
)

type asm struct{ bytes.Buffer }

func (w *asm) op(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
func (w *asm) label(l string)                { fmt.Fprintf(w, "\n%s:\n", l) }
func (w *asm) text(format string, args ...any) {
	fmt.Fprintf(w, format, args...)
}

// zRows is the tile height of axpyZ for ut units per row (ut·rows
// accumulators, ut units of b, the broadcast, a product and zero in 32
// registers); yRows the same for axpyY (16 registers: broadcast, mask,
// product, zero and the unfused unit's lane mask).
func zRows(ut int) int {
	switch {
	case ut <= 3:
		return 8
	case ut == 4:
		return 6
	}
	return 4
}

func yRows(f, u int) int {
	r := (12 - u) / (f + u)
	return max(1, min(4, r))
}

// rowAddr is the address of a(r, t) for r < 8: SI = a(0, t), R12 = a(3, t),
// R9 = sai and R13 = 3·sai in bytes.
var rowAddr = [8]string{"(SI)", "(SI)(R9*1)", "(SI)(R9*2)", "(R12)", "(SI)(R9*4)", "(R12)(R9*2)", "(SI)(R13*2)", "(R12)(R9*4)"}

// axpyZ writes axpyZ<f><h><u>: f fused Z units of 16 columns, h = 1 one
// fused Y unit of 8 and u = 1 the unfused Y unit (AVX-512VL: Y registers
// with k masks). Z31 holds 0x7fffffff in every lane (a value is skipped
// when VPTESTMD finds its bits other than the sign all zero), Z30 the
// broadcast a value, Z29 the unfused unit's product.
func axpyZ(w *asm, f, h, u int) {
	ut := f + h + u
	rmax := zRows(ut)
	name := fmt.Sprintf("axpyZ%d%d%d", f, h, u)
	w.text("\n// func %s(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)\n", name)
	w.text("//\n// %d fused Z unit(s), %d fused Y unit(s)", f, h)
	if u == 1 {
		w.text(" and the unfused unit at column uoff")
	}
	w.text(", 1 ≤ rows ≤ %d.\n", rmax)
	w.text("TEXT ·%s(SB), NOSPLIT, $0-89\n", name)
	w.op("MOVQ    c+0(FP), DI")
	w.op("MOVQ    ldc+8(FP), R8")
	w.op("SHLQ    $2, R8")
	w.op("MOVQ    a+16(FP), SI")
	w.op("MOVQ    sai+24(FP), R9")
	w.op("SHLQ    $2, R9")
	w.op("MOVQ    sat+32(FP), R10")
	w.op("SHLQ    $2, R10")
	w.op("MOVQ    b+40(FP), DX")
	w.op("MOVQ    ldb+48(FP), R11")
	w.op("SHLQ    $2, R11")
	w.op("MOVQ    rows+56(FP), BX")
	w.op("MOVQ    t+64(FP), CX")
	w.op("MOVQ    uoff+72(FP), R14")
	w.op("SHLQ    $2, R14")
	w.op("MOVQ    umask+80(FP), AX")
	w.op("KMOVW   AX, K7")
	w.op("MOVBLZX load+88(FP), R15")
	w.op("LEAQ    (R9)(R9*2), R13")
	w.op("LEAQ    (SI)(R13*1), R12")
	w.op("MOVL    $0x7fffffff, AX")
	w.op("VPBROADCASTD AX, Z31")
	for r := 1; r <= rmax; r++ {
		w.op("CMPQ    BX, $%d", r)
		w.op("JEQ     %s_r%d", name, r)
	}
	w.op("VZEROUPPER")
	w.op("RET")
	// Unit k: Z (k < f) or Y register, its column offset (the unfused
	// unit's in R14) and load/store mask.
	reg := func(k, idx int) string {
		if k < f {
			return fmt.Sprintf("Z%d", idx)
		}
		return fmt.Sprintf("Y%d", idx)
	}
	addr := func(base string, k int) string {
		if k == f+h {
			return fmt.Sprintf("(%s)(R14*1)", base)
		}
		return fmt.Sprintf("%d(%s)", 64*k, base)
	}
	bReg := func(k int) string { return reg(k, rmax*ut+k) }
	for r := 1; r <= rmax; r++ {
		l := fmt.Sprintf("%s_r%d", name, r)
		acc := func(i, k int) string { return reg(k, i*ut+k) }
		w.label(l)
		w.op("MOVQ    DI, AX")
		w.op("TESTQ   R15, R15")
		w.op("JZ      %s_zero", l)
		for i := 0; i < r; i++ {
			for k := 0; k < ut; k++ {
				if k == f+h {
					w.op("VMOVUPS.Z %s, K7, %s", addr("AX", k), acc(i, k))
				} else {
					w.op("VMOVUPS %s, %s", addr("AX", k), acc(i, k))
				}
			}
			if i+1 < r {
				w.op("ADDQ    R8, AX")
			}
		}
		w.op("JMP     %s_start", l)
		w.label(l + "_zero")
		for i := 0; i < r; i++ {
			for k := 0; k < ut; k++ {
				z := fmt.Sprintf("Z%d", i*ut+k)
				w.op("VPXORD  %s, %s, %s", z, z, z)
			}
		}
		w.label(l + "_start")
		w.op("TESTQ   CX, CX")
		w.op("JZ      %s_store", l)
		w.label(l + "_t")
		for k := 0; k < ut; k++ {
			if k == f+h {
				w.op("VMOVUPS.Z %s, K7, %s", addr("DX", k), bReg(k))
			} else {
				w.op("VMOVUPS %s, %s", addr("DX", k), bReg(k))
			}
		}
		for i := 0; i < r; i++ {
			w.op("VBROADCASTSS %s, Z30", rowAddr[i])
			w.op("VPTESTMD Z31, Z30, K1")
			for k := 0; k < f+h; k++ {
				w.op("VFMADD231PS %s, %s, K1, %s", bReg(k), reg(k, 30), acc(i, k))
			}
			if u == 1 {
				w.op("VMULPS  %s, Y30, Y29", bReg(f+h))
				w.op("VADDPS  Y29, %s, K1, %s", acc(i, f+h), acc(i, f+h))
			}
		}
		w.op("ADDQ    R10, SI")
		w.op("ADDQ    R10, R12")
		w.op("ADDQ    R11, DX")
		w.op("DECQ    CX")
		w.op("JNZ     %s_t", l)
		w.label(l + "_store")
		w.op("MOVQ    DI, AX")
		for i := 0; i < r; i++ {
			for k := 0; k < ut; k++ {
				if k == f+h {
					w.op("VMOVUPS %s, K7, %s", acc(i, k), addr("AX", k))
				} else {
					w.op("VMOVUPS %s, %s", acc(i, k), addr("AX", k))
				}
			}
			if i+1 < r {
				w.op("ADDQ    R8, AX")
			}
		}
		w.op("VZEROUPPER")
		w.op("RET")
	}
}

// axpyY writes axpyY<f><u>: Y15 zero, Y14 the broadcast, Y13 the row's
// mask, Y12 the product, Y11 the unfused unit's lane mask.
func axpyY(w *asm, f, u int) {
	ut := f + u
	rmax := yRows(f, u)
	name := fmt.Sprintf("axpyY%d%d", f, u)
	w.text("\n// func %s(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)\n", name)
	w.text("//\n// %d fused Y unit(s)", f)
	if u == 1 {
		w.text(" and the unfused unit at column uoff")
	}
	w.text(", 1 ≤ rows ≤ %d.\n", rmax)
	w.text("TEXT ·%s(SB), NOSPLIT, $0-89\n", name)
	w.op("MOVQ    c+0(FP), DI")
	w.op("MOVQ    ldc+8(FP), R8")
	w.op("SHLQ    $2, R8")
	w.op("MOVQ    a+16(FP), SI")
	w.op("MOVQ    sai+24(FP), R9")
	w.op("SHLQ    $2, R9")
	w.op("MOVQ    sat+32(FP), R10")
	w.op("SHLQ    $2, R10")
	w.op("MOVQ    b+40(FP), DX")
	w.op("MOVQ    ldb+48(FP), R11")
	w.op("SHLQ    $2, R11")
	w.op("MOVQ    rows+56(FP), BX")
	w.op("MOVQ    t+64(FP), CX")
	w.op("MOVQ    uoff+72(FP), R14")
	w.op("SHLQ    $2, R14")
	w.op("MOVQ    umask+80(FP), AX")
	if u == 1 {
		w.op("VMOVDQU (AX), Y11")
	}
	w.op("MOVBLZX load+88(FP), R15")
	w.op("LEAQ    (R9)(R9*2), R13")
	w.op("LEAQ    (SI)(R13*1), R12")
	w.op("VXORPS  Y15, Y15, Y15")
	for r := 1; r <= rmax; r++ {
		w.op("CMPQ    BX, $%d", r)
		w.op("JEQ     %s_r%d", name, r)
	}
	w.op("VZEROUPPER")
	w.op("RET")
	for r := 1; r <= rmax; r++ {
		l := fmt.Sprintf("%s_r%d", name, r)
		acc := func(i, k int) string { return fmt.Sprintf("Y%d", i*ut+k) }
		w.label(l)
		w.op("MOVQ    DI, AX")
		w.op("TESTQ   R15, R15")
		w.op("JZ      %s_zero", l)
		for i := 0; i < r; i++ {
			for k := 0; k < ut; k++ {
				if k == f {
					w.op("VMASKMOVPS (AX)(R14*1), Y11, %s", acc(i, k))
				} else {
					w.op("VMOVUPS %d(AX), %s", 32*k, acc(i, k))
				}
			}
			if i+1 < r {
				w.op("ADDQ    R8, AX")
			}
		}
		w.op("JMP     %s_start", l)
		w.label(l + "_zero")
		for i := 0; i < r; i++ {
			for k := 0; k < ut; k++ {
				w.op("VXORPS  %s, %s, %s", acc(i, k), acc(i, k), acc(i, k))
			}
		}
		w.label(l + "_start")
		w.op("TESTQ   CX, CX")
		w.op("JZ      %s_store", l)
		w.label(l + "_t")
		for i := 0; i < r; i++ {
			w.op("VBROADCASTSS %s, Y14", rowAddr[i])
			w.op("VCMPPS  $4, Y15, Y14, Y13")
			for k := 0; k < f; k++ {
				w.op("VMOVUPS %d(DX), Y12", 32*k)
				w.op("VFMADD213PS %s, Y14, Y12", acc(i, k))
				w.op("VBLENDVPS Y13, Y12, %s, %s", acc(i, k), acc(i, k))
			}
			if u == 1 {
				w.op("VMASKMOVPS (DX)(R14*1), Y11, Y12")
				w.op("VMULPS  Y12, Y14, Y12")
				w.op("VADDPS  Y12, %s, Y12", acc(i, f))
				w.op("VBLENDVPS Y13, Y12, %s, %s", acc(i, f), acc(i, f))
			}
		}
		w.op("ADDQ    R10, SI")
		w.op("ADDQ    R10, R12")
		w.op("ADDQ    R11, DX")
		w.op("DECQ    CX")
		w.op("JNZ     %s_t", l)
		w.label(l + "_store")
		w.op("MOVQ    DI, AX")
		for i := 0; i < r; i++ {
			for k := 0; k < ut; k++ {
				if k == f {
					w.op("VMASKMOVPS %s, Y11, (AX)(R14*1)", acc(i, k))
				} else {
					w.op("VMOVUPS %s, %d(AX)", acc(i, k), 32*k)
				}
			}
			if i+1 < r {
				w.op("ADDQ    R8, AX")
			}
		}
		w.op("VZEROUPPER")
		w.op("RET")
	}
}

// dotZ writes dotZ: per row of a and per 16-column block, Z0–Z15 the
// sixteen partial sums, Z16–Z23 broadcasts, Z8–Z11 the tail's partial sums.
func dotZ(w *asm) {
	w.text(`
// func dotZ(c *float32, ldc int, a *float32, lda int, bt *float32, rows, k, nb, lastmask int, acc bool)
//
// c[i, 16j+l] (+)= dot(a's row i, b's row 16j+l) for i < rows, j < nb, the
// lanes l of the last block limited to lastmask; bt[j][t][l] = b[16j+l][t].
TEXT ·dotZ(SB), NOSPLIT, $0-73
`)
	w.op("MOVQ    c+0(FP), DI")
	w.op("MOVQ    ldc+8(FP), R8")
	w.op("SHLQ    $2, R8")
	w.op("MOVQ    a+16(FP), SI")
	w.op("MOVQ    lda+24(FP), R9")
	w.op("SHLQ    $2, R9")
	w.op("MOVQ    bt+32(FP), DX")
	w.op("MOVQ    rows+40(FP), BX")
	w.op("MOVQ    k+48(FP), R10")
	w.op("MOVQ    nb+56(FP), R11")
	w.op("MOVQ    lastmask+64(FP), AX")
	w.op("KMOVW   AX, K7")
	w.op("MOVBLZX acc+72(FP), R12")
	w.op("MOVL    $0xffff, AX")
	w.op("KMOVW   AX, K1")
	w.label("dotz_row")
	w.op("TESTQ   BX, BX")
	w.op("JZ      dotz_done")
	w.op("MOVQ    DX, R14") // the block's packed columns
	w.op("MOVQ    DI, R13") // the block's output
	w.op("XORQ    AX, AX")  // block index
	w.label("dotz_block")
	w.op("KMOVW   K1, K2")
	w.op("LEAQ    1(AX), CX")
	w.op("CMPQ    CX, R11")
	w.op("JLT     dotz_full")
	w.op("KMOVW   K7, K2")
	w.label("dotz_full")
	for l := 0; l < 16; l++ {
		w.op("VPXORD  Z%d, Z%d, Z%d", l, l, l)
	}
	w.op("MOVQ    SI, R15")
	w.op("MOVQ    R10, CX")
	w.op("SHRQ    $4, CX")
	w.op("JZ      dotz_tail")
	w.label("dotz_q")
	for l := 0; l < 16; l++ {
		w.op("VMOVUPS %d(R14), Z%d", 64*l, 16+l%8)
		w.op("VFMADD231PS.BCST %d(R15), Z%d, Z%d", 4*l, 16+l%8, l)
	}
	w.op("ADDQ    $64, R15")
	w.op("ADDQ    $1024, R14")
	w.op("DECQ    CX")
	w.op("JNZ     dotz_q")
	// buf = s0 + s1, then hsum8's tree.
	for l := 0; l < 8; l++ {
		w.op("VADDPS  Z%d, Z%d, Z%d", l+8, l, l)
	}
	w.op("VADDPS  Z1, Z0, Z0")
	w.op("VADDPS  Z3, Z2, Z2")
	w.op("VADDPS  Z5, Z4, Z4")
	w.op("VADDPS  Z7, Z6, Z6")
	w.op("VADDPS  Z2, Z0, Z0")
	w.op("VADDPS  Z6, Z4, Z4")
	w.op("VADDPS  Z4, Z0, Z0")
	w.label("dotz_tail")
	w.op("MOVQ    R10, CX")
	w.op("ANDQ    $15, CX")
	w.op("JZ      dotz_out")
	// dotGeneric of the tail: four partial sums over its groups of four,
	// the rest into the first, then (t0+t1)+(t2+t3).
	for l := 8; l < 12; l++ {
		w.op("VPXORD  Z%d, Z%d, Z%d", l, l, l)
	}
	w.op("SHRQ    $2, CX")
	w.op("JZ      dotz_rest")
	w.label("dotz_g")
	for l := 0; l < 4; l++ {
		w.op("VBROADCASTSS %d(R15), Z%d", 4*l, 16+l)
		w.op("VMULPS  %d(R14), Z%d, Z%d", 64*l, 16+l, 20+l)
		w.op("VADDPS  Z%d, Z%d, Z%d", 20+l, 8+l, 8+l)
	}
	w.op("ADDQ    $16, R15")
	w.op("ADDQ    $256, R14")
	w.op("DECQ    CX")
	w.op("JNZ     dotz_g")
	w.label("dotz_rest")
	w.op("MOVQ    R10, CX")
	w.op("ANDQ    $3, CX")
	w.op("JZ      dotz_tsum")
	w.label("dotz_r")
	w.op("VBROADCASTSS (R15), Z16")
	w.op("VMULPS  (R14), Z16, Z20")
	w.op("VADDPS  Z20, Z8, Z8")
	w.op("ADDQ    $4, R15")
	w.op("ADDQ    $64, R14")
	w.op("DECQ    CX")
	w.op("JNZ     dotz_r")
	w.label("dotz_tsum")
	w.op("VADDPS  Z9, Z8, Z8")
	w.op("VADDPS  Z11, Z10, Z10")
	w.op("VADDPS  Z10, Z8, Z8")
	w.op("CMPQ    R10, $16")
	w.op("JGE     dotz_add")
	w.op("VMOVAPS Z8, Z0") // no vector part: dot is the tail's sum
	w.op("JMP     dotz_out")
	w.label("dotz_add")
	w.op("VADDPS  Z8, Z0, Z0")
	w.label("dotz_out")
	w.op("TESTQ   R12, R12")
	w.op("JZ      dotz_store")
	w.op("VMOVUPS.Z (R13), K2, Z1")
	w.op("VADDPS  Z0, Z1, Z0")
	w.label("dotz_store")
	w.op("VMOVUPS Z0, K2, (R13)")
	w.op("ADDQ    $64, R13")
	w.op("INCQ    AX")
	w.op("CMPQ    AX, R11")
	w.op("JLT     dotz_block")
	w.op("ADDQ    R8, DI")
	w.op("ADDQ    R9, SI")
	w.op("DECQ    BX")
	w.op("JMP     dotz_row")
	w.label("dotz_done")
	w.op("VZEROUPPER")
	w.op("RET")
}

// dotY writes dotY: dotZ with 8-column blocks in Y registers. Sixteen
// partial sums do not fit beside the temporaries, so the second eight
// (dot's s1) run first and wait in the frame while the first eight run.
func dotY(w *asm) {
	w.text(`
// func dotY(c *float32, ldc int, a *float32, lda int, bt *float32, rows, k, nb int, lastmask *[8]int32, acc bool)
//
// c[i, 8j+l] (+)= dot(a's row i, b's row 8j+l) for i < rows, j < nb, the
// lanes l of the last block limited to lastmask; bt[j][t][l] = b[8j+l][t].
TEXT ·dotY(SB), NOSPLIT, $256-73
`)
	w.op("MOVQ    c+0(FP), DI")
	w.op("MOVQ    ldc+8(FP), R8")
	w.op("SHLQ    $2, R8")
	w.op("MOVQ    a+16(FP), SI")
	w.op("MOVQ    lda+24(FP), R9")
	w.op("SHLQ    $2, R9")
	w.op("MOVQ    bt+32(FP), DX")
	w.op("MOVQ    rows+40(FP), BX")
	w.op("MOVQ    k+48(FP), R10")
	w.op("MOVQ    lastmask+64(FP), AX")
	w.op("VMOVDQU (AX), Y15")
	w.label("doty_row")
	w.op("TESTQ   BX, BX")
	w.op("JZ      doty_done")
	w.op("MOVQ    DX, R14") // the block's packed columns
	w.op("MOVQ    DI, AX")  // the block's output
	w.op("MOVQ    nb+56(FP), R11")
	w.label("doty_block")
	w.op("VXORPS  Y0, Y0, Y0")
	w.op("MOVQ    SI, R15")
	w.op("MOVQ    R10, CX")
	w.op("SHRQ    $4, CX")
	w.op("JZ      doty_tail")
	// Partial sums 8–15 (dot's second accumulator) into the frame.
	for l := 0; l < 8; l++ {
		w.op("VXORPS  Y%d, Y%d, Y%d", l, l, l)
	}
	w.op("LEAQ    32(SI), R15")
	w.op("LEAQ    256(R14), R12")
	w.label("doty_q1")
	for l := 0; l < 8; l++ {
		w.op("VBROADCASTSS %d(R15), Y%d", 4*l, 8+l%4)
		w.op("VFMADD231PS %d(R12), Y%d, Y%d", 32*l, 8+l%4, l)
	}
	w.op("ADDQ    $64, R15")
	w.op("ADDQ    $512, R12")
	w.op("DECQ    CX")
	w.op("JNZ     doty_q1")
	for l := 0; l < 8; l++ {
		w.op("VMOVUPS Y%d, s%d-%d(SP)", l, l, 256-32*l)
	}
	// Partial sums 0–7, then buf = s0 + s1 and hsum8's tree.
	for l := 0; l < 8; l++ {
		w.op("VXORPS  Y%d, Y%d, Y%d", l, l, l)
	}
	w.op("MOVQ    SI, R15")
	w.op("MOVQ    R10, CX")
	w.op("SHRQ    $4, CX")
	w.label("doty_q0")
	for l := 0; l < 8; l++ {
		w.op("VBROADCASTSS %d(R15), Y%d", 4*l, 8+l%4)
		w.op("VFMADD231PS %d(R14), Y%d, Y%d", 32*l, 8+l%4, l)
	}
	w.op("ADDQ    $64, R15")
	w.op("ADDQ    $512, R14")
	w.op("DECQ    CX")
	w.op("JNZ     doty_q0")
	for l := 0; l < 8; l++ {
		w.op("VADDPS  s%d-%d(SP), Y%d, Y%d", l, 256-32*l, l, l)
	}
	w.op("VADDPS  Y1, Y0, Y0")
	w.op("VADDPS  Y3, Y2, Y2")
	w.op("VADDPS  Y5, Y4, Y4")
	w.op("VADDPS  Y7, Y6, Y6")
	w.op("VADDPS  Y2, Y0, Y0")
	w.op("VADDPS  Y6, Y4, Y4")
	w.op("VADDPS  Y4, Y0, Y0")
	w.label("doty_tail")
	w.op("MOVQ    R10, CX")
	w.op("ANDQ    $15, CX")
	w.op("JZ      doty_out")
	for l := 8; l < 12; l++ {
		w.op("VXORPS  Y%d, Y%d, Y%d", l, l, l)
	}
	w.op("SHRQ    $2, CX")
	w.op("JZ      doty_rest")
	w.label("doty_g")
	for l := 0; l < 4; l++ {
		w.op("VBROADCASTSS %d(R15), Y12", 4*l)
		w.op("VMULPS  %d(R14), Y12, Y13", 32*l)
		w.op("VADDPS  Y13, Y%d, Y%d", 8+l, 8+l)
	}
	w.op("ADDQ    $16, R15")
	w.op("ADDQ    $128, R14")
	w.op("DECQ    CX")
	w.op("JNZ     doty_g")
	w.label("doty_rest")
	w.op("MOVQ    R10, CX")
	w.op("ANDQ    $3, CX")
	w.op("JZ      doty_tsum")
	w.label("doty_r")
	w.op("VBROADCASTSS (R15), Y12")
	w.op("VMULPS  (R14), Y12, Y13")
	w.op("VADDPS  Y13, Y8, Y8")
	w.op("ADDQ    $4, R15")
	w.op("ADDQ    $32, R14")
	w.op("DECQ    CX")
	w.op("JNZ     doty_r")
	w.label("doty_tsum")
	w.op("VADDPS  Y9, Y8, Y8")
	w.op("VADDPS  Y11, Y10, Y10")
	w.op("VADDPS  Y10, Y8, Y8")
	w.op("CMPQ    R10, $16")
	w.op("JGE     doty_add")
	w.op("VMOVAPS Y8, Y0") // no vector part: dot is the tail's sum
	w.op("JMP     doty_out")
	w.label("doty_add")
	w.op("VADDPS  Y8, Y0, Y0")
	w.label("doty_out")
	w.op("MOVBLZX acc+72(FP), CX")
	w.op("CMPQ    R11, $1")
	w.op("JEQ     doty_last")
	w.op("TESTQ   CX, CX")
	w.op("JZ      doty_st")
	w.op("VMOVUPS (AX), Y1")
	w.op("VADDPS  Y0, Y1, Y0")
	w.label("doty_st")
	w.op("VMOVUPS Y0, (AX)")
	w.op("JMP     doty_next")
	w.label("doty_last")
	w.op("TESTQ   CX, CX")
	w.op("JZ      doty_stm")
	w.op("VMASKMOVPS (AX), Y15, Y1")
	w.op("VADDPS  Y0, Y1, Y0")
	w.label("doty_stm")
	w.op("VMASKMOVPS Y0, Y15, (AX)")
	w.label("doty_next")
	w.op("ADDQ    $32, AX")
	w.op("DECQ    R11")
	w.op("JNZ     doty_block")
	w.op("ADDQ    R8, DI")
	w.op("ADDQ    R9, SI")
	w.op("DECQ    BX")
	w.op("JMP     doty_row")
	w.label("doty_done")
	w.op("VZEROUPPER")
	w.op("RET")
}

func main() {
	out := flag.String("o", "matmul_amd64.s", "output file")
	flag.Parse()
	var w asm
	w.text(`// Code generated by matmul_gen.go; DO NOT EDIT.

//go:build amd64 && !purego && !goexperiment.simd

#include "textflag.h"
`)
	for f := 0; f <= 4; f++ {
		for h := 0; h <= 1 && f+h <= 4; h++ {
			for u := 0; u <= 1; u++ {
				if f+h+u > 0 {
					axpyZ(&w, f, h, u)
				}
			}
		}
	}
	for f := 0; f <= 8; f++ {
		for u := 0; u <= 1; u++ {
			if f+u > 0 {
				axpyY(&w, f, u)
			}
		}
	}
	dotZ(&w)
	dotY(&w)
	if err := os.WriteFile(*out, w.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
