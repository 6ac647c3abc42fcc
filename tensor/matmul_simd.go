//go:build goexperiment.simd && amd64

package tensor

import (
	"simd/archsimd"
	"unsafe"
)

// The dense products' kernels of the GOEXPERIMENT=simd build: the
// operations of the assembly build's Y-register kernels (matmul_amd64.s),
// so every output element gets the bits of the axpy and dot loops
// (kernels.go) on any CPU with AVX2+FMA. The tiles are smaller (two output
// rows × 24 or 8 columns; dot's sixteen partial sums four at a time): with
// more live vectors the compiler spills them inside the loops. Operands are
// addressed with unsafe.Add from their first element after one bounds
// check per call (checkAxpyBlock, dotRows), each address inside its slice;
// the unfused columns (fewer than 8) and the last partial block of dotRows
// go through archsimd's bounds-checked partial loads and stores.

// hasGemmKernels reports whether axpyBlock and dotRows run vector kernels.
var hasGemmKernels = useAVX2

// axpyBlock computes, for the output rows r < rows and columns j < n of c
// (row stride ldc), the sequence of one axpy per nonzero a value:
//
//	c[r][:n] = 0 unless load; for t < tn in order: if av := a[r*sai+t*sat]; av != 0 { axpy(c[r][:n], b[t*ldb:][:n], av) }
//
// that is, fused multiply-adds in the columns below n&^7 and a rounded
// product added in the others (all columns when n < 8). A zero a value is
// skipped by a blend, not a branch. It reports false without AVX2+FMA.
func axpyBlock(c []float32, ldc int, a []float32, sai, sat int, b []float32, ldb, rows, tn, n int, load bool) bool {
	if !useAVX2 {
		return false
	}
	if axpyBlockDone(c, ldc, a, sai, sat, b, ldb, rows, tn, n, load) {
		return true
	}
	n8 := n &^ 7
	pc := unsafe.Pointer(unsafe.SliceData(c))
	pa := unsafe.Pointer(unsafe.SliceData(a))
	pb := unsafe.Pointer(unsafe.SliceData(b))
	for r := 0; r < rows; r += 2 {
		rr := min(2, rows-r)
		for j := 0; j < n8; {
			w := min(24, n8-j) // fused columns of this pass
			pcj, paj, pbj := unsafe.Add(pc, 4*(r*ldc+j)), unsafe.Add(pa, 4*r*sai), unsafe.Add(pb, 4*j)
			switch {
			case rr == 2 && w == 24:
				axpySimd2x24(pcj, ldc, paj, sai, sat, pbj, ldb, tn, load)
			case rr == 2:
				for o := 0; o < w; o += 8 {
					axpySimd2x8(unsafe.Add(pcj, 4*o), ldc, paj, sai, sat, unsafe.Add(pbj, 4*o), ldb, tn, load)
				}
			default:
				for o := 0; o < w; o += 8 {
					axpySimd1x8(unsafe.Add(pcj, 4*o), paj, sat, unsafe.Add(pbj, 4*o), ldb, tn, load)
				}
			}
			j += w
		}
		if n8 < n {
			for i := r; i < r+rr; i++ {
				axpySimdTail(c[i*ldc+n8:i*ldc+n], a[i*sai:], sat, b[n8:], ldb, tn, load)
			}
		}
	}
	archsimd.ClearAVXUpperBits()
	return true
}

// load8 and store8 read and write the eight floats at p.
func load8(p unsafe.Pointer) archsimd.Float32x8 { return archsimd.LoadFloat32x8((*[8]float32)(p)) }

func store8(v archsimd.Float32x8, p unsafe.Pointer) { v.Store((*[8]float32)(p)) }

// at returns the float at byte offset off from p.
func at(p unsafe.Pointer, off int) float32 { return *(*float32)(unsafe.Add(p, off)) }

