//go:build goexperiment.simd && amd64

package engine

import "simd/archsimd"

var tileAVX2 = archsimd.X86.AVX2() && archsimd.X86.FMA()

// tile is the 4×16 register tile with AVX2 FMAs (8 accumulators).
func tile(out *[tileRows * tileCols]float32, k, panel []float32, r2 int) {
	if !tileAVX2 {
		tileGeneric(out, k, panel, r2)
		return
	}
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x8
	k0, k1, k2, k3 := k[:r2], k[r2:2*r2], k[2*r2:3*r2], k[3*r2:4*r2]
	for d := 0; d < r2; d++ {
		p := panel[d*tileCols : d*tileCols+tileCols]
		l0 := archsimd.LoadFloat32x8Slice(p)
		l1 := archsimd.LoadFloat32x8Slice(p[8:])
		a := archsimd.BroadcastFloat32x8(k0[d])
		c00, c01 = l0.MulAdd(a, c00), l1.MulAdd(a, c01)
		a = archsimd.BroadcastFloat32x8(k1[d])
		c10, c11 = l0.MulAdd(a, c10), l1.MulAdd(a, c11)
		a = archsimd.BroadcastFloat32x8(k2[d])
		c20, c21 = l0.MulAdd(a, c20), l1.MulAdd(a, c21)
		a = archsimd.BroadcastFloat32x8(k3[d])
		c30, c31 = l0.MulAdd(a, c30), l1.MulAdd(a, c31)
	}
	o := out[:]
	c00.StoreSlice(o[0:])
	c01.StoreSlice(o[8:])
	c10.StoreSlice(o[16:])
	c11.StoreSlice(o[24:])
	c20.StoreSlice(o[32:])
	c21.StoreSlice(o[40:])
	c30.StoreSlice(o[48:])
	c31.StoreSlice(o[56:])
}
