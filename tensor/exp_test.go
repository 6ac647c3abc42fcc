package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpVecSameBitsAsMathExp checks ExpVec against math.Exp bit for bit:
// random arguments over the whole range (and around each threshold where
// math.Exp changes path: overflow, the smallest normal result, underflow),
// special values, every length 0..37 and in place.
func TestExpVecSameBitsAsMathExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	var xs []float64
	for range 20000 {
		switch rng.IntN(5) {
		case 0:
			xs = append(xs, rng.NormFloat64())
		case 1:
			xs = append(xs, (rng.Float64()-0.5)*1500)
		case 2:
			xs = append(xs, -rng.ExpFloat64()*30)
		case 3: // near the thresholds of math.Exp's paths
			edges := []float64{7.09782712893384e+02, -708.3964185322641, -707.7, -745.1332191019412, 0}
			xs = append(xs, edges[rng.IntN(len(edges))]+(rng.Float64()-0.5)*1e-3)
		default:
			xs = append(xs, math.Float64frombits(rng.Uint64()))
		}
	}
	xs = append(xs, math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), 7.09782712893384e+02,
		math.SmallestNonzeroFloat64, -math.MaxFloat64, math.MaxFloat64, -1022*math.Ln2, 1023*math.Ln2)
	for n := 0; n <= 37; n++ {
		for off := 0; off+n <= len(xs); off += 97 {
			x := xs[off : off+n]
			dst := make([]float64, n)
			ExpVec(dst, x)
			in := append([]float64(nil), x...)
			ExpVec(in, in)
			for i, v := range x {
				want := math.Float64bits(math.Exp(v))
				if math.Float64bits(dst[i]) != want || math.Float64bits(in[i]) != want {
					t.Fatalf("exp(%v) (bits %#x): got %v / in place %v, want %v", v, math.Float64bits(v), dst[i], in[i], math.Exp(v))
				}
			}
		}
	}
	all := make([]float64, len(xs))
	ExpVec(all, xs)
	for i, v := range xs {
		if math.Float64bits(all[i]) != math.Float64bits(math.Exp(v)) {
			t.Fatalf("exp(%v): got %v, want %v", v, all[i], math.Exp(v))
		}
	}
}

func BenchmarkExpVec(b *testing.B) {
	x := make([]float64, 64)
	for i := range x {
		x[i] = -float64(i) * 0.37
	}
	dst := make([]float64, 64)
	b.Run("vec", func(b *testing.B) {
		for b.Loop() {
			ExpVec(dst, x)
		}
	})
	b.Run("math", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Exp(v)
			}
		}
	})
}
