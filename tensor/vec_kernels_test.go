package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The tests of this file check the build's vector kernels (Go assembly in
// the default build on amd64, archsimd with GOEXPERIMENT=simd, the portable
// code elsewhere) against plain Go references on random inputs of every
// length 0..70 at unaligned offsets, so that each vector width's tail runs.

// eps32 is float32's machine epsilon.
const eps32 = 1.0 / (1 << 23)

// randVec returns n normal values starting off elements into a fresh
// slice (so that the data is not 32-byte aligned when off > 0).
func randVec(rng *rand.Rand, n, off int) []float32 {
	s := make([]float32, n+off)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s[off:]
}

// near reports whether got is within a sum of n float32 roundings of want,
// scale being Σ|terms|.
func near(got, want float32, scale float64, n int) bool {
	tol := 2*float64(n+2)*eps32*scale + 1e-30
	return math.Abs(float64(got)-float64(want)) <= tol
}

func TestVecKernelsAgainstGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 0; n <= 70; n++ {
		for off := 0; off < 4; off++ {
			x, y := randVec(rng, n, off), randVec(rng, n, (off+1)%4)
			alpha := float32(rng.NormFloat64())

			var want64, scale float64
			for i := range x {
				want64 += float64(x[i]) * float64(y[i])
				scale += math.Abs(float64(x[i]) * float64(y[i]))
			}
			if got := Dot(x, y); !near(got, float32(want64), scale, n) {
				t.Fatalf("Dot n=%d off=%d: %v, want %v", n, off, got, want64)
			}
			want64, scale = 0, 0
			for i := range x {
				d := float64(x[i]) - float64(y[i])
				want64 += d * d
				scale += d * d
			}
			if got := SqDist(x, y); !near(got, float32(want64), scale, n) {
				t.Fatalf("SqDist n=%d off=%d: %v, want %v", n, off, got, want64)
			}

			yy := append([]float32(nil), y...)
			Axpy(yy, x, alpha)
			for i := range yy {
				w := float64(y[i]) + float64(alpha)*float64(x[i])
				if !near(yy[i], float32(w), math.Abs(float64(y[i]))+math.Abs(float64(alpha*x[i])), 1) {
					t.Fatalf("Axpy n=%d off=%d [%d]: %v, want %v", n, off, i, yy[i], w)
				}
			}
			ref := append([]float32(nil), y...)
			axpyGeneric(ref, x, alpha)
			for i := range ref { // FMA or not, at most one rounding apart
				if math.Abs(float64(ref[i]-yy[i])) > 2*eps32*(math.Abs(float64(ref[i]))+math.Abs(float64(alpha*x[i]))) {
					t.Fatalf("Axpy vs axpyGeneric n=%d [%d]: %v vs %v", n, i, yy[i], ref[i])
				}
			}

			// GramToDist and PairCoef: elementwise, against the scalar loop.
			nb := randVec(rng, n, off)
			for i := range nb {
				nb[i] *= nb[i]
			}
			g := randVec(rng, n, (off+2)%4)
			if n > 3 {
				g[3] = float32(math.NaN())
			}
			na := float32(rng.Float64() * 3)
			got := append([]float32(nil), g...)
			GramToDist(got, nb, na)
			for j := range g {
				v := na + nb[j] - 2*g[j]
				if !(v > 0) {
					v = 0
				}
				if w := float32(math.Sqrt(float64(v))); math.Float32bits(w) != math.Float32bits(got[j]) {
					t.Fatalf("GramToDist n=%d [%d]: %v, want %v", n, j, got[j], w)
				}
			}
			dist := randVec(rng, n, off)
			for j := range dist {
				if j%5 == 0 {
					dist[j] = 0
				} else if j%7 == 0 {
					dist[j] = -dist[j] * dist[j]
				} else {
					dist[j] = dist[j] * dist[j]
				}
			}
			dst := make([]float32, n)
			ga, wa := float32(rng.NormFloat64()), float32(rng.NormFloat64())
			sum := PairCoef(dst, dist, x, y, ga, wa)
			var wsum, ssc float64
			for j := range dst {
				var v float32
				if dist[j] > 0 {
					v = (ga*x[j] + y[j]*wa) / dist[j]
				}
				if math.Float32bits(v) != math.Float32bits(dst[j]) {
					t.Fatalf("PairCoef n=%d [%d]: %v, want %v", n, j, dst[j], v)
				}
				wsum += float64(v)
				ssc += math.Abs(float64(v))
			}
			if !near(sum, float32(wsum), ssc, n) {
				t.Fatalf("PairCoef sum n=%d: %v, want %v", n, sum, wsum)
			}
		}
	}
}

