package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randVec64(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// TestGemm64MatchesPortable: the vector paths of Gemm64 and GemmT64 (the
// assembly or archsimd tiles of this build) give the portable kernels' bits
// on every tile tail (rows and k not multiples of 8, 4), with strides
// larger than the widths.
func TestGemm64MatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 1))
	for _, rows := range []int{1, 3, 7, 8, 9, 17, 64} {
		for _, k := range []int{1, 2, 4, 5, 8, 12, 13, 50, 151} {
			for _, w := range []int{1, 3, 4, 8, 12, 52, 66} {
				lda, ldb, ldo := k+3, w+1, w+2
				a, b := randVec64(rng, rows*lda), randVec64(rng, k*ldb)
				got, want := randVec64(rng, rows*ldo), make([]float64, rows*ldo)
				copy(want, got)
				Gemm64(got, ldo, a, lda, b, ldb, rows, k, w)
				gemm64Generic(want, ldo, a, lda, b, ldb, rows, k, w)
				if !slices.Equal(bits64(got), bits64(want)) {
					t.Fatalf("Gemm64 rows %d k %d w %d: differs from the portable kernel", rows, k, w)
				}
				// GemmT64: c (k×w) = aᵀ·x with a rows×k, x rows×w.
				ldx, ldc := w+1, w+3
				x := randVec64(rng, rows*ldx)
				gc, wc := randVec64(rng, k*ldc), make([]float64, k*ldc)
				copy(wc, gc)
				GemmT64(gc, ldc, a, lda, x, ldx, rows, k, w)
				gemmT64Generic(wc, ldc, a, lda, x, ldx, rows, k, w)
				if !slices.Equal(bits64(gc), bits64(wc)) {
					t.Fatalf("GemmT64 rows %d k %d w %d: differs from the portable kernel", rows, k, w)
				}
				// and the values are the products
				for s := 0; s < k; s++ {
					for j := 0; j < w; j++ {
						var ref float64
						for i := 0; i < rows; i++ {
							ref += a[i*lda+s] * x[i*ldx+j]
						}
						if math.Abs(gc[s*ldc+j]-ref) > 1e-12*float64(rows)*(1+math.Abs(ref)) {
							t.Fatalf("GemmT64 (%d, %d) = %g, want %g", s, j, gc[s*ldc+j], ref)
						}
					}
				}
			}
		}
	}
}

func bits64(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, f := range v {
		out[i] = math.Float64bits(f)
	}
	return out
}

// TestRot64MatchesPortable: the vector rotation gives the portable bits for
// every tail length, including s = ±0.
func TestRot64MatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 64))
	for n := 0; n <= 19; n++ {
		for _, cs := range [][2]float64{{0.6, 0.8}, {1, 0}, {1, math.Copysign(0, -1)}, {-0.28, 0.96}} {
			x, y := randVec64(rng, n), randVec64(rng, n)
			if n > 2 {
				x[1], y[2] = 0, 0
			}
			gx, gy := slices.Clone(x), slices.Clone(y)
			Rot64(gx, gy, cs[0], cs[1])
			rot64Generic(x, y, cs[0], cs[1])
			if !slices.Equal(bits64(gx), bits64(x)) || !slices.Equal(bits64(gy), bits64(y)) {
				t.Fatalf("n %d (c, s) = %v: differs from the portable kernel", n, cs)
			}
		}
	}
}
