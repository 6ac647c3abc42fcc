package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The float64 softmax steps give the scalar loops' bits at every length,
// with the special values the criterion can hold.
func TestVec64MatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 64))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat32, 1e-310}
	same := func(a, b []float64) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	for n := 1; n <= 70; n++ {
		for trial := 0; trial < 6; trial++ {
			z := make([]float64, n)
			c := make([]float32, n)
			w := make([]float32, n)
			for i := range z {
				z[i] = rng.NormFloat64() * 30
				c[i] = float32(rng.ExpFloat64())
				w[i] = float32(rng.Float64())
				if trial > 2 && rng.IntN(8) == 0 {
					v := special[rng.IntN(len(special))]
					z[i], c[i] = v, float32(v)
				}
			}
			if trial == 1 {
				for i := range z {
					z[i] = math.Copysign(0, float64(1-2*(i%2))) // all zeros, both signs
				}
			}
			got, want := make([]float64, n), make([]float64, n)
			shiftByMax(got, z)
			shiftByMaxGeneric(want, z)
			// A zero maximum's sign may differ: compare what the softmax
			// uses, the exponentials.
			for i := range got {
				got[i], want[i] = math.Exp(got[i]), math.Exp(want[i])
			}
			if !same(got, want) {
				t.Fatalf("n %d trial %d: shiftByMax %v, want %v", n, trial, got, want)
			}
			copy(got, z)
			copy(want, z)
			d := rng.Float64() + 0.5
			divBy(got, d)
			divByGeneric(want, d)
			if !same(got, want) {
				t.Fatalf("n %d: divBy %v, want %v", n, got, want)
			}
			invT := 1 / (rng.Float64() + 0.1)
			critFromSums(got, c, invT)
			critFromSumsGeneric(want, c, invT)
			if !same(got, want) {
				t.Fatalf("n %d: critFromSums %v, want %v", n, got, want)
			}
			zz := rng.Float64() + 0.01
			mulDiv(got, z, w, zz)
			mulDivGeneric(want, z, w, zz)
			if !same(got, want) {
				t.Fatalf("n %d: mulDiv %v, want %v", n, got, want)
			}
			e := make([]float64, n)
			for i := range e {
				e[i] = rng.NormFloat64()
			}
			ebar := rng.NormFloat64()
			gs, tv := make([]float64, n), make([]float64, n)
			corrGrads(gs, tv, z, e, w, zz, ebar)
			gs0, tv0 := make([]float64, n), make([]float64, n)
			corrGradsGeneric(gs0, tv0, z, e, w, zz, ebar)
			if !same(gs, gs0) || !same(tv, tv0) {
				t.Fatalf("n %d: corrGrads %v %v, want %v %v", n, gs, tv, gs0, tv0)
			}
			g32, g320 := make([]float32, n), make([]float32, n)
			softGrad(g32, z, e, ebar, invT)
			softGradGeneric(g320, z, e, ebar, invT)
			for i := range g32 {
				if math.Float32bits(g32[i]) != math.Float32bits(g320[i]) {
					t.Fatalf("n %d: softGrad %v, want %v", n, g32, g320)
				}
			}
		}
	}
}
