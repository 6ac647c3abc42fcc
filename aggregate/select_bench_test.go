package aggregate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// BenchmarkWeightedSelect is one dimension of one 64-neighbour row on the
// portable selection.
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
	partition := exactSums(w) // the quickselect (true for these weights)
	i := 0
	for b.Loop() {
		copy(buf, sets[i&255])
		weightedSelectM(buf, w, total/2, partition)
		i++
	}
	_ = slices.Max(buf)
}

// BenchmarkMedianPicks is medianPicks on one row (the build's kernel) and
// medianPicksGeneric (portable) per neighbour count nk and width d: the
// cora_ml GDC layer is nk = 64 with d = 64 (hidden) and d = 7 (output).
func BenchmarkMedianPicks(b *testing.B) {
	for _, s := range []struct{ nk, d int }{{64, 64}, {64, 7}, {33, 64}, {16, 64}, {5, 64}, {64, 17}} {
		rng := rand.New(rand.NewPCG(uint64(s.nk), uint64(s.d)))
		const n = 512
		var es []tensor.Entry
		for r := range 64 {
			for _, c := range rng.Perm(n)[:s.nk] {
				es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: float32(rng.Float64())})
			}
		}
		a, _ := tensor.FromCOO(64, n, es)
		x := randX(rng, n, s.d)
		totals := rowSums(a, nil)
		pick := make([]int32, s.d)
		for _, impl := range []struct {
			name string
			f    func(*tensor.CSR, *tensor.Dense, int, float64, []int32, *workspace)
		}{{"kernel", medianPicks}, {"portable", medianPicksGeneric}} {
			b.Run(fmt.Sprintf("nk=%d/d=%d/%s", s.nk, s.d, impl.name), func(b *testing.B) {
				var ws workspace
				r := 0
				c0 := cpuSeconds()
				for b.Loop() {
					impl.f(a, x, r, totals[r], pick, &ws)
					r = (r + 1) & 63
				}
				if c := cpuSeconds(); c > 0 && b.N > 0 {
					b.ReportMetric((c-c0)*1e9/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