// axpySimd2x24 is axpyBlock for two rows × 24 fused columns (c, a and b
// at the tile's first row, step and column). Larger tiles leave the
// compiler too few registers: it spills the accumulators.
func axpySimd2x24(c unsafe.Pointer, ldc int, a unsafe.Pointer, sai, sat int, b unsafe.Pointer, ldb, tn int, load bool) {
	c1 := unsafe.Add(c, 4*ldc)
	var x00, x01, x02, x10, x11, x12, zero archsimd.Float32x8
	if load {
		x00, x01, x02 = load8(c), load8(unsafe.Add(c, 32)), load8(unsafe.Add(c, 64))
		x10, x11, x12 = load8(c1), load8(unsafe.Add(c1, 32)), load8(unsafe.Add(c1, 64))
	}
	s1 := 4 * sai
	for t := range tn {
		oa, ob := 4*t*sat, 4*t*ldb
		b0, b1, b2 := load8(unsafe.Add(b, ob)), load8(unsafe.Add(b, ob+32)), load8(unsafe.Add(b, ob+64))
		v := archsimd.BroadcastFloat32x8(at(a, oa))
		m := v.NotEqual(zero)
		x00 = b0.MulAdd(v, x00).Merge(x00, m)
		x01 = b1.MulAdd(v, x01).Merge(x01, m)
		x02 = b2.MulAdd(v, x02).Merge(x02, m)
		v = archsimd.BroadcastFloat32x8(at(a, oa+s1))
		m = v.NotEqual(zero)
		x10 = b0.MulAdd(v, x10).Merge(x10, m)
		x11 = b1.MulAdd(v, x11).Merge(x11, m)
		x12 = b2.MulAdd(v, x12).Merge(x12, m)
	}
	store8(x00, c)
	store8(x01, unsafe.Add(c, 32))
	store8(x02, unsafe.Add(c, 64))
	store8(x10, c1)
	store8(x11, unsafe.Add(c1, 32))
	store8(x12, unsafe.Add(c1, 64))
}

// axpySimd2x8 is axpySimd2x24 for 8 fused columns.
func axpySimd2x8(c unsafe.Pointer, ldc int, a unsafe.Pointer, sai, sat int, b unsafe.Pointer, ldb, tn int, load bool) {
	c1 := unsafe.Add(c, 4*ldc)
	var x0, x1, zero archsimd.Float32x8
	if load {
		x0, x1 = load8(c), load8(c1)
	}
	s1 := 4 * sai
	for t := range tn {
		oa := 4 * t * sat
		b0 := load8(unsafe.Add(b, 4*t*ldb))
		v := archsimd.BroadcastFloat32x8(at(a, oa))
		x0 = b0.MulAdd(v, x0).Merge(x0, v.NotEqual(zero))
		v = archsimd.BroadcastFloat32x8(at(a, oa+s1))
		x1 = b0.MulAdd(v, x1).Merge(x1, v.NotEqual(zero))
	}
	store8(x0, c)
	store8(x1, c1)
}

// axpySimd1x8 is axpySimd2x8 for one row.
func axpySimd1x8(c, a unsafe.Pointer, sat int, b unsafe.Pointer, ldb, tn int, load bool) {
	var x0, zero archsimd.Float32x8
	if load {
		x0 = load8(c)
	}
	for t := range tn {
		v := archsimd.BroadcastFloat32x8(at(a, 4*t*sat))
		x0 = load8(unsafe.Add(b, 4*t*ldb)).MulAdd(v, x0).Merge(x0, v.NotEqual(zero))
	}
	store8(x0, c)
}

// axpySimdTail is axpyBlock's unfused columns (fewer than 8) of one row:
// c += round(av·b) where av ≠ 0.
func axpySimdTail(c, a []float32, sat int, b []float32, ldb, tn int, load bool) {
	var x0, zero archsimd.Float32x8
	if load {
		x0 = archsimd.LoadFloat32x8SlicePart(c)
	}
	n := len(c)
	for t := range tn {
		v := archsimd.BroadcastFloat32x8(a[t*sat])
		p := v.Mul(archsimd.LoadFloat32x8SlicePart(b[t*ldb : t*ldb+n]))
		x0 = x0.Add(p).Merge(x0, v.NotEqual(zero))
	}
	x0.StoreSlicePart(c)
}

// dotPack returns b's rows packed for dotRows in blocks of 8 rows,
// bt[blk][t][l] = b[8·blk + l][t], zero past b's last row; nil without
// AVX2+FMA or with nothing to pack.
func dotPack(b *Dense) []float32 {
	if !useAVX2 || b.Rows == 0 || b.Cols == 0 {
		return nil
	}
	return packColumns(b, 8)
}

