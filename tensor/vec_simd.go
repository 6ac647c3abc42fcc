//go:build goexperiment.simd && amd64

package tensor

import "simd/archsimd"

// Every kernel ends with archsimd.ClearAVXUpperBits (VZEROUPPER): Go compiles
// scalar float code to legacy SSE, and with the upper halves of the AVX
// registers dirty each such instruction pays a state-transition penalty
// (math.Exp after these kernels ran tens of times slower).

// useAVX2 is fixed at start-up from the CPU's features; without AVX2+FMA the
// portable kernels run.
var useAVX2 = archsimd.X86.AVX2() && archsimd.X86.FMA()

// SIMD reports which vector path the kernels use.
var SIMD = func() string {
	if useAVX2 {
		return "AVX2+FMA (GOEXPERIMENT=simd)"
	}
	return "none (CPU lacks AVX2/FMA)"
}()

// axpy computes y += alpha·x with 8-wide fused multiply-adds.
func axpy(y, x []float32, alpha float32) {
	if !useAVX2 || len(y) < 8 {
		axpyGeneric(y, x, alpha)
		return
	}
	x = x[:len(y)]
	a := archsimd.BroadcastFloat32x8(alpha)
	i := 0
	for ; i+16 <= len(y); i += 16 {
		y0 := archsimd.LoadFloat32x8Slice(y[i:])
		y1 := archsimd.LoadFloat32x8Slice(y[i+8:])
		x0 := archsimd.LoadFloat32x8Slice(x[i:])
		x1 := archsimd.LoadFloat32x8Slice(x[i+8:])
		x0.MulAdd(a, y0).StoreSlice(y[i:])
		x1.MulAdd(a, y1).StoreSlice(y[i+8:])
	}
	for ; i+8 <= len(y); i += 8 {
		y0 := archsimd.LoadFloat32x8Slice(y[i:])
		archsimd.LoadFloat32x8Slice(x[i:]).MulAdd(a, y0).StoreSlice(y[i:])
	}
	archsimd.ClearAVXUpperBits()
	if i < len(y) {
		axpyGeneric(y[i:], x[i:], alpha)
	}
}

// axpyDiff computes d = c·(a − b), y += d, z −= d 8 lanes at a time
// (subtract, multiply, add, subtract: the plain loop's roundings).
func axpyDiff(y, z, a, b []float32, c float32) {
	if !useAVX2 || len(y) < 8 {
		axpyDiffGeneric(y, z, a, b, c)
		return
	}
	z, a, b = z[:len(y)], a[:len(y)], b[:len(y)]
	cv := archsimd.BroadcastFloat32x8(c)
	i := 0
	for ; i+8 <= len(y); i += 8 {
		d := archsimd.LoadFloat32x8Slice(a[i:]).Sub(archsimd.LoadFloat32x8Slice(b[i:])).Mul(cv)
		archsimd.LoadFloat32x8Slice(y[i:]).Add(d).StoreSlice(y[i:])
		archsimd.LoadFloat32x8Slice(z[i:]).Sub(d).StoreSlice(z[i:])
	}
	archsimd.ClearAVXUpperBits()
	if i < len(y) {
		axpyDiffGeneric(y[i:], z[i:], a[i:], b[i:], c)
	}
}

// dot returns Σ x_i y_i with 8-wide fused multiply-adds.
func dot(x, y []float32) float32 {
	if !useAVX2 || len(x) < 16 {
		return dotGeneric(x, y)
	}
	y = y[:len(x)]
	var s0, s1 archsimd.Float32x8
	i := 0
	for ; i+16 <= len(x); i += 16 {
		s0 = archsimd.LoadFloat32x8Slice(x[i:]).MulAdd(archsimd.LoadFloat32x8Slice(y[i:]), s0)
		s1 = archsimd.LoadFloat32x8Slice(x[i+8:]).MulAdd(archsimd.LoadFloat32x8Slice(y[i+8:]), s1)
	}
	var buf [8]float32
	s0.Add(s1).StoreSlice(buf[:])
	archsimd.ClearAVXUpperBits()
	s := ((buf[0] + buf[1]) + (buf[2] + buf[3])) + ((buf[4] + buf[5]) + (buf[6] + buf[7]))
	if i < len(x) {
		s += dotGeneric(x[i:], y[i:])
	}
	return s
}

