package aggregate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestDistCacheSameBits: ForwardCached gives Forward's bits on graphs whose
// weights change everywhere and whose rows' top-k columns change in a few
// rows; rows with the same columns reuse their distances, the others and a
// new x recompute them.
func TestDistCacheSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, k = 200, 16
	a := randGraph(rng, n, 30)
	x := randX(rng, n, 24)
	plain, _ := New("soft_k_medoid", Options{K: k, Temperature: 0.5})
	cached, _ := New("soft_k_medoid", Options{K: k, Temperature: 0.5})
	var c DistCache
	check := func(step string, a *tensor.CSR, x *tensor.Dense, wantHits int) {
		t.Helper()
		want, got := tensor.NewDense(n, x.Cols), tensor.NewDense(n, x.Cols)
		plain.Forward(a, x, want)
		cached.(*SoftKMedoid).ForwardCached(a, x, got, &c)
		if !slices.Equal(got.Data, want.Data) {
			t.Fatalf("%s: cached logits differ from Forward's", step)
		}
		if wantHits >= 0 && c.Hits != wantHits || c.Hits+c.Misses != n {
			t.Fatalf("%s: %d hits, %d misses", step, c.Hits, c.Misses)
		}
	}
	check("first", a, x, 0)
	check("again", a, x, n)
	// Every weight scaled a little (the order of each row kept), then a
	// few rows reordered: only those may recompute.
	b := a.Clone()
	for i := range b.Values {
		b.Values[i] *= 1.001
	}
	changed := map[int]bool{}
	for range 10 {
		r := rng.IntN(n)
		lo, hi := b.Indptr[r], b.Indptr[r+1]
		if hi-lo > k {
			changed[r] = true
			b.Values[lo] = 100 // into the top k
		}
	}
	check("reweighted", b, x, -1)
	if c.Misses > len(changed) || c.Misses == 0 {
		t.Fatalf("%d rows recomputed, %d reordered", c.Misses, len(changed))
	}
	check("new x", b, randX(rng, n, 24), 0)
}
