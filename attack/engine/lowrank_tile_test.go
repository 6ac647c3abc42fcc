package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTileAgainstGeneric checks the build's 4×16 tile (assembly or archsimd
// where the CPU has AVX2/FMA) against the portable one at every inner
// length 1..70, from unaligned offsets: the same products summed over d in
// order, fused or not, so within a few roundings of Σ|terms|.
func TestTileAgainstGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for r2 := 1; r2 <= 70; r2++ {
		off := r2 % 4
		k := make([]float32, tileRows*r2+off)[off:]
		panel := make([]float32, r2*tileCols+off+1)[off+1:]
		for i := range k {
			k[i] = float32(rng.NormFloat64())
		}
		for i := range panel {
			panel[i] = float32(rng.NormFloat64())
		}
		var got, want [tileRows * tileCols]float32
		tile(&got, k, panel, r2)
		tileGeneric(&want, k, panel, r2)
		for i := range tileRows {
			for j := range tileCols {
				var abs float64
				for d := range r2 {
					abs += math.Abs(float64(k[i*r2+d]) * float64(panel[d*tileCols+j]))
				}
				if d := math.Abs(float64(got[i*tileCols+j] - want[i*tileCols+j])); d > 4*float64(r2+1)*abs/(1<<24) {
					t.Fatalf("r2=%d [%d][%d]: %v, want %v", r2, i, j, got[i*tileCols+j], want[i*tileCols+j])
				}
			}
		}
	}
}

// simdTileDigest is tileDigest in the GOEXPERIMENT=simd build with AVX2.
const simdTileDigest = 0x261dc32f3cb09e8d

// tileDigest hashes the bits of tiles at every inner length 1..70.
func tileDigest() uint64 {
	rng := rand.New(rand.NewPCG(5, 6))
	var h uint64 = 14695981039346656037
	for r2 := 1; r2 <= 70; r2++ {
		k, panel := make([]float32, tileRows*r2), make([]float32, r2*tileCols)
		for i := range k {
			k[i] = float32(rng.NormFloat64())
		}
		for i := range panel {
			panel[i] = float32(rng.NormFloat64())
		}
		var out [tileRows * tileCols]float32
		tile(&out, k, panel, r2)
		for _, v := range out {
			h = (h ^ uint64(math.Float32bits(v))) * 1099511628211
		}
	}
	return h
}

// TestTileBitsMatchSIMDBuild checks that the tile gives the GOEXPERIMENT=simd
// build's bits where both have the AVX2 kernel.
func TestTileBitsMatchSIMDBuild(t *testing.T) {
	if !tileAVX2 {
		t.Skip("no vector tile in this build or CPU")
	}
	if got := tileDigest(); got != simdTileDigest {
		t.Fatalf("tile digest %#x, want %#x", got, uint64(simdTileDigest))
	}
}
