package aggregate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkWeightedSelect is one dimension of one 64-neighbour row.
func BenchmarkWeightedSelect(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 64
	var sets [][]uint64
	w := make([]float32, n)
	var total float64
	for i := range w {
		w[i] = float32(rng.Float64())
		total += float64(w[i])
	}
	for range 256 {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = uint64(orderedBits(float32(rng.NormFloat64())))<<32 | uint64(i)
		}
		sets = append(sets, keys)
	}
	buf := make([]uint64, n)
	i := 0
	for b.Loop() {
		copy(buf, sets[i&255])
		weightedSelectM(buf, w, total/2, true)
		i++
	}
	_ = slices.Max(buf)
}
