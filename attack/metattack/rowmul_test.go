package metattack

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowMul16 checks the build's 16-wide sparse row product (where it has
// one) against plain float64 sums, for 0..70 entries.
func TestRowMul16(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	w := make([]float64, 40*16)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	for n := 0; n <= 70; n++ {
		vals, idx := make([]float64, n), make([]int32, n)
		for p := range vals {
			vals[p], idx[p] = rng.NormFloat64(), int32(rng.IntN(40))
		}
		o := make([]float64, 16)
		for i := range o {
			o[i] = 99
		}
		if !rowMul16(o, vals, idx, w) {
			t.Skip("no vector kernel in this build or CPU")
		}
		for j := range 16 {
			var want, abs float64
			for p := range vals {
				want += vals[p] * w[int(idx[p])*16+j]
				abs += math.Abs(vals[p] * w[int(idx[p])*16+j])
			}
			if math.Abs(o[j]-want) > 1e-14*abs+1e-300 {
				t.Fatalf("n=%d [%d]: %v, want %v", n, j, o[j], want)
			}
		}
	}
}