// spmmRows computes rows [lo, hi) of dst = a·x (+= when acc) for x with a
// multiple of 32 columns, keeping 32 output columns in four vector
// registers across a row's entries. It reports false when it does not apply.
func spmmRows(dst *Dense, a *CSR, x *Dense, acc bool, lo, hi int) bool {
	n := x.Cols
	if !useAVX2 || n%32 != 0 {
		return false
	}
	for i := lo; i < hi; i++ {
		k0, k1 := a.Indptr[i], a.Indptr[i+1]
		for j := 0; j < n; j += 32 {
			out := dst.Data[i*n+j : i*n+j+32]
			var c0, c1, c2, c3 archsimd.Float32x8
			if acc {
				c0 = archsimd.LoadFloat32x8Slice(out[0:])
				c1 = archsimd.LoadFloat32x8Slice(out[8:])
				c2 = archsimd.LoadFloat32x8Slice(out[16:])
				c3 = archsimd.LoadFloat32x8Slice(out[24:])
			}
			// Two entries per step into separate accumulators, so the FMA
			// latency chains of consecutive entries overlap.
			var d0, d1, d2, d3 archsimd.Float32x8
			k := k0
			for ; k+2 <= k1; k += 2 {
				v := archsimd.BroadcastFloat32x8(a.Values[k])
				w := archsimd.BroadcastFloat32x8(a.Values[k+1])
				off := int(a.Indices[k])*n + j
				off2 := int(a.Indices[k+1])*n + j
				xr := x.Data[off : off+32]
				yr := x.Data[off2 : off2+32]
				c0 = archsimd.LoadFloat32x8Slice(xr[0:]).MulAdd(v, c0)
				c1 = archsimd.LoadFloat32x8Slice(xr[8:]).MulAdd(v, c1)
				c2 = archsimd.LoadFloat32x8Slice(xr[16:]).MulAdd(v, c2)
				c3 = archsimd.LoadFloat32x8Slice(xr[24:]).MulAdd(v, c3)
				d0 = archsimd.LoadFloat32x8Slice(yr[0:]).MulAdd(w, d0)
				d1 = archsimd.LoadFloat32x8Slice(yr[8:]).MulAdd(w, d1)
				d2 = archsimd.LoadFloat32x8Slice(yr[16:]).MulAdd(w, d2)
				d3 = archsimd.LoadFloat32x8Slice(yr[24:]).MulAdd(w, d3)
			}
			if k < k1 {
				v := archsimd.BroadcastFloat32x8(a.Values[k])
				off := int(a.Indices[k])*n + j
				xr := x.Data[off : off+32]
				c0 = archsimd.LoadFloat32x8Slice(xr[0:]).MulAdd(v, c0)
				c1 = archsimd.LoadFloat32x8Slice(xr[8:]).MulAdd(v, c1)
				c2 = archsimd.LoadFloat32x8Slice(xr[16:]).MulAdd(v, c2)
				c3 = archsimd.LoadFloat32x8Slice(xr[24:]).MulAdd(v, c3)
			}
			c0, c1, c2, c3 = c0.Add(d0), c1.Add(d1), c2.Add(d2), c3.Add(d3)
			c0.StoreSlice(out[0:])
			c1.StoreSlice(out[8:])
			c2.StoreSlice(out[16:])
			c3.StoreSlice(out[24:])
		}
	}
	archsimd.ClearAVXUpperBits()
	return true
}

