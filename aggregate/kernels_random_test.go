package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// randSlice returns n normal values off elements into a fresh slice (so
// that off > 0 leaves the data unaligned).
func randSlice(rng *rand.Rand, n, off int) []float32 {
	s := make([]float32, n+off)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s[off:]
}

// TestKernelsRandom checks weightedSum, pairCoefRow and gemm (the build's
// vector kernels) against plain Go at every output length 0..70, unaligned
// offsets and inner lengths 0, 1 and 64.
func TestKernelsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(70, 71))
	for n := 0; n <= 70; n++ {
		off := n % 4
		for _, m := range []int{0, 1, 5, 64} {
			ldx := n + (n % 3)
			x, c := randSlice(rng, m*ldx+n, off), randSlice(rng, m, 3-off)
			o := randSlice(rng, n, (off+1)%4)
			weightedSum(o, x, ldx, c)
			for j := range n {
				var want, abs float64
				for i := range m {
					want += float64(c[i]) * float64(x[i*ldx+j])
					abs += math.Abs(float64(c[i]) * float64(x[i*ldx+j]))
				}
				if math.Abs(float64(o[j])-want) > 1e-6*abs+1e-7 {
					t.Fatalf("weightedSum n=%d m=%d: o[%d] = %v, want %v", n, m, j, o[j], want)
				}
			}
		}
		dist, w, g := randSlice(rng, n, off), randSlice(rng, n, 1), randSlice(rng, n, 2)
		for j := range dist {
			if j%6 == 0 {
				dist[j] = 0
			} else {
				dist[j] *= dist[j]
			}
		}
		got, want := make([]float32, n), make([]float32, n)
		ga, wa := float32(rng.NormFloat64()), float32(rng.NormFloat64())
		pairCoefRow(got, dist, w, g, ga, wa)
		tensor.PairCoef(want, dist, w, g, ga, wa)
		for j := range got {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				t.Fatalf("pairCoefRow n=%d [%d]: %v, want %v", n, j, got[j], want[j])
			}
		}
	}
	for _, m := range []int{4, 8, 3} {
		for _, k := range []int{0, 1, 5, 64} {
			for _, n := range []int{32, 64, 96, 33} {
				a, b := randSlice(rng, m*k, 1), randSlice(rng, k*n, 2)
				got, want := randSlice(rng, m*n, 3), make([]float32, m*n)
				gemm(got, a, b, m, k, n)
				tensor.GemmSmall(want, a, b, m, k, n, false)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("gemm %d×%d·%d [%d]: %v, want %v", m, k, n, i, got[i], want[i])
					}
				}
			}
		}
	}
}
