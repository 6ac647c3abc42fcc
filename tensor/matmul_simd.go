//go:build goexperiment.simd && amd64

package tensor

import (
	"simd/archsimd"
	"unsafe"
)

// The dense products' kernels of the GOEXPERIMENT=simd build: the
// operations of the assembly build's Y-register kernels (matmul_amd64.s),
// in tiles of four output rows × 16 or 8 columns, so every output element
// gets the bits of the axpy and dot loops (kernels.go) on any CPU with
// AVX2+FMA. Operands are addressed with unsafe.Add from their first
// element after one bounds check per call (checkAxpyBlock, dotRows), each
// address inside its slice; the unfused columns (fewer than 8) go through
// bounds-checked partial loads.

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
	if rows <= 0 || n <= 0 {
		return true
	}
	checkAxpyBlock(c, ldc, a, sai, sat, b, ldb, rows, tn, n)
	if tn == 0 {
		if !load {
			for r := range rows {
				clear(c[r*ldc : r*ldc+n])
			}
		}
		return true
	}
	n8 := n &^ 7
	pc := unsafe.Pointer(unsafe.SliceData(c))
	pa := unsafe.Pointer(unsafe.SliceData(a))
	pb := unsafe.Pointer(unsafe.SliceData(b))
	for r := 0; r < rows; r += 4 {
		rr := min(4, rows-r)
		j := 0
		for ; j+16 <= n8; j += 16 {
			if rr == 4 {
				axpySimd4x16(unsafe.Add(pc, 4*(r*ldc+j)), ldc, unsafe.Add(pa, 4*r*sai), sai, sat, unsafe.Add(pb, 4*j), ldb, tn, load)
				continue
			}
			for i := r; i < r+rr; i++ {
				axpySimd1x16(unsafe.Add(pc, 4*(i*ldc+j)), unsafe.Add(pa, 4*i*sai), sat, unsafe.Add(pb, 4*j), ldb, tn, load)
			}
		}
		if j < n8 {
			for i := r; i < r+rr; i++ {
				axpySimd1x8(unsafe.Add(pc, 4*(i*ldc+j)), unsafe.Add(pa, 4*i*sai), sat, unsafe.Add(pb, 4*j), ldb, tn, load)
			}
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

// axpySimd4x16 is axpyBlock for four rows × 16 fused columns (c, a and b
// at the tile's first row, step and column).
func axpySimd4x16(c unsafe.Pointer, ldc int, a unsafe.Pointer, sai, sat int, b unsafe.Pointer, ldb, tn int, load bool) {
	c1, c2, c3 := unsafe.Add(c, 4*ldc), unsafe.Add(c, 8*ldc), unsafe.Add(c, 12*ldc)
	var x00, x01, x10, x11, x20, x21, x30, x31, zero archsimd.Float32x8
	if load {
		x00, x01 = load8(c), load8(unsafe.Add(c, 32))
		x10, x11 = load8(c1), load8(unsafe.Add(c1, 32))
		x20, x21 = load8(c2), load8(unsafe.Add(c2, 32))
		x30, x31 = load8(c3), load8(unsafe.Add(c3, 32))
	}
	s1, s2, s3 := 4*sai, 8*sai, 12*sai
	for t := range tn {
		oa, ob := 4*t*sat, 4*t*ldb
		b0, b1 := load8(unsafe.Add(b, ob)), load8(unsafe.Add(b, ob+32))
		v := archsimd.BroadcastFloat32x8(at(a, oa))
		m := v.NotEqual(zero)
		x00, x01 = b0.MulAdd(v, x00).Merge(x00, m), b1.MulAdd(v, x01).Merge(x01, m)
		v = archsimd.BroadcastFloat32x8(at(a, oa+s1))
		m = v.NotEqual(zero)
		x10, x11 = b0.MulAdd(v, x10).Merge(x10, m), b1.MulAdd(v, x11).Merge(x11, m)
		v = archsimd.BroadcastFloat32x8(at(a, oa+s2))
		m = v.NotEqual(zero)
		x20, x21 = b0.MulAdd(v, x20).Merge(x20, m), b1.MulAdd(v, x21).Merge(x21, m)
		v = archsimd.BroadcastFloat32x8(at(a, oa+s3))
		m = v.NotEqual(zero)
		x30, x31 = b0.MulAdd(v, x30).Merge(x30, m), b1.MulAdd(v, x31).Merge(x31, m)
	}
	store8(x00, c)
	store8(x01, unsafe.Add(c, 32))
	store8(x10, c1)
	store8(x11, unsafe.Add(c1, 32))
	store8(x20, c2)
	store8(x21, unsafe.Add(c2, 32))
	store8(x30, c3)
	store8(x31, unsafe.Add(c3, 32))
}

// axpySimd1x16 is axpySimd4x16 for one row.
func axpySimd1x16(c, a unsafe.Pointer, sat int, b unsafe.Pointer, ldb, tn int, load bool) {
	var x0, x1, zero archsimd.Float32x8
	if load {
		x0, x1 = load8(c), load8(unsafe.Add(c, 32))
	}
	for t := range tn {
		ob := 4 * t * ldb
		v := archsimd.BroadcastFloat32x8(at(a, 4*t*sat))
		m := v.NotEqual(zero)
		x0 = load8(unsafe.Add(b, ob)).MulAdd(v, x0).Merge(x0, m)
		x1 = load8(unsafe.Add(b, ob+32)).MulAdd(v, x1).Merge(x1, m)
	}
	store8(x0, c)
	store8(x1, unsafe.Add(c, 32))
}

// axpySimd1x8 is axpySimd1x16 for 8 fused columns.
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
// b its block of packed columns, k16 a positive multiple of 16.
func dotSimdMain(x, b unsafe.Pointer, k16 int) archsimd.Float32x8 {
	// The second accumulator's lanes (elements 16q+8 … 16q+15).
	var h0, h1, h2, h3, h4, h5, h6, h7 archsimd.Float32x8
	for q := 0; q < k16; q += 16 {
		px, pb := unsafe.Add(x, 4*(q+8)), unsafe.Add(b, 32*(q+8))
		h0 = archsimd.BroadcastFloat32x8(at(px, 0)).MulAdd(load8(pb), h0)
		h1 = archsimd.BroadcastFloat32x8(at(px, 4)).MulAdd(load8(unsafe.Add(pb, 32)), h1)
		h2 = archsimd.BroadcastFloat32x8(at(px, 8)).MulAdd(load8(unsafe.Add(pb, 64)), h2)
		h3 = archsimd.BroadcastFloat32x8(at(px, 12)).MulAdd(load8(unsafe.Add(pb, 96)), h3)
		h4 = archsimd.BroadcastFloat32x8(at(px, 16)).MulAdd(load8(unsafe.Add(pb, 128)), h4)
		h5 = archsimd.BroadcastFloat32x8(at(px, 20)).MulAdd(load8(unsafe.Add(pb, 160)), h5)
		h6 = archsimd.BroadcastFloat32x8(at(px, 24)).MulAdd(load8(unsafe.Add(pb, 192)), h6)
		h7 = archsimd.BroadcastFloat32x8(at(px, 28)).MulAdd(load8(unsafe.Add(pb, 224)), h7)
	}
	// The first accumulator's, then buf = s0 + s1 and hsum8's tree.
	var g0, g1, g2, g3, g4, g5, g6, g7 archsimd.Float32x8
	for q := 0; q < k16; q += 16 {
		px, pb := unsafe.Add(x, 4*q), unsafe.Add(b, 32*q)
		g0 = archsimd.BroadcastFloat32x8(at(px, 0)).MulAdd(load8(pb), g0)
		g1 = archsimd.BroadcastFloat32x8(at(px, 4)).MulAdd(load8(unsafe.Add(pb, 32)), g1)
		g2 = archsimd.BroadcastFloat32x8(at(px, 8)).MulAdd(load8(unsafe.Add(pb, 64)), g2)
		g3 = archsimd.BroadcastFloat32x8(at(px, 12)).MulAdd(load8(unsafe.Add(pb, 96)), g3)
		g4 = archsimd.BroadcastFloat32x8(at(px, 16)).MulAdd(load8(unsafe.Add(pb, 128)), g4)
		g5 = archsimd.BroadcastFloat32x8(at(px, 20)).MulAdd(load8(unsafe.Add(pb, 160)), g5)
		g6 = archsimd.BroadcastFloat32x8(at(px, 24)).MulAdd(load8(unsafe.Add(pb, 192)), g6)
		g7 = archsimd.BroadcastFloat32x8(at(px, 28)).MulAdd(load8(unsafe.Add(pb, 224)), g7)
	}
	g0, g1, g2, g3 = g0.Add(h0), g1.Add(h1), g2.Add(h2), g3.Add(h3)
	g4, g5, g6, g7 = g4.Add(h4), g5.Add(h5), g6.Add(h6), g7.Add(h7)
	return g0.Add(g1).Add(g2.Add(g3)).Add(g4.Add(g5).Add(g6.Add(g7)))
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