// adamVec runs AdamUpdate 8 lanes at a time and returns how many elements
// it handled. Lane arithmetic is the same IEEE float32 sequence as the
// scalar path except that √ is computed in float32 (exactly rounded too).
func adamVec(w, g, m, v []float32, c AdamCoeffs) int {
	if !useAVX2 {
		return 0
	}
	b1 := archsimd.BroadcastFloat32x8(c.Beta1)
	b1c := archsimd.BroadcastFloat32x8(1 - c.Beta1)
	b2 := archsimd.BroadcastFloat32x8(c.Beta2)
	b2c := archsimd.BroadcastFloat32x8(1 - c.Beta2)
	wd := archsimd.BroadcastFloat32x8(c.WeightDecay)
	step := archsimd.BroadcastFloat32x8(c.StepSize)
	sbc := archsimd.BroadcastFloat32x8(c.SqrtBC2)
	eps := archsimd.BroadcastFloat32x8(c.Eps)
	var zero archsimd.Float32x8
	n := len(w) &^ 7
	for j := 0; j < n; j += 8 {
		wj := archsimd.LoadFloat32x8Slice(w[j:])
		gj := archsimd.LoadFloat32x8Slice(g[j:]).Add(wd.Mul(wj))
		mj := b1.Mul(archsimd.LoadFloat32x8Slice(m[j:])).Add(b1c.Mul(gj))
		vj := b2.Mul(archsimd.LoadFloat32x8Slice(v[j:])).Add(b2c.Mul(gj.Mul(gj)))
		mj.StoreSlice(m[j:])
		vj.StoreSlice(v[j:])
		denom := vj.Sqrt().Div(sbc).Add(eps)
		wj.Sub(step.Mul(mj).Div(denom)).StoreSlice(w[j:])
		zero.StoreSlice(g[j:])
	}
	archsimd.ClearAVXUpperBits()
	return n
}

// sqDist returns Σ (x_i − y_i)² with 8-wide fused multiply-adds.
func sqDist(x, y []float32) float32 {
	if !useAVX2 || len(x) < 16 {
		return sqDistGeneric(x, y)
	}
	y = y[:len(x)]
	var s0, s1 archsimd.Float32x8
	i := 0
	for ; i+16 <= len(x); i += 16 {
		d0 := archsimd.LoadFloat32x8Slice(x[i:]).Sub(archsimd.LoadFloat32x8Slice(y[i:]))
		d1 := archsimd.LoadFloat32x8Slice(x[i+8:]).Sub(archsimd.LoadFloat32x8Slice(y[i+8:]))
		s0 = d0.MulAdd(d0, s0)
		s1 = d1.MulAdd(d1, s1)
	}
	var buf [8]float32
	s0.Add(s1).StoreSlice(buf[:])
	archsimd.ClearAVXUpperBits()
	s := ((buf[0] + buf[1]) + (buf[2] + buf[3])) + ((buf[4] + buf[5]) + (buf[6] + buf[7]))
	if i < len(x) {
		s += sqDistGeneric(x[i:], y[i:])
	}
	return s
}

// gemmSmallVec is GemmSmall's register-blocked kernel for n a multiple of
// 32: two output rows × 32 columns stay in eight vector registers across
// the whole inner dimension. m odd is finished by a one-row loop.
func gemmSmallVec(out, a, b []float32, m, k, n int, acc bool) bool {
	if !useAVX2 || n%32 != 0 {
		return false
	}
	gemmRows(out, n, a, b, m, k, n, acc)
	return true
}

// gemmLdVec is GemmLd's AVX2 path: gemmSmallVec's operations into rows of
// stride ldc.
func gemmLdVec(out []float32, ldc int, a, b []float32, m, k, n int) bool {
	if !useAVX2 || n%32 != 0 || n == 0 || m == 0 || k == 0 || ldc < n ||
		len(out) < (m-1)*ldc+n || len(a) < m*k || len(b) < k*n {
		return false
	}
	gemmRows(out, ldc, a, b, m, k, n, false)
	return true
}

