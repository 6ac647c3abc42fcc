//go:build ignore

// dimmedian_gen.go writes dimmedian_amd64.s, the AVX-512F and AVX2 kernels
// of the weighted dimension-wise median (dimmedian_amd64.go):
//
//	go run dimmedian_gen.go
//
// Two functions per padded neighbourhood size N (sizes): dimMedianFastN
// (sixteen dimensions at a time, uint32 keys with the entry index in their
// lowest bits, reporting the dimensions where that truncation could matter)
// and dimMedianRowN (eight at a time, exact uint64 keys). Both build the
// keys of the nk ≤ N neighbours (padded with keys that sort last), sort
// the N keys of every lane with Batcher's odd-even merge sort of the next
// power of two without the comparators that touch an index ≥ N (network),
// unrolled with the keys in the 32 Z
// registers as far as they fit (spilled to the key buffer by furthest next
// use), and scan the sorted keys for the first cumulative weight that
// reaches the target. dimMedianAVX2xN is dimMedian8xN for CPUs without
// AVX-512 (genAVX2). The header written below describes the registers and
// the scan.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
)

// sizes are the padded neighbourhood sizes with a kernel (keep in step with
// dimMedianSizes in dimmedian_amd64.go).
var sizes = []int{4, 8, 12, 16, 24, 32, 40, 48, 56, 64}

// network returns the comparators (i < j: min to i, max to j) of Batcher's
// odd-even merge sort of the next power of two ≥ n, without those that
// touch an index ≥ n and without the sorts and merges of blocks that lie
// wholly at or beyond n. Padding keys that sort last are never moved by a
// comparator whose other index is smaller, so the result sorts n keys.
func network(n int) (cs [][2]int) {
	p := 1
	for p < n {
		p *= 2
	}
	cmp := func(i, j int) {
		if j < n {
			cs = append(cs, [2]int{i, j})
		}
	}
	var merge func(lo, m, r int)
	merge = func(lo, m, r int) {
		step := 2 * r
		if step < m {
			merge(lo, m, step)
			merge(lo+r, m, step)
			for i := lo + r; i+r < lo+m; i += step {
				cmp(i, i+r)
			}
		} else {
			cmp(lo, lo+r)
		}
	}
	var sort func(lo, m int)
	sort = func(lo, m int) {
		if m <= 1 || lo >= n {
			return
		}
		h := m / 2
		sort(lo, h)
		if lo+h >= n {
			return
		}
		sort(lo+h, h)
		merge(lo, m, 1)
	}
	sort(0, p)
	return cs
}

// checkNetwork verifies by the 0-1 principle (every 0-1 input of up to 16
// keys, random ones above) that cs sorts n keys.
func checkNetwork(n int, cs [][2]int) {
	sorted := func(v uint64) bool { // bit i = key i
		for _, c := range cs {
			a, b := v>>c[0]&1, v>>c[1]&1
			if a > b {
				v ^= 1<<c[0] | 1<<c[1]
			}
		}
		// sorted iff the ones are a suffix
		ones := 0
		for i := 0; i < n; i++ {
			ones += int(v >> i & 1)
		}
		return v == (uint64(1)<<n-1)&^(uint64(1)<<(n-ones)-1)
	}
	if n <= 16 {
		for v := uint64(0); v < 1<<n; v++ {
			if !sorted(v) {
				log.Fatalf("network %d does not sort %b", n, v)
			}
		}
		return
	}
	x := uint64(0x9e3779b97f4a7c15)
	for range 1 << 16 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		if !sorted(x & (uint64(1)<<n - 1)) {
			log.Fatalf("network %d does not sort %b", n, x)
		}
	}
}