// dotRows computes rows [lo, hi) of dst = a·bᵀ (+= when acc) from bt =
// dotPack(b) (nj = b.Rows): every element is dot(a's row, b's row) with
// dot's operations, one output column per lane — dot's sixteen partial
// sums are sixteen vectors (the second eight first, then the first), its
// reduction and its tail follow lane by lane.
func dotRows(dst, a *Dense, bt []float32, nj int, acc bool, lo, hi int) {
	k := a.Cols
	if hi <= lo || nj == 0 {
		return
	}
	nb := (nj + 7) / 8
	_ = a.Data[hi*k-1]
	_ = dst.Data[hi*nj-1]
	_ = bt[nb*k*8-1]
	pbt := unsafe.Pointer(unsafe.SliceData(bt))
	k16 := k &^ 15
	for i := lo; i < hi; i++ {
		x := a.Data[i*k : (i+1)*k]
		px := unsafe.Pointer(unsafe.SliceData(x))
		for blk := range nb {
			pb := unsafe.Add(pbt, 4*blk*k*8)
			var s archsimd.Float32x8
			if k16 > 0 {
				s = dotSimdMain(px, pb, k16)
			}
			if k16 < k {
				ts := dotSimdTail(x[k16:], unsafe.Add(pb, 4*k16*8))
				if k16 > 0 {
					s = s.Add(ts)
				} else {
					s = ts
				}
			}
			out := dst.Data[i*nj+8*blk : i*nj+min(nj, 8*blk+8)]
			if len(out) == 8 {
				po := unsafe.Pointer(unsafe.SliceData(out))
				if acc {
					s = load8(po).Add(s)
				}
				store8(s, po)
				continue
			}
			if acc {
				s = archsimd.LoadFloat32x8SlicePart(out).Add(s)
			}
			s.StoreSlicePart(out)
		}
	}
	archsimd.ClearAVXUpperBits()
}

// dotSimdMain is dot's vector part for 8 output columns: x the row of a,
// b its block of packed columns, k16 a positive multiple of 16. Dot's
// sixteen partial sums (lanes 0–7 of its first accumulator, then of its
// second) run four at a time, so that the compiler keeps them in
// registers; then buf = s0 + s1 and hsum8's tree.
func dotSimdMain(x, b unsafe.Pointer, k16 int) archsimd.Float32x8 {
	s0, s1, s2, s3 := dotSimd4(x, b, k16, 0)
	s4, s5, s6, s7 := dotSimd4(x, b, k16, 4)
	s8, s9, s10, s11 := dotSimd4(x, b, k16, 8)
	s12, s13, s14, s15 := dotSimd4(x, b, k16, 12)
	s0, s1, s2, s3 = s0.Add(s8), s1.Add(s9), s2.Add(s10), s3.Add(s11)
	s4, s5, s6, s7 = s4.Add(s12), s5.Add(s13), s6.Add(s14), s7.Add(s15)
	return s0.Add(s1).Add(s2.Add(s3)).Add(s4.Add(s5).Add(s6.Add(s7)))
}

// dotSimd4 returns dot's partial sums l = off … off+3 (elements 16q + l)
// for 8 output columns.
func dotSimd4(x, b unsafe.Pointer, k16, off int) (c0, c1, c2, c3 archsimd.Float32x8) {
	for q := off; q < k16; q += 16 {
		px, pb := unsafe.Add(x, 4*q), unsafe.Add(b, 32*q)
		c0 = archsimd.BroadcastFloat32x8(at(px, 0)).MulAdd(load8(pb), c0)
		c1 = archsimd.BroadcastFloat32x8(at(px, 4)).MulAdd(load8(unsafe.Add(pb, 32)), c1)
		c2 = archsimd.BroadcastFloat32x8(at(px, 8)).MulAdd(load8(unsafe.Add(pb, 64)), c2)
		c3 = archsimd.BroadcastFloat32x8(at(px, 12)).MulAdd(load8(unsafe.Add(pb, 96)), c3)
	}
	return
}

// dotSimdTail is dotGeneric of the tail x (fewer than 16 elements) for 8
// output columns, b at the tail's first packed row: four partial sums of
// rounded products over the groups of four, the rest into the first, then
// (t0+t1)+(t2+t3).
func dotSimdTail(x []float32, b unsafe.Pointer) archsimd.Float32x8 {
	var t0, t1, t2, t3 archsimd.Float32x8
	e := 0
	for ; e+4 <= len(x); e += 4 {
		pb := unsafe.Add(b, 32*e)
		t0 = t0.Add(archsimd.BroadcastFloat32x8(x[e]).Mul(load8(pb)))
		t1 = t1.Add(archsimd.BroadcastFloat32x8(x[e+1]).Mul(load8(unsafe.Add(pb, 32))))
		t2 = t2.Add(archsimd.BroadcastFloat32x8(x[e+2]).Mul(load8(unsafe.Add(pb, 64))))
		t3 = t3.Add(archsimd.BroadcastFloat32x8(x[e+3]).Mul(load8(unsafe.Add(pb, 96))))
	}
	for ; e < len(x); e++ {
		t0 = t0.Add(archsimd.BroadcastFloat32x8(x[e]).Mul(load8(unsafe.Add(b, 32*e))))
	}
	return t0.Add(t1).Add(t2.Add(t3))
}
