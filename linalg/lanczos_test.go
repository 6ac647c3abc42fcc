package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrthonormalizeBlock: CholeskyQR2 on a well-conditioned block and the
// MGS fallback on a nearly dependent one both give orthonormal columns with
// W_in = W_out·R (R upper triangular).
func TestOrthonormalizeBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n, b := 5000, 4 // two node chunks
	for _, dependent := range []bool{false, true} {
		w := make([]float64, n*b)
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		if dependent { // column 2 = column 0 + 1e-9·noise
			for i := 0; i < n; i++ {
				w[i*b+2] = w[i*b] + 1e-9*rng.NormFloat64()
			}
		}
		in := slices.Clone(w)
		red := newNodeReducer(n, b*b)
		_, chol := cholQR2(slices.Clone(w), b, n, red, make([]float64, n*b))
		if chol == dependent {
			t.Fatalf("dependent %v: CholeskyQR2 accepted %v", dependent, chol)
		}
		r := orthonormalizeBlock(w, b, nil, 0, 0, n, rand.New(rand.NewPCG(1, 1)), red, make([]float64, n*b))
		for p := 0; p < b; p++ {
			for l := 0; l < b; l++ {
				var d, rec float64
				for i := 0; i < n; i++ {
					d += w[i*b+p] * w[i*b+l]
				}
				if want := float64(boolInt(p == l)); math.Abs(d-want) > 1e-12 {
					t.Fatalf("dependent %v: w_%d·w_%d = %g", dependent, p, l, d)
				}
				if l < p && r[p*b+l] != 0 {
					t.Fatalf("R not upper triangular: %v", r)
				}
				for i := 0; i < n; i += 97 {
					rec = 0
					for s := 0; s < b; s++ {
						rec += w[i*b+s] * r[s*b+l]
					}
					if math.Abs(rec-in[i*b+l]) > 1e-10 && !(dependent && l == 2) {
						t.Fatalf("dependent %v: (W·R)[%d,%d] = %g, want %g", dependent, i, l, rec, in[i*b+l])
					}
				}
			}
		}
	}
}