// localOrder reorders the comparators cs of a network on n keys for fewer
// spills with nregs registers: each slot keeps its own sequence of
// comparators (so the network is the same), and among the comparators next
// on both of their slots, the first (in cs) with the most slots in registers
// (the last nregs−1 slots used) goes next.
func localOrder(n, nregs int, cs [][2]int) [][2]int {
	seq := make([][]int, n)
	for p, c := range cs {
		seq[c[0]] = append(seq[c[0]], p)
		seq[c[1]] = append(seq[c[1]], p)
	}
	head := make([]int, n)
	done := make([]bool, len(cs))
	last := make([]int, n) // when each slot was last used (0: never)
	inReg := func(s, t int) bool {
		if last[s] == 0 {
			return false
		}
		newer := 0 // slots used since s
		for q := range last {
			if last[q] > last[s] {
				newer++
			}
		}
		return newer < nregs-1
	}
	out := make([][2]int, 0, len(cs))
	for t := 1; len(out) < len(cs); t++ {
		best, score := -1, -1
		for p, c := range cs {
			if done[p] || seq[c[0]][head[c[0]]] != p || seq[c[1]][head[c[1]]] != p {
				continue
			}
			sc := b2i(inReg(c[0], t)) + b2i(inReg(c[1], t))
			if sc > score {
				best, score = p, sc
			}
		}
		c := cs[best]
		done[best] = true
		head[c[0]]++
		head[c[1]]++
		last[c[0]], last[c[1]] = t, t
		out = append(out, c)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// alloc is the register allocation of one network: slot i (key i, at
// i*64(R8)) lives in a Z register or in memory.
type alloc struct {
	w        *bytes.Buffer
	mov      string  // the load/store instruction
	v        string  // the register prefix
	size     int     // bytes per key slot
	regSlot  []int   // slot held by each register, −1 free
	slotReg  []int   // register of each slot, −1 in memory
	dirty    []bool  // register copy newer than memory
	uses     [][]int // comparator positions using each slot
	pos      int     // current comparator
	loads    int
	stores   int
	instrLen int
}

func (a *alloc) emit(format string, args ...any) {
	fmt.Fprintf(a.w, "\t"+format+"\n", args...)
	a.instrLen++
}

// nextUse is the first comparator position ≥ a.pos using slot s.
func (a *alloc) nextUse(s int) int {
	for _, p := range a.uses[s] {
		if p >= a.pos {
			return p
		}
	}
	return 1 << 30
}

// reg returns a free register, evicting the slot whose next use is
// furthest (a clean one among equals) except the slots in keep.
func (a *alloc) reg(keep ...int) int {
	for r, s := range a.regSlot {
		if s < 0 {
			return r
		}
	}
	best, bestUse, bestDirty := -1, -1, true
	for r, s := range a.regSlot {
		skip := false
		for _, k := range keep {
			skip = skip || s == k
		}
		if skip {
			continue
		}
		u := a.nextUse(s)
		if u > bestUse || (u == bestUse && bestDirty && !a.dirty[s]) {
			best, bestUse, bestDirty = r, u, a.dirty[s]
		}
	}
	s := a.regSlot[best]
	if a.dirty[s] {
		a.emit("%s %s%d, %d(R8)", a.mov, a.v, best, s*a.size)
		a.stores++
	}
	a.slotReg[s], a.regSlot[best], a.dirty[s] = -1, -1, false
	return best
}

// load brings slot s into a register (keeping the slots in keep).
func (a *alloc) load(s int, keep ...int) int {
	if r := a.slotReg[s]; r >= 0 {
		return r
	}
	r := a.reg(keep...)
	a.emit("%s %d(R8), %s%d", a.mov, s*a.size, a.v, r)
	a.loads++
	a.regSlot[r], a.slotReg[s] = s, r
	return r
}

// genNetwork writes the unrolled network for n keys at R8 in the 32 vector
// registers v ("Z" or "Y"), one register (64 or 32 bytes) per key: uint64
// lanes (q) or uint32 lanes.
func genNetwork(w *bytes.Buffer, n int, cs [][2]int, q bool, v string) (loads, stores int) {
	mov, op := "VMOVDQU32", "D"
	if q {
		mov, op = "VMOVDQU64", "Q"
	}
	size := 64
	if v == "Y" {
		size = 32
	}
	return genNetworkRegs(w, n, cs, v, size, 32, mov, op)
}

// genNetworkRegs is genNetwork on the first nregs registers v, key slots of
// size bytes moved by mov, comparators VPMINU+op / VPMAXU+op.
func genNetworkRegs(w *bytes.Buffer, n int, cs [][2]int, v string, size, nregs int, mov, op string) (loads, stores int) {
	a := &alloc{w: w, mov: mov, v: v, size: size, regSlot: make([]int, nregs), slotReg: make([]int, n), dirty: make([]bool, n), uses: make([][]int, n)}
	for i := range a.regSlot {
		a.regSlot[i] = -1
	}
	for i := range a.slotReg {
		a.slotReg[i] = -1
	}
	for p, c := range cs {
		a.uses[c[0]] = append(a.uses[c[0]], p)
		a.uses[c[1]] = append(a.uses[c[1]], p)
	}
	for p, c := range cs {
		a.pos = p
		i, j := c[0], c[1]
		ri := a.load(i, j)
		rj := a.load(j, i)
		a.pos = p + 1 // i's old register is free after this comparator
		t := a.reg(i, j)
		a.emit("VPMINU%[1]s %[2]s%[3]d, %[2]s%[4]d, %[2]s%[5]d", op, v, rj, ri, t)
		a.emit("VPMAXU%[1]s %[2]s%[3]d, %[2]s%[4]d, %[2]s%[3]d", op, v, rj, ri)
		a.regSlot[ri], a.slotReg[i] = -1, -1
		a.regSlot[t], a.slotReg[i], a.dirty[i] = i, t, true
		a.dirty[j] = true
	}
	for r, s := range a.regSlot {
		if s >= 0 && a.dirty[s] {
			a.emit("%s %s%d, %d(R8)", mov, v, r, s*size)
			a.stores++
		}
	}
	return a.loads, a.stores
}

const header = `// Code generated by dimmedian_gen.go; DO NOT EDIT.

//go:build amd64 && !purego

#include "textflag.h"

// The AVX-512F kernels of dimmedian_amd64.go (Go operand order: the reverse
// of Intel's). Each computes the weighted median picks of one row with
// nk ≤ N neighbours (N = 4, 8, …, 64), for columns 0 … d−1, lanes being
// dimensions:
//
//   - keys: lane c of key i is the ordered bits of x[idx[i]][c] (sign bit
//     flipped for positive values, all bits for negative ones) with the
//     entry index i, written to keys at i*64; keys i ≥ nk are all ones
//     (they sort last and are never scanned); lanes at or beyond d read
//     zeros (masked loads) and are never stored;
//   - sort: Batcher's odd-even merge sort of the N keys of every lane,
//     unrolled, one unsigned min and max per comparator, keys in the 32 Z
//     registers as far as they fit;
//   - scan: in sorted order, the weight of each key (w[i], a lookup by
//     VPERMT2PS in the zero-padded weights) is converted to float64 and
//     added to the lane's sum; the first key whose sum is ≥ target (ordered:
//     NaN never is) is the lane's pick, else the largest key (sorted
//     position nk−1); the scan stops when every lane has its pick;
//   - pick[c] = lo + the index i of the picked key.
//
// dimMedianRowN (exact): uint64 keys, ordered bits << 32 | i, eight
// dimensions at a time. dimMedianFastN: uint32 keys, the ordered bits with
// their lowest b = max(4, ⌈log₂ N⌉) bits replaced by i, sixteen dimensions
// at a time; VPMINUD/VPMAXUD issue at twice the rate of VPMINUQ/VPMAXUQ
// here. Two keys order as their exact keys unless they share the upper
// 32−b bits, so a lane is exact when no key up to its pick's successor in
// sorted order shares them with its predecessor; the lanes where one does
// are reported in coll (one uint16 per 16 columns) for the caller to
// recompute with the exact kernel.
//
// Registers: SI x, R9 ldx (bytes), R10 idx, CX nk, R11 w, DI pick, BX d,
// R8 keys, R13 the group's first column, K1 the group's lanes; R12 lo
// (exact) or coll (16 lanes).
//
// dimMedianAVX2xN, for CPUs with AVX2 and without AVX-512: dimMedian8xN's
// keys and sort in the 16 Y registers, one uint16 of coll (its low 8 bits)
// per 8 columns. The group's lanes are a dword mask (VPMASKMOVD loads and
// stores); the comparators are reordered for fewer spills (localOrder).
// The scan keeps per lane, in vectors, the float64 sums (two halves of 4
// lanes), the lanes done (qword masks from VCMPPD), the sorted position of
// the pick (the current one while not done: the last one if none is) and
// the start of the current run of keys with one prefix. A finer collision
// rule than dimMedian16xN's: a run whose values are all equal (equal rows
// of x: duplicate feature vectors) is already in the exact order, so a lane
// collides only when a run whose values differ (compared in x, off the fast
// path) starts at most at its pick's position. The weight lookup is VPERMPS
// from registers up to N = 16, else eight scalar loads by the keys' lowest
// bytes from a table of the weights repeated to 256 entries (VGATHERDPS is
// slower on Zen 3). The picked keys are gathered from the sorted keys.
`

func genExact(w *bytes.Buffer, n int) {
	cs := network(n)
	checkNetwork(n, cs)
	var body bytes.Buffer
	loads, stores := genNetwork(&body, n, cs, true, "Z")
	pre := fmt.Sprintf("m%d", n)
	fmt.Fprintf(w, `
// func dimMedianRow%[1]d(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64)
//
// %[2]d comparators, %[3]d key loads and %[4]d key stores (spills included) per 8 dimensions.
TEXT ·dimMedianRow%[1]d(SB), NOSPLIT, $0-80
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R9
	MOVQ idx+16(FP), R10
	MOVQ nk+24(FP), CX
	MOVQ w+32(FP), R11
	MOVQ lo+48(FP), R12
	MOVQ pick+56(FP), DI
	MOVQ d+64(FP), BX
	MOVQ keys+72(FP), R8
	XORQ R13, R13
	TESTQ BX, BX
	JLE %[5]sdone

%[5]sgroup:
	// K1 = the lanes of columns R13 … min(R13+8, d)−1.
	MOVQ BX, AX
	SUBQ R13, AX
	CMPQ AX, $8
	JLE  %[5]slanes
	MOVQ $8, AX

%[5]slanes:
	MOVQ  CX, R15
	MOVQ  AX, CX
	MOVQ  $1, DX
	SHLQ  CX, DX
	DECQ  DX
	KMOVW DX, K1
	MOVQ  R15, CX

	// Keys 0 … nk−1.
	MOVL         $0x80000000, AX
	VPBROADCASTD AX, Z29
	MOVQ         $1, AX
	VPBROADCASTQ AX, Z28
	VPXORQ       Z30, Z30, Z30
	LEAQ         (SI)(R13*4), R14
	MOVQ         R8, R15
	XORQ         DX, DX

%[5]skey:
	MOVLQSX    (R10)(DX*4), AX
	IMULQ      R9, AX
	VMOVUPS.Z  (R14)(AX*1), K1, Z0
	VPSRAD     $31, Z0, Z1
	VPTERNLOGD $0x1e, Z29, Z1, Z0 // b ^ (sign | 0x80000000)
	VPMOVZXDQ  Y0, Z0
	VPSLLQ     $32, Z0, Z0
	VPORQ      Z30, Z0, Z0
	VMOVDQU64  Z0, (R15)
	VPADDQ     Z28, Z30, Z30
	ADDQ       $64, R15
	INCQ       DX
	CMPQ       DX, CX
	JLT        %[5]skey

	// Padding keys nk … N−1: all ones.
	VPTERNLOGQ $0xff, Z0, Z0, Z0
	CMPQ       DX, $%[1]d
	JGE        %[5]ssort

%[5]spad:
	VMOVDQU64 Z0, (R15)
	ADDQ      $64, R15
	INCQ      DX
	CMPQ      DX, $%[1]d
	JLT       %[5]spad

%[5]ssort:
`, n, len(cs), loads, stores, pre)
	w.Write(body.Bytes())
	// The weight of key lane index i (Z1 dwords 0–7) into Z2.
	var lookup string
	switch {
	case n <= 16:
		lookup = "\tVPERMPS   (R11), Z1, Z2\n"
	case n <= 32:
		lookup = "\tVMOVUPS   (R11), Z2\n\tVPERMT2PS 64(R11), Z1, Z2\n"
	default:
		lookup = "\tVMOVUPS   (R11), Z2\n\tVPERMT2PS 64(R11), Z1, Z2\n" +
			"\tVMOVUPS   128(R11), Z3\n\tVPERMT2PS 192(R11), Z1, Z3\n" +
			"\tVPTESTMD  Z24, Z1, K3\n\tVMOVAPS   Z3, K3, Z2\n"
	}
	fmt.Fprintf(w, `
	// Scan. Z26 the sums, Z27 the target, Z25 the picked keys (default: the
	// largest), K2 the lanes done (and those beyond the group).
	MOVL         $32, AX
	VPBROADCASTD AX, Z24
	VBROADCASTSD target+40(FP), Z27
	VPXORQ       Z26, Z26, Z26
	KNOTW        K1, K2
	MOVQ         CX, AX
	SHLQ         $6, AX
	VMOVDQU64    -64(R8)(AX*1), Z25
	MOVQ         R8, R15
	XORQ         DX, DX

%[2]sscan:
	VMOVDQU64 (R15), Z0
	VPMOVQD   Z0, Y1
%[3]s	VCVTPS2PD Y2, Z2
	VADDPD    Z2, Z26, Z26
	VCMPPD    $0x1d, Z27, Z26, K4 // sum ≥ target, ordered
	KANDNW    K4, K2, K5
	VMOVDQA64 Z0, K5, Z25
	KORW      K5, K2, K2
	KORTESTW  K2, K2
	JCS       %[2]sstore
	ADDQ      $64, R15
	INCQ      DX
	CMPQ      DX, CX
	JLT       %[2]sscan

%[2]sstore:
	VPMOVQD      Z25, Y0
	VPBROADCASTD R12, Z1
	VPADDD       Z1, Z0, Z0
	VMOVDQU32    Z0, K1, (DI)(R13*4)
	ADDQ         $8, R13
	CMPQ         R13, BX
	JLT          %[2]sgroup

%[2]sdone:
	VZEROUPPER
	RET
`, n, pre, lookup)
}

// indexBits is the number of low key bits that hold the entry index in
// the 16-lane kernel for n keys: at least 4, the index bits of VPERMPS.
func indexBits(n int) int {
	b := 4
	for 1<<b < n {
		b++
	}
	return b
}

// genFast writes dimMedian16xN (lanes 16: Z registers) or dimMedian8xN
// (lanes 8: Y registers; VPMINUD on Y registers issues at twice the rate
// of Z, so a group of up to 8 columns sorts in half the time).
func genFast(w *bytes.Buffer, n, lanes int) {
	v, size := "Z", 64
	if lanes == 8 {
		v, size = "Y", 32
	}
	cs := network(n)
	var body bytes.Buffer
	loads, stores := genNetwork(&body, n, cs, false, v)
	pre := fmt.Sprintf("f%dx%d", lanes, n)
	b := indexBits(n)
	mask := uint32(1)<<b - 1
	// The weight of key index i (Z0 dwords, low bits) into Z2.
	var lookup string
	switch {
	case n <= 16:
		lookup = "\tVPERMPS       (R11), Z0, Z2\n"
	case n <= 32:
		lookup = "\tVMOVUPS       (R11), Z2\n\tVPERMT2PS     64(R11), Z0, Z2\n"
	default:
		lookup = "\tVMOVUPS       (R11), Z2\n\tVPERMT2PS     64(R11), Z0, Z2\n" +
			"\tVMOVUPS       128(R11), Z3\n\tVPERMT2PS     192(R11), Z0, Z3\n" +
			"\tVPTESTMD      Z24, Z0, K3\n\tVMOVAPS       Z3, K3, Z2\n"
	}
	scan := scanLoop(pre, "scan8", lookup, v, size, true)
	if lanes == 16 {
		scan = `	MOVQ          BX, AX
	SUBQ          R13, AX
	CMPQ          AX, $8
	JLE           ` + pre + `scan8

` + scanLoop(pre, "scan", lookup, v, size, false) + scan
	}
	r := strings.NewReplacer("{N}", fmt.Sprint(n), "{L}", fmt.Sprint(lanes), "{P}", pre, "{V}", v,
		"{S}", fmt.Sprint(size), "{SH}", fmt.Sprint(map[int]int{64: 6, 32: 5}[size]),
		"{B}", fmt.Sprint(b), "{MASK}", fmt.Sprintf("%#x", mask), "{NMASK}", fmt.Sprintf("%#x", ^mask),
		"{C}", fmt.Sprint(len(cs)), "{LD}", fmt.Sprint(loads), "{ST}", fmt.Sprint(stores))
	w.WriteString(r.Replace(`
// func dimMedian{L}x{N}(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)
//
// {C} comparators, {LD} key loads and {ST} key stores (spills included) per {L} dimensions.
TEXT ·dimMedian{L}x{N}(SB), NOSPLIT, $0-88
	MOVQ  x+0(FP), SI
	MOVQ  ldx+8(FP), R9
	MOVQ  idx+16(FP), R10
	MOVQ  nk+24(FP), CX
	MOVQ  w+32(FP), R11
	MOVQ  pick+56(FP), DI
	MOVQ  d+64(FP), BX
	MOVQ  keys+72(FP), R8
	MOVQ  coll+80(FP), R12
	XORQ  R13, R13
	TESTQ BX, BX
	JLE   {P}done

{P}group:
	// K1 = the lanes of columns R13 … min(R13+{L}, d)−1.
	MOVQ BX, AX
	SUBQ R13, AX
	CMPQ AX, ${L}
	JLE  {P}lanes
	MOVQ ${L}, AX

{P}lanes:
	MOVQ  CX, R15
	MOVQ  AX, CX
	MOVQ  $1, DX
	SHLQ  CX, DX
	DECQ  DX
	KMOVW DX, K1
	MOVQ  R15, CX

	// Keys 0 … nk−1: the ordered bits with the lowest {B} replaced by the index.
	MOVL         $0x80000000, AX
	VPBROADCASTD AX, {V}29
	MOVL         ${NMASK}, AX
	VPBROADCASTD AX, {V}28
	MOVL         $1, AX
	VPBROADCASTD AX, {V}27
	VPXORD       {V}30, {V}30, {V}30
	LEAQ         (SI)(R13*4), R14
	MOVQ         R8, R15
	XORQ         DX, DX

{P}key:
	MOVLQSX    (R10)(DX*4), AX
	IMULQ      R9, AX
	VMOVUPS.Z  (R14)(AX*1), K1, {V}0
	VPSRAD     $31, {V}0, {V}1
	VPTERNLOGD $0x1e, {V}29, {V}1, {V}0 // b ^ (sign | 0x80000000)
	VPTERNLOGD $0xec, {V}28, {V}30, {V}0 // (ordered & prefix) | i
	VMOVDQU32  {V}0, (R15)
	VPADDD     {V}27, {V}30, {V}30
	ADDQ       ${S}, R15
	INCQ       DX
	CMPQ       DX, CX
	JLT        {P}key

	// Padding keys nk … N−1: all ones (real keys are smaller: their index
	// is below N−1 when there is padding).
	VPTERNLOGD $0xff, {V}0, {V}0, {V}0
	CMPQ       DX, ${N}
	JGE        {P}sort

{P}pad:
	VMOVDQU32 {V}0, (R15)
	ADDQ      ${S}, R15
	INCQ      DX
	CMPQ      DX, ${N}
	JLT       {P}pad

{P}sort:
`))
	w.Write(body.Bytes())
	w.WriteString(r.Replace(`
	// Scan. Z26/Z22 the sums of lanes 0–7/8–15, Z27 the target, Z25 the
	// picked keys (default: the largest), K2 the lanes done (and those
	// beyond the group), K6 the lanes done before the previous key, K7 the
	// lanes where a key up to the pick's successor shares its prefix with
	// its predecessor (their order or prefix sums may differ from the
	// exact keys': the caller recomputes them), Z21 the previous key.
	// Y loads zero the upper halves of the Z registers.
	MOVL          $32, AX
	VPBROADCASTD  AX, Z24
	MOVL          ${NMASK}, AX
	VPBROADCASTD  AX, Z23
	VBROADCASTSD  target+40(FP), Z27
	VPXORQ        Z26, Z26, Z26
	VPXORQ        Z22, Z22, Z22
	KNOTW         K1, K2
	KMOVW         K2, K6
	KXORW         K7, K7, K7
	MOVQ          CX, AX
	SHLQ          ${SH}, AX
	VMOVDQU32     -{S}(R8)(AX*1), {V}25
	VMOVDQU32     (R8), {V}21
	VPTERNLOGD    $0x55, Z21, Z21, Z21 // ~key 0: no prefix in common with it
	MOVQ          R8, R15
	XORQ          DX, DX

`) + scan + r.Replace(`{P}store:
	MOVL         ${MASK}, AX
	VPBROADCASTD AX, Z1
	VPANDD       Z1, Z25, Z25
	MOVQ         lo+48(FP), AX
	VPBROADCASTD AX, Z1
	VPADDD       Z1, Z25, Z25
	VMOVDQU32    Z25, K1, (DI)(R13*4)
	KANDW        K1, K7, K7
	KMOVW        K7, AX
	MOVW         AX, (R12)
	ADDQ         $2, R12
	ADDQ         ${L}, R13
	CMPQ         R13, BX
	JLT          {P}group

{P}done:
	VZEROUPPER
	RET
`))
}

// scanLoop is the 32-bit kernels' scan loop (label pre+name) over keys
// of size bytes loaded into register v0, over lanes 0–7 only if half
// (groups of up to 8 columns), ending with a jump to pre+"store".
func scanLoop(pre, name, lookup, v string, size int, half bool) string {
	sums := `	VCVTPS2PD     Y2, Z4
	VEXTRACTF64X4 $1, Z2, Y5
	VCVTPS2PD     Y5, Z5
	VADDPD        Z4, Z26, Z26
	VADDPD        Z5, Z22, Z22
	VCMPPD        $0x1d, Z27, Z26, K4 // sum ≥ target, ordered
	VCMPPD        $0x1d, Z27, Z22, K5
	KUNPCKBW      K4, K5, K4
`
	if half {
		sums = `	VCVTPS2PD     Y2, Z4
	VADDPD        Z4, Z26, Z26
	VCMPPD        $0x1d, Z27, Z26, K4 // sum ≥ target, ordered
`
	}
	return fmt.Sprintf(`%[1]s%[2]s:
	VMOVDQU32     (R15), %[5]s0
	VPXORD        Z0, Z21, Z1
	VPTESTNMD     Z23, Z1, K3 // same prefix as the previous key
	KANDNW        K3, K6, K3
	KORW          K3, K7, K7
	VMOVDQA32     Z0, Z21
	KMOVW         K2, K6
%[3]s%[4]s	KANDNW        K4, K2, K5
	VMOVDQA32     Z0, K5, Z25
	KORW          K5, K2, K2
	KORTESTW      K6, K6 // every lane done before this key: its check was the last
	JCS           %[1]sstore
	ADDQ          $%[6]d, R15
	INCQ          DX
	CMPQ          DX, CX
	JLT           %[1]s%[2]s
	JMP           %[1]sstore

`, pre, name, lookup, sums, v, size)
}

// avx2Lookup is the scan's weight lookup of the AVX2 kernel for n keys,
// the sorted key at off(R15) and in register key: the float64 weights of
// lanes 0–3 into Y1, of lanes 4–7 into Y4 (Y13 free up to 16 keys). Up to
// 16 keys, VPERMPS from the weights in Y15 (0–7) and Y5 (8–15), blended on
// index bit 3 (moved to the sign bit); beyond, eight scalar loads of the
// keys' lowest bytes and of their weights from the table at 2048(R8)
// (VGATHERDPS is several times slower).
func avx2Lookup(n, off int, key string) string {
	conv := "\tVCVTPS2PD    X4, Y1\n\tVEXTRACTF128 $1, Y4, X4\n\tVCVTPS2PD    X4, Y4\n"
	switch {
	case n <= 8:
		return fmt.Sprintf("\tVPERMPS      Y15, %s, Y4\n", key) + conv
	case n <= 16:
		return fmt.Sprintf("\tVPERMPS      Y15, %[1]s, Y4\n\tVPERMPS      Y5, %[1]s, Y1\n"+
			"\tVPSLLD       $28, %[1]s, Y13\n\tVBLENDVPS    Y13, Y1, Y4, Y4\n", key) + conv
	}
	var b strings.Builder
	for l := range 8 {
		reg, gpr := "X1", "AX"
		if l >= 4 {
			reg = "X4"
		}
		if l%2 == 1 {
			gpr = "SI"
		}
		fmt.Fprintf(&b, "\tMOVBLZX      %d(R15), %s\n", off+4*l, gpr)
		if l%4 == 0 {
			fmt.Fprintf(&b, "\tVMOVSS       2048(R8)(%s*4), %s\n", gpr, reg)
		} else {
			fmt.Fprintf(&b, "\tVINSERTPS    $%#x, 2048(R8)(%s*4), %s, %s\n", (l%4)<<4, gpr, reg, reg)
		}
	}
	return b.String() + "\tVCVTPS2PD    X1, Y1\n\tVCVTPS2PD    X4, Y4\n"
}

// avx2Step is one key of the AVX2 kernels' scan: the key at off(R15), the
// run check (see genAVX2's scan) with its slow path at label tie (back at
// tie+"ed"), the exit test where exit names the label to leave for, the
// weight and the sums. Above 16 keys, the prefix mask and the target are
// in Y13 and Y15, else at 32(SP) and 64(SP).
func avx2Step(n, off int, tie, exit string) string {
	nmask, target := "32(SP)", "64(SP)"
	if n > 16 {
		nmask, target = "Y13", "Y15"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `	VMOVDQU      %[1]d(R15), Y0
	VPAND        %[2]s, Y0, Y1 // the key's prefix
	VPCMPEQD     Y1, Y2, Y2    // the previous key's prefix
	VPBLENDVB    Y2, Y14, Y12, Y14
	VMOVMSKPS    Y2, AX
	VMOVDQA      Y1, Y2
	ANDL         136(SP), AX
	JNZ          %[3]s

%[3]sed:
`, off, nmask, tie)
	if exit != "" {
		fmt.Fprintf(&b, `	VPAND        Y9, Y8, Y1
	VMOVMSKPD    Y1, AX
	CMPL         AX, $15
	JEQ          %s // every lane done before this key
`, exit)
	}
	b.WriteString(avx2Lookup(n, off, "Y0"))
	fmt.Fprintf(&b, `	VADDPD       Y1, Y6, Y6
	VADDPD       Y4, Y7, Y7
	VBLENDVPD    Y8, Y10, Y12, Y10
	VBLENDVPD    Y9, Y11, Y12, Y11
	VCMPPD       $0x1d, %[1]s, Y6, Y1 // sum ≥ target, ordered
	VCMPPD       $0x1d, %[1]s, Y7, Y4
	VORPD        Y1, Y8, Y8
	VORPD        Y4, Y9, Y9
	VPSUBD       Y3, Y12, Y12
`, target)
	return b.String()
}

// avx2Tie is avx2Step's slow path for the key at off(R15), AX the lanes
// whose key shares its prefix with its predecessor's: where their values
// (the bits of x[idx[i]][R13+lane]) differ, the lane's run start (Y14)
// lowers its first mixed run's start (176(SP)).
func avx2Tie(tie string, off int, mask uint32) string {
	val := func(o int) string {
		return fmt.Sprintf(`	MOVBLZX      %d(R15)(SI*4), R11
	ANDL         $%#x, R11
	MOVLQSX      (R10)(R11*4), R11
	IMULQ        R9, R11
	ADDQ         x+0(FP), R11
	LEAQ         (R11)(R13*4), R11
	MOVL         (R11)(SI*4), R11
`, o, mask)
	}
	return fmt.Sprintf(`
%[1]s:
	VMOVDQU      Y14, 144(SP)

%[1]slane:
	BSFL         AX, SI
%[2]s	MOVL         R11, 208(SP)
%[3]s	CMPL         R11, 208(SP)
	JEQ          %[1]snext
	MOVL         144(SP)(SI*4), R11
	CMPL         R11, 176(SP)(SI*4)
	JAE          %[1]snext
	MOVL         R11, 176(SP)(SI*4)

%[1]snext:
	LEAL         -1(AX), R11
	ANDL         R11, AX
	JNZ          %[1]slane
	JMP          %[1]sed
`, tie, val(off), val(off-32))
}

// genAVX2 writes dimMedianAVX2xN: dimMedian8xN for CPUs with AVX2 and
// without AVX-512 (16 Y registers, no mask registers: lane masks are
// vectors, and the scan keeps its state in vectors, see the header).
func genAVX2(w *bytes.Buffer, n int) {
	cs := localOrder(n, 16, network(n))
	checkNetwork(n, cs)
	var body bytes.Buffer
	loads, stores := genNetworkRegs(&body, n, cs, "Y", 32, 16, "VMOVDQU", "D")
	pre := fmt.Sprintf("a8x%d", n)
	b := indexBits(n)
	mask := uint32(1)<<b - 1
	frame := 216
	table := ""
	if n > 16 { // the weights by the key's lowest byte
		period := 4 << b
		for o := 0; o < period; o += 32 {
			table += fmt.Sprintf("\tVMOVUPS      %d(R11), Y%d\n", o, o/32)
		}
		for o := 0; o < 1024; o += 32 {
			table += fmt.Sprintf("\tVMOVUPS      Y%d, %d(R8)\n", o%period/32, 2048+o)
		}
	}
	nmask := "32(SP)"
	if n > 16 {
		nmask = "Y13"
	}
	r := strings.NewReplacer("{N}", fmt.Sprint(n), "{P}", pre, "{F}", fmt.Sprint(frame), "{TABLE}", table, "{NB}", fmt.Sprint(32*n), "{NM}", nmask,
		"{B}", fmt.Sprint(b), "{MASK}", fmt.Sprintf("%#x", mask),
		"{C}", fmt.Sprint(len(cs)), "{LD}", fmt.Sprint(loads), "{ST}", fmt.Sprint(stores))
	w.WriteString(r.Replace(`
// func dimMedianAVX2x{N}(x *float32, ldx int, idx *int32, nk int, w *float32, target float64, lo int, pick *int32, d int, keys *uint64, coll *uint16)
//
// {C} comparators, {LD} key loads and {ST} key stores (spills included) per 8 dimensions.
TEXT ·dimMedianAVX2x{N}(SB), NOSPLIT, ${F}-88
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R9
	MOVQ idx+16(FP), R10
	MOVQ nk+24(FP), CX
	MOVQ w+32(FP), R11
	MOVQ pick+56(FP), DI
	MOVQ d+64(FP), BX
	MOVQ keys+72(FP), R8
	MOVQ coll+80(FP), R12

	// Locals: (SP) the index mask, 32(SP) the value prefix mask, 64(SP)
	// the target, 96(SP) the group's lanes (dwords), 128(SP) scratch,
	// 136(SP) the group's lanes (bits), 144(SP) and 176(SP) run starts
	// (dwords; see the scan), 208(SP) scratch.
	// keys holds the sorted keys (bytes 0–2047) and, above 16 keys, the
	// weights by the keys' lowest byte: w[j mod 2^{B}] for j = 0 … 255
	// (bytes 2048–3071).
	MOVL         ${MASK}, AX
	VMOVD        AX, X0
	VPBROADCASTD X0, Y0
	VMOVDQU      Y0, (SP)
	VPCMPEQD     Y1, Y1, Y1
	VPXOR        Y1, Y0, Y0
	VMOVDQU      Y0, 32(SP)
	VBROADCASTSD target+40(FP), Y0
	VMOVUPD      Y0, 64(SP)

{TABLE}
	XORQ         R13, R13
	TESTQ        BX, BX
	JLE          {P}done

{P}group:
	// Y15 = the lanes of columns R13 … min(R13+8, d)−1.
	MOVQ    BX, AX
	SUBQ    R13, AX
	MOVQ    $8, DX
	CMPQ    AX, DX
	CMOVQGT DX, AX
	SUBQ    AX, DX
	LEAQ      dmLanesAVX2<>(SB), R14
	VMOVDQU   (R14)(DX*4), Y15
	VMOVDQU   Y15, 96(SP)
	VMOVMSKPS Y15, AX
	MOVL      AX, 136(SP)

	// Keys 0 … nk−1 (four at a time, then one): the ordered bits with the
	// lowest {B} replaced by the index. R14 the group's columns in x, R10
	// the indices (idx), R15 the keys, SI their indices (dmIndexAVX2), DX
	// the end of the keys (nk), AX the end of the four-at-a-time part.
	MOVL         $0x80000000, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	VMOVDQU      32(SP), Y13
	MOVQ         x+0(FP), R14
	LEAQ         (R14)(R13*4), R14
	MOVQ         idx+16(FP), R10
	MOVQ         R8, R15
	LEAQ         dmIndexAVX2<>(SB), SI
	MOVQ         CX, DX
	SHLQ         $5, DX
	ADDQ         R8, DX
	LEAQ         -96(DX), AX
	MOVQ         AX, 128(SP)
	CMPQ         R15, AX
	JGE          {P}key1

{P}key4:
	MOVLQSX    0(R10), AX
	IMULQ      R9, AX
	VPMASKMOVD (R14)(AX*1), Y15, Y0
	VPSRAD     $31, Y0, Y4
	VPOR       Y14, Y4, Y4
	VPXOR      Y4, Y0, Y0 // b ^ (sign | 0x80000000)
	VPAND      Y13, Y0, Y0
	VPOR       0(SI), Y0, Y0 // (ordered & prefix) | i
	VMOVDQU    Y0, 0(R15)
	MOVLQSX    4(R10), AX
	IMULQ      R9, AX
	VPMASKMOVD (R14)(AX*1), Y15, Y1
	VPSRAD     $31, Y1, Y5
	VPOR       Y14, Y5, Y5
	VPXOR      Y5, Y1, Y1 // b ^ (sign | 0x80000000)
	VPAND      Y13, Y1, Y1
	VPOR       32(SI), Y1, Y1 // (ordered & prefix) | i
	VMOVDQU    Y1, 32(R15)
	MOVLQSX    8(R10), AX
	IMULQ      R9, AX
	VPMASKMOVD (R14)(AX*1), Y15, Y2
	VPSRAD     $31, Y2, Y6
	VPOR       Y14, Y6, Y6
	VPXOR      Y6, Y2, Y2 // b ^ (sign | 0x80000000)
	VPAND      Y13, Y2, Y2
	VPOR       64(SI), Y2, Y2 // (ordered & prefix) | i
	VMOVDQU    Y2, 64(R15)
	MOVLQSX    12(R10), AX
	IMULQ      R9, AX
	VPMASKMOVD (R14)(AX*1), Y15, Y3
	VPSRAD     $31, Y3, Y7
	VPOR       Y14, Y7, Y7
	VPXOR      Y7, Y3, Y3 // b ^ (sign | 0x80000000)
	VPAND      Y13, Y3, Y3
	VPOR       96(SI), Y3, Y3 // (ordered & prefix) | i
	VMOVDQU    Y3, 96(R15)
	ADDQ       $16, R10
	ADDQ       $128, R15
	ADDQ       $128, SI
	CMPQ       R15, 128(SP)
	JLT        {P}key4
	CMPQ       R15, DX
	JGE        {P}keyed

{P}key1:
	MOVLQSX    0(R10), AX
	IMULQ      R9, AX
	VPMASKMOVD (R14)(AX*1), Y15, Y0
	VPSRAD     $31, Y0, Y4
	VPOR       Y14, Y4, Y4
	VPXOR      Y4, Y0, Y0 // b ^ (sign | 0x80000000)
	VPAND      Y13, Y0, Y0
	VPOR       0(SI), Y0, Y0 // (ordered & prefix) | i
	VMOVDQU    Y0, 0(R15)
	ADDQ       $4, R10
	ADDQ       $32, R15
	ADDQ       $32, SI
	CMPQ       R15, DX
	JLT        {P}key1

{P}keyed:
	// Padding keys nk … N−1: all ones.
	VPCMPEQD Y11, Y11, Y11
	LEAQ     {NB}(R8), R15
	CMPQ     DX, R15
	JGE      {P}sort

{P}pad:
	VMOVDQU Y11, (DX)
	ADDQ    $32, DX
	CMPQ    DX, R15
	JLT     {P}pad

{P}sort:
`))
	w.Write(body.Bytes())
	w.WriteString(r.Replace(`
	// Scan, two keys an iteration (the exit test on the first). Y6/Y7 the
	// sums of lanes 0–3/4–7 (float64), Y8/Y9 their lanes done (qword masks;
	// lanes beyond the group start done), Y10/Y11 the sorted positions of
	// their picks (a lane not done takes the current one), Y12 the current
	// position (in every dword), Y2 the previous key's prefix, Y3 all ones;
	// R15 the key, DX the last pair's first key, R14 the end. Runs: Y14 the
	// position where the current run of keys with one prefix starts, 176(SP)
	// the start of each lane's first run whose values are not all equal
	// (avx2Tie). Truncation changes the order only within such a run; a
	// lane is exact unless that start is at most its pick's position (when
	// the scan stops early, a run open at the last key is checked on).
	VPCMPEQD     Y3, Y3, Y3
	VMOVDQU      96(SP), Y0
	VPXOR        Y3, Y0, Y0
	VPMOVSXDQ    X0, Y8
	VEXTRACTI128 $1, Y0, X0
	VPMOVSXDQ    X0, Y9
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	VPXOR        Y10, Y10, Y10
	VPXOR        Y11, Y11, Y11
	VPXOR        Y12, Y12, Y12
	VPXOR        Y14, Y14, Y14
	VMOVDQU      Y3, 176(SP)
	VMOVDQA      Y3, Y2 // no key's prefix has its lowest bits set
	MOVQ         idx+16(FP), R10
	MOVQ         w+32(FP), R11
`))
	switch {
	case n <= 8:
		w.WriteString("\tVMOVUPS      (R11), Y15\n")
	case n <= 16:
		w.WriteString("\tVMOVUPS      (R11), Y15\n\tVMOVUPS      32(R11), Y5\n")
	default:
		w.WriteString("\tVMOVDQU      32(SP), Y13\n\tVMOVUPD      64(SP), Y15\n")
	}
	w.WriteString(r.Replace(`	MOVQ         R8, R15
	MOVQ         CX, R14
	SHLQ         $5, R14
	ADDQ         R8, R14
	LEAQ         -32(R14), DX
	CMPQ         R15, DX
	JGE          {P}tail

{P}scan:
`))
	w.WriteString(avx2Step(n, 0, pre+"tieA", pre+"store"))
	w.WriteString(avx2Step(n, 32, pre+"tieB", ""))
	w.WriteString(r.Replace(`	ADDQ         $64, R15
	CMPQ         R15, DX
	JLT          {P}scan

{P}tail:
	CMPQ         R15, R14
	JGE          {P}end
`))
	w.WriteString(avx2Step(n, 0, pre+"tieT", pre+"store"))
	w.WriteString(r.Replace(`	JMP          {P}end
`))
	w.WriteString(avx2Tie(pre+"tieA", 0, mask))
	w.WriteString(avx2Tie(pre+"tieB", 32, mask))
	w.WriteString(avx2Tie(pre+"tieT", 0, mask))
	w.WriteString(r.Replace(`
{P}store:
	// Stopped early: the lanes whose run at the last key checked started
	// at most at their pick's position (128(SP)) go on checking it to its
	// end (avx2Tie on keys of one prefix).
	VSHUFPS      $0x88, Y11, Y10, Y1
	VPERMQ       $0xd8, Y1, Y1
	VPMINUD      Y1, Y14, Y4
	VPCMPEQD     Y14, Y4, Y4
	VMOVMSKPS    Y4, AX
	ANDL         136(SP), AX
	MOVL         AX, 128(SP)
	JZ           {P}end

{P}open:
	ADDQ         $32, R15
	CMPQ         R15, R14
	JGE          {P}end
	VMOVDQU      (R15), Y0
	VPAND        {NM}, Y0, Y0
	VPCMPEQD     Y0, Y2, Y4
	VMOVDQA      Y0, Y2
	VMOVMSKPS    Y4, AX
	ANDL         128(SP), AX
	MOVL         AX, 128(SP)
	JNZ          {P}tieO
	JMP          {P}end
`))
	w.WriteString(strings.Replace(avx2Tie(pre+"tieO", 0, mask), "JMP          "+pre+"tieOed", "JMP          "+pre+"open", 1))
	w.WriteString(r.Replace(`
{P}end:
	VMOVDQU      176(SP), Y13

{P}picks:
	// Y1 = the picks' positions (dwords); coll gets the lanes whose first
	// mixed run (Y13) starts at most there.
	VSHUFPS      $0x88, Y11, Y10, Y1
	VPERMQ       $0xd8, Y1, Y1
	VMOVDQU      96(SP), Y5
	VPMINUD      Y1, Y13, Y4
	VPCMPEQD     Y13, Y4, Y4
	VPAND        Y5, Y4, Y4
	VMOVMSKPS    Y4, AX
	MOVW         AX, (R12)
	ADDQ         $2, R12
	// The picked keys (keys[position][lane]) → lo + index.
	VPSLLD       $3, Y1, Y1
	VPADDD       dmIotaAVX2<>(SB), Y1, Y1
	VMOVDQA      Y5, Y4
	VPGATHERDD   Y4, (R8)(Y1*4), Y0
	VPAND        (SP), Y0, Y0
	MOVQ         lo+48(FP), AX
	VMOVD        AX, X1
	VPBROADCASTD X1, Y1
	VPADDD       Y1, Y0, Y0
	VPMASKMOVD   Y0, Y5, (DI)(R13*4)
	ADDQ         $8, R13
	CMPQ         R13, BX
	JLT          {P}group

{P}done:
	VZEROUPPER
	RET
`))
}

const avx2Data = `
// dmLanesAVX2: eight dwords −1, eight 0 (the lanes of a group of k columns
// are the eight from dword 8−k); dmIotaAVX2: 0 … 7.
DATA dmLanesAVX2<>+0(SB)/8, $-1
DATA dmLanesAVX2<>+8(SB)/8, $-1
DATA dmLanesAVX2<>+16(SB)/8, $-1
DATA dmLanesAVX2<>+24(SB)/8, $-1
DATA dmLanesAVX2<>+32(SB)/8, $0
DATA dmLanesAVX2<>+40(SB)/8, $0
DATA dmLanesAVX2<>+48(SB)/8, $0
DATA dmLanesAVX2<>+56(SB)/8, $0
GLOBL dmLanesAVX2<>(SB), RODATA|NOPTR, $64
DATA dmIotaAVX2<>+0(SB)/8, $0x0000000100000000
DATA dmIotaAVX2<>+8(SB)/8, $0x0000000300000002
DATA dmIotaAVX2<>+16(SB)/8, $0x0000000500000004
DATA dmIotaAVX2<>+24(SB)/8, $0x0000000700000006
GLOBL dmIotaAVX2<>(SB), RODATA|NOPTR, $32
`

// avx2IndexData is dmIndexAVX2: 64 times eight dwords i (i = 0 … 63).
func avx2IndexData() string {
	var b strings.Builder
	b.WriteString("\n// dmIndexAVX2: eight dwords i at 32·i (i = 0 … 63).\n")
	for i := range 64 {
		for h := range 4 {
			fmt.Fprintf(&b, "DATA dmIndexAVX2<>+%d(SB)/8, $%#016x\n", 32*i+8*h, uint64(i)<<32|uint64(i))
		}
	}
	b.WriteString("GLOBL dmIndexAVX2<>(SB), RODATA|NOPTR, $2048\n")
	return b.String()
}

func main() {
	out := flag.String("o", "dimmedian_amd64.s", "output file")
	flag.Parse()
	var w bytes.Buffer
	w.WriteString(header)
	for _, n := range sizes {
		genFast(&w, n, 16)
	}
	for _, n := range sizes {
		genFast(&w, n, 8)
	}
	for _, n := range sizes {
		genExact(&w, n)
	}
	w.WriteString(avx2Data)
	w.WriteString(avx2IndexData())
	for _, n := range sizes {
		genAVX2(&w, n)
	}
	if err := os.WriteFile(*out, w.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
