package attack

import (
	"math"
	"testing"
)

// pairDraws gives the numbers of math/rand/v2's Int64N over the same PCG,
// for bounds of every kind (powers of two, small, near 2⁶³, cora_ml's and
// arXiv's pair counts).
func TestPairDrawsSameAsRand(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 7, 1 << 20, 3_946_645, numPairs(169_343), 1<<62 + 12345, math.MaxInt64} {
		d, r := newPairDraws(9, 1), newRNG(9, 1)
		for i := range 100_000 {
			if got, want := d.Int64N(n), r.Int64N(n); got != want {
				t.Fatalf("n %d draw %d: %d, math/rand/v2 gives %d", n, i, got, want)
			}
		}
	}
}