// gemmRows is gemmSmallVec with output rows of stride ldc.
func gemmRows(out []float32, ldc int, a, b []float32, m, k, n int, acc bool) {
	i := 0
	for ; i+2 <= m; i += 2 {
		a0, a1 := a[i*k:(i+1)*k], a[(i+1)*k:(i+2)*k]
		for j := 0; j < n; j += 32 {
			o0, o1 := out[i*ldc+j:i*ldc+j+32], out[(i+1)*ldc+j:(i+1)*ldc+j+32]
			var c00, c01, c02, c03, c10, c11, c12, c13 archsimd.Float32x8
			if acc {
				c00, c01 = archsimd.LoadFloat32x8Slice(o0[0:]), archsimd.LoadFloat32x8Slice(o0[8:])
				c02, c03 = archsimd.LoadFloat32x8Slice(o0[16:]), archsimd.LoadFloat32x8Slice(o0[24:])
				c10, c11 = archsimd.LoadFloat32x8Slice(o1[0:]), archsimd.LoadFloat32x8Slice(o1[8:])
				c12, c13 = archsimd.LoadFloat32x8Slice(o1[16:]), archsimd.LoadFloat32x8Slice(o1[24:])
			}
			for t := 0; t < k; t++ {
				br := b[t*n+j : t*n+j+32]
				b0, b1 := archsimd.LoadFloat32x8Slice(br[0:]), archsimd.LoadFloat32x8Slice(br[8:])
				b2, b3 := archsimd.LoadFloat32x8Slice(br[16:]), archsimd.LoadFloat32x8Slice(br[24:])
				v0, v1 := archsimd.BroadcastFloat32x8(a0[t]), archsimd.BroadcastFloat32x8(a1[t])
				c00, c01, c02, c03 = b0.MulAdd(v0, c00), b1.MulAdd(v0, c01), b2.MulAdd(v0, c02), b3.MulAdd(v0, c03)
				c10, c11, c12, c13 = b0.MulAdd(v1, c10), b1.MulAdd(v1, c11), b2.MulAdd(v1, c12), b3.MulAdd(v1, c13)
			}
			c00.StoreSlice(o0[0:])
			c01.StoreSlice(o0[8:])
			c02.StoreSlice(o0[16:])
			c03.StoreSlice(o0[24:])
			c10.StoreSlice(o1[0:])
			c11.StoreSlice(o1[8:])
			c12.StoreSlice(o1[16:])
			c13.StoreSlice(o1[24:])
		}
	}
	archsimd.ClearAVXUpperBits()
	for ; i < m; i++ {
		o := out[i*ldc : i*ldc+n]
		if !acc {
			clear(o)
		}
		for t, av := range a[i*k : (i+1)*k] {
			axpy(o, b[t*n:(t+1)*n], av)
		}
	}
	archsimd.ClearAVXUpperBits()
}

// gramToDistVec is GramToDist 8 lanes at a time; it returns how many
// entries it handled.
func gramToDistVec(g, nb []float32, na float32) int {
	if !useAVX2 {
		return 0
	}
	n := len(g) &^ 7
	a := archsimd.BroadcastFloat32x8(na)
	two := archsimd.BroadcastFloat32x8(2)
	var zero archsimd.Float32x8
	for j := 0; j < n; j += 8 {
		gv := archsimd.LoadFloat32x8Slice(g[j:])
		v := a.Add(archsimd.LoadFloat32x8Slice(nb[j:])).Sub(two.Mul(gv))
		v.Max(zero).Sqrt().StoreSlice(g[j:])
	}
	archsimd.ClearAVXUpperBits()
	return n
}

// pairCoefVec is PairCoef 8 lanes at a time (division by zero is masked).
func pairCoefVec(dst, dist, w, g []float32, ga, wa float32) (int, float32) {
	if !useAVX2 {
		return 0, 0
	}
	n := len(dst) &^ 7
	a := archsimd.BroadcastFloat32x8(ga)
	b := archsimd.BroadcastFloat32x8(wa)
	var zero, acc archsimd.Float32x8
	for j := 0; j < n; j += 8 {
		d := archsimd.LoadFloat32x8Slice(dist[j:])
		num := archsimd.LoadFloat32x8Slice(w[j:]).Mul(a).Add(archsimd.LoadFloat32x8Slice(g[j:]).Mul(b))
		v := num.Div(d).Masked(d.Greater(zero))
		v.StoreSlice(dst[j:])
		acc = acc.Add(v)
	}
	var buf [8]float32
	acc.StoreSlice(buf[:])
	archsimd.ClearAVXUpperBits()
	return n, ((buf[0] + buf[1]) + (buf[2] + buf[3])) + ((buf[4] + buf[5]) + (buf[6] + buf[7]))
}

// PrefetchRows is a hint this build does not give (it changes no value).
func PrefetchRows(data []float32, stride, width int, idx []int32) {}

// gemmLd6Vec has no six-row kernel in this build (GemmLd6 reports false).
func gemmLd6Vec(out []float32, ldc int, a []float32, lda int, b []float32, ldb, m, k, n int) bool {
	return false
}
