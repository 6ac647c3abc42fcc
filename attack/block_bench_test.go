package attack

import (
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// BenchmarkBlockResample is one PR-BCD resampling of a cora_ml-sized block
// (2,810 nodes, 7,981 random edges, 1e6 draws; 30% of the weights above
// the floor, as after a projection): drop, compact, draw, fill.
func BenchmarkBlockResample(b *testing.B) {
	const n = 2810
	rng := rand.New(rand.NewPCG(5, 6))
	var es []tensor.Entry
	for range 7981 {
		u, v := rng.IntN(n), rng.IntN(n)
		if u != v {
			es = append(es, tensor.Entry{Row: int32(u), Col: int32(v), Val: 1}, tensor.Entry{Row: int32(v), Col: int32(u), Val: 1})
		}
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		b.Fatal(err)
	}
	blk := newBlock(adj, 1_000_000, bitmapMaxPairs)
	d := newPairDraws(0, 1)
	blk.draw(d, 1_000_000, 798)
	for b.Loop() {
		b.StopTimer()
		for i := range blk.p {
			blk.p[i] = pEps
			if rng.Float64() < 0.3 {
				blk.p[i] = float32(rng.Float64() * 0.05)
			}
		}
		b.StartTimer()
		blk.resample(d, 1_000_000, 798)
	}
}