// naiveGemm is out = a·b (+ out when acc) in float64.
func naiveGemm(out, a, b []float32, m, k, n int, acc bool) ([]float64, []float64) {
	want, scale := make([]float64, m*n), make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, sc float64
			if acc {
				s, sc = float64(out[i*n+j]), math.Abs(float64(out[i*n+j]))
			}
			for t := 0; t < k; t++ {
				p := float64(a[i*k+t]) * float64(b[t*n+j])
				s += p
				sc += math.Abs(p)
			}
			want[i*n+j], scale[i*n+j] = s, sc
		}
	}
	return want, scale
}

// TestAxpyDiffSameBitsAsLoop checks the build's AxpyDiff against the plain
// loop bit for bit (it fuses nothing) at every length 0..70 and offset.
func TestAxpyDiffSameBitsAsLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	for n := 0; n <= 70; n++ {
		for off := 0; off < 4; off++ {
			a, b := randVec(rng, n, off), randVec(rng, n, (off+1)%4)
			y, z := randVec(rng, n, (off+2)%4), randVec(rng, n, (off+3)%4)
			c := float32(rng.NormFloat64())
			wy, wz := append([]float32(nil), y...), append([]float32(nil), z...)
			axpyDiffGeneric(wy, wz, a, b, c)
			AxpyDiff(y, z, a, b, c)
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(wy[i]) || math.Float32bits(z[i]) != math.Float32bits(wz[i]) {
					t.Fatalf("n=%d off=%d i=%d: y %v z %v, want %v %v", n, off, i, y[i], z[i], wy[i], wz[i])
				}
			}
		}
	}
}

func TestGemmSmallAgainstGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{32, 64, 96, 5, 40} {
		for _, m := range []int{0, 1, 2, 3, 7} {
			for _, k := range []int{0, 1, 2, 17, 64, 70} {
				for _, acc := range []bool{false, true} {
					a, b := randVec(rng, m*k, 1), randVec(rng, k*n, 3)
					out := randVec(rng, m*n, 2)
					want, scale := naiveGemm(out, a, b, m, k, n, acc)
					GemmSmall(out, a, b, m, k, n, acc)
					for i := range out {
						if !near(out[i], float32(want[i]), scale[i], k+1) {
							t.Fatalf("GemmSmall %d×%d·%d acc=%v [%d]: %v, want %v", m, k, n, acc, i, out[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestAdamVecAgainstScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	c := AdamCoeffs{Beta1: 0.9, Beta2: 0.999, WeightDecay: 5e-4, StepSize: 0.01 / (1 - 0.9*0.9), SqrtBC2: float32(math.Sqrt(1 - 0.999*0.999)), Eps: 1e-8}
	for n := 0; n <= 70; n++ {
		w, g, m, v := randVec(rng, n, 1), randVec(rng, n, 2), randVec(rng, n, 3), randVec(rng, n, 0)
		for i := range v {
			v[i] *= v[i]
		}
		w2, g2, m2, v2 := append([]float32(nil), w...), append([]float32(nil), g...), append([]float32(nil), m...), append([]float32(nil), v...)
		AdamUpdate(w, g, m, v, c)
		adamScalar(w2, g2, m2, v2, c)
		for i := range w {
			if g[i] != 0 || !near(w[i], w2[i], math.Abs(float64(w2[i]))+1, 8) || !near(m[i], m2[i], math.Abs(float64(m2[i])), 4) || !near(v[i], v2[i], math.Abs(float64(v2[i])), 4) {
				t.Fatalf("AdamUpdate n=%d [%d]: w %v/%v m %v/%v v %v/%v g %v", n, i, w[i], w2[i], m[i], m2[i], v[i], v2[i], g[i])
			}
		}
	}
}

// TestSpMMAgainstGo checks SpMM at every width 1..70 (the narrow, the
// 32-column and the axpy paths) and with empty rows, against float64.
func TestSpMMAgainstGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 70, 96} {
		sp := randSparse(rng, 37, 23, 0.8, 5)
		csr := DenseToCSR(sp)
		x := randDense(rng, 23, n)
		for _, acc := range []bool{false, true} {
			got := randDense(rng, 37, n)
			init := got.Clone()
			SpMM(got, csr, x, acc)
			want := naiveMul(sp, x)
			if acc {
				for i := range want.Data {
					want.Data[i] += init.Data[i]
				}
			}
			assertClose(t, fmt.Sprintf("SpMM n=%d acc=%v", n, acc), got, want)
		}
		// Narrow products (≤ 8 output columns) of every inner length.
		for k := 0; k <= 9; k++ {
			a, b := randDense(rng, 5, k), randDense(rng, k, min(n, 8))
			got := NewDense(5, b.Cols)
			MatMul(got, a, b, false)
			assertClose(t, fmt.Sprintf("MatMul k=%d", k), got, naiveMul(a, b))
		}
	}
}

// FuzzVecKernels checks Dot, SqDist, Axpy and GemmSmall (the build's vector
// kernels) against float64 references on inputs decoded from the fuzzer's
// bytes: any length, any offset, values bounded so that sums stay finite.
func FuzzVecKernels(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, uint8(1), float32(0.5))
	f.Add(make([]byte, 300), uint8(3), float32(-2))
	f.Fuzz(func(t *testing.T, raw []byte, off uint8, alpha float32) {
		if math.IsNaN(float64(alpha)) || math.Abs(float64(alpha)) > 1e6 {
			return
		}
		vals := make([]float32, len(raw))
		for i, b := range raw {
			vals[i] = float32(int8(b)) / 16
		}
		o := int(off % 4)
		if len(vals) < o {
			return
		}
		vals = vals[o:]
		n := len(vals) / 2
		x, y := vals[:n], vals[n:2*n]
		var dot, dabs, sq float64
		for i := range x {
			p := float64(x[i]) * float64(y[i])
			dot, dabs = dot+p, dabs+math.Abs(p)
			d := float64(x[i]) - float64(y[i])
			sq += d * d
		}
		if got := Dot(x, y); !near(got, float32(dot), dabs, n) {
			t.Fatalf("Dot n=%d: %v, want %v", n, got, dot)
		}
		if got := SqDist(x, y); !near(got, float32(sq), sq, n) {
			t.Fatalf("SqDist n=%d: %v, want %v", n, got, sq)
		}
		yy := append([]float32(nil), y...)
		Axpy(yy, x, alpha)
		for i := range yy {
			w := float64(y[i]) + float64(alpha)*float64(x[i])
			if !near(yy[i], float32(w), math.Abs(float64(y[i]))+math.Abs(float64(alpha)*float64(x[i])), 1) {
				t.Fatalf("Axpy n=%d [%d]: %v, want %v", n, i, yy[i], w)
			}
		}
		// A 2×(n/64)·(n/64)×32 product from the same values.
		k := n / 64
		if k > 0 {
			a, b := x[:2*k], y[:32*k]
			out := make([]float32, 64)
			want, scale := naiveGemm(out, a, b, 2, k, 32, false)
			GemmSmall(out, a, b, 2, k, 32, false)
			for i := range out {
				if !near(out[i], float32(want[i]), scale[i], k+1) {
					t.Fatalf("GemmSmall k=%d [%d]: %v, want %v", k, i, out[i], want[i])
				}
			}
		}
	})
}

// TestSpMMWideSameBitsAsAxpy checks that SpMM at widths above the narrow
// kernel that are not a multiple of 32 (the output layer of arXiv's 40,
// Products' 47 and cora's 70 classes) gives exactly the bits of one axpy
// per entry, the loop it replaced: results of every model stay as they were.
func TestSpMMWideSameBitsAsAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{17, 24, 33, 40, 47, 63, 70, 100, 129} {
		sp := randSparse(rng, 41, 29, 0.7, 3)
		csr := DenseToCSR(sp)
		x := randDense(rng, 29, n)
		for _, acc := range []bool{false, true} {
			got := randDense(rng, 41, n)
			want := got.Clone()
			SpMM(got, csr, x, acc)
			for i := range csr.Rows {
				out := want.Data[i*n : (i+1)*n]
				if !acc {
					clear(out)
				}
				for k := csr.Indptr[i]; k < csr.Indptr[i+1]; k++ {
					c := int(csr.Indices[k])
					axpy(out, x.Data[c*n:(c+1)*n], csr.Values[k])
				}
			}
			for i := range got.Data {
				if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
					t.Fatalf("n=%d acc=%v [%d]: %v, axpy loop %v", n, acc, i, got.Data[i], want.Data[i])
				}
			}
		}
	}
}

// TestMatMulBTSameBitsAsDot checks that MatMulBT gives exactly the bits of
// one dot per element (the loop its four-at-a-time kernel replaced) for
// inner lengths around the vector path's multiples of 16 and any number of
// b's rows.
func TestMatMulBTSameBitsAsDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, k := range []int{16, 17, 31, 32, 40, 47, 64, 70, 129} {
		for _, m := range []int{1, 3, 4, 5, 8, 11, 64} {
			a, b := randDense(rng, 13, k), randDense(rng, m, k)
			for _, acc := range []bool{false, true} {
				got := randDense(rng, 13, m)
				want := got.Clone()
				MatMulBT(got, a, b, acc)
				for i := range a.Rows {
					for j := range m {
						s := dot(a.Row(i), b.Row(j))
						if acc {
							want.Data[i*m+j] += s
						} else {
							want.Data[i*m+j] = s
						}
					}
				}
				for i := range got.Data {
					if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
						t.Fatalf("k=%d m=%d acc=%v [%d]: %v, dot loop %v", k, m, acc, i, got.Data[i], want.Data[i])
					}
				}
			}
		}
	}
}
