package aggregate

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// aggregateDigest hashes the bits of every aggregation's forward output and
// backward gradients on a small random graph with neighbourhoods of 16–70
// entries (the Gram path, whole and partial 32-blocks) at d = 64 and d = 7.
func aggregateDigest(t *testing.T) uint64 {
	rng := rand.New(rand.NewPCG(17, 2026))
	h := fnv.New64a()
	put := func(v []float32) {
		var b [4]byte
		for _, f := range v {
			u := math.Float32bits(f)
			b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
			h.Write(b[:])
		}
	}
	n := 120
	var es []tensor.Entry
	for i := 0; i < n; i++ {
		deg := 16 + rng.IntN(55)
		if i%4 == 0 {
			deg = 64
		}
		seen := map[int]bool{i: true}
		es = append(es, tensor.Entry{Row: int32(i), Col: int32(i), Val: 0.3})
		for len(seen) < deg {
			j := rng.IntN(n)
			if !seen[j] {
				seen[j] = true
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(rng.Float64())})
			}
		}
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{64, 7} {
		x, g := randX(rng, n, d), randX(rng, n, d)
		for _, name := range Names() {
			agg, err := New(name, Options{K: 64, Temperature: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			out := tensor.NewDense(n, d)
			gx := tensor.NewDense(n, d)
			gv := make([]float32, a.Nnz())
			agg.Backward(forwardForBackward(agg, a, x, out), g, gx, gv)
			put(out.Data)
			put(gx.Data)
			put(gv)
		}
	}
	return h.Sum64()
}

// simdAggregateDigest is aggregateDigest in the GOEXPERIMENT=simd build on
// a CPU with AVX-512 and without (GODEBUG=cpu.avx512f=off): the 16-lane
// kernels' tails round differently from the 8-lane ones in the last bits.
var simdAggregateDigest = map[bool]uint64{true: 0x150e1b1d316d6a6c, false: 0xc467c39895c4376}

// TestAggregateBitsMatchSIMDBuild checks that the aggregations of this build
// give the GOEXPERIMENT=simd build's bits where both have vector kernels
// (the default build's assembly repeats their operations in their order).
func TestAggregateBitsMatchSIMDBuild(t *testing.T) {
	if !strings.HasPrefix(tensor.SIMD, "AVX2+FMA") {
		t.Skipf("no AVX2+FMA kernels in this build (%s)", tensor.SIMD)
	}
	if got, want := aggregateDigest(t), simdAggregateDigest[useAVX512]; got != want {
		t.Fatalf("aggregate digest %#x, want %#x (%s, AVX-512 %v)", got, want, tensor.SIMD, useAVX512)
	}
}
