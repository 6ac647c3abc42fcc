package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSymEig compares the Ritz eigensolver with gonum's EigenSym on random
// symmetric matrices (repeated eigenvalues included): the same values and
// eigenvectors A·z = λ·z, orthonormal.
func TestSymEig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 151))
	for _, k := range []int{1, 2, 3, 5, 8, 40, 151} {
		for _, repeated := range []bool{false, true} {
			ld := k + 2
			h := make([]float64, k*ld)
			s := mat.NewSymDense(k, nil)
			for i := 0; i < k; i++ {
				for j := i; j < k; j++ {
					v := rng.NormFloat64()
					if repeated { // block diagonal with identical 2×2 blocks and a zero row
						v = 0
						if i/2 == j/2 && j < k-1 {
							v = []float64{2, 1, 2}[i%2+j%2]
						}
					}
					h[i*ld+j] = v
					s.SetSym(i, j, v)
				}
			}
			vals, zt, ok := symEig(h, ld, k)
			if !ok {
				t.Fatalf("k %d: no convergence", k)
			}
			var es mat.EigenSym
			if !es.Factorize(s, false) {
				t.Fatal("gonum failed")
			}
			want := es.Values(nil)
			got := slices.Clone(vals)
			slices.Sort(got)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
					t.Fatalf("k %d repeated %v: λ %v, want %v", k, repeated, got, want)
				}
			}
			for e := 0; e < k; e++ {
				z := zt[e*k : (e+1)*k]
				for i := 0; i < k; i++ {
					var az float64
					for j := 0; j < k; j++ {
						az += s.At(i, j) * z[j]
					}
					if math.Abs(az-vals[e]*z[i]) > 1e-12*float64(k) {
						t.Fatalf("k %d: residual of pair %d at %d: %g", k, e, i, az-vals[e]*z[i])
					}
				}
				for f := e; f < k; f++ {
					var d float64
					for i := 0; i < k; i++ {
						d += z[i] * zt[f*k+i]
					}
					if want := float64(boolInt(e == f)); math.Abs(d-want) > 1e-13*float64(k) {
						t.Fatalf("k %d: z_%d·z_%d = %g", k, e, f, d)
					}
				}
			}
		}
	}
}

// TestSymEigNaN: a NaN projected matrix is reported, not looped on.
func TestSymEigNaN(t *testing.T) {
	h := []float64{1, math.NaN(), 0, 2}
	if _, _, ok := symEig(h, 2, 2); ok {
		t.Fatal("NaN matrix: ok")
	}
}
