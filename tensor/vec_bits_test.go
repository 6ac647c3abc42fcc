package tensor

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// kernelDigest runs every vector kernel of the package on fixed random
// inputs (lengths with tails) and hashes the output bits.
func kernelDigest() uint64 {
	rng := rand.New(rand.NewPCG(2026, 11))
	h := fnv.New64a()
	put := func(v ...float32) {
		var b [4]byte
		for _, f := range v {
			u := math.Float32bits(f)
			b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
			h.Write(b[:])
		}
	}
	for _, n := range []int{7, 8, 15, 16, 17, 33, 64, 70} {
		x, y := randVec(rng, n, 1), randVec(rng, n, 2)
		put(Dot(x, y), SqDist(x, y))
		Axpy(y, x, 0.37)
		put(y...)
		nb := randVec(rng, n, 0)
		for i := range nb {
			nb[i] *= nb[i]
		}
		GramToDist(x, nb, 2.5)
		put(x...)
		dst := make([]float32, n)
		put(PairCoef(dst, nb, y, x, 0.3, -1.7))
		put(dst...)
		w, g, m, v := randVec(rng, n, 0), randVec(rng, n, 0), randVec(rng, n, 0), nb
		AdamUpdate(w, g, m, v, AdamCoeffs{Beta1: 0.9, Beta2: 0.999, WeightDecay: 5e-4, StepSize: 0.01, SqrtBC2: 0.05, Eps: 1e-8})
		put(w...)
		put(m...)
		put(v...)
	}
	for _, s := range [][3]int{{5, 64, 64}, {4, 17, 32}, {3, 70, 96}} {
		m, k, n := s[0], s[1], s[2]
		a, b := randVec(rng, m*k, 0), randVec(rng, k*n, 0)
		out := randVec(rng, m*n, 0)
		GemmSmall(out, a, b, m, k, n, true)
		put(out...)
	}
	for _, n := range []int{3, 7, 12, 16, 32, 64} {
		sp := randSparse(rng, 40, 30, 0.7, -1)
		x := randDense(rng, 30, n)
		out := randDense(rng, 40, n)
		SpMM(out, DenseToCSR(sp), x, true)
		put(out.Data...)
	}
	for _, s := range [][3]int{{50, 64, 7}, {9, 13, 8}} {
		a, b := randDense(rng, s[0], s[1]), randDense(rng, s[1], s[2])
		out := randDense(rng, s[0], s[2])
		MatMul(out, a, b, true)
		put(out.Data...)
	}
	return h.Sum64()
}

// simdDigest is kernelDigest of the GOEXPERIMENT=simd build's AVX2+FMA
// kernels (vec_simd.go).
const simdDigest = 0xdf1225d1ea78c310

// TestKernelBitsMatchSIMDBuild checks that the vector kernels of this build
// give the bits of the GOEXPERIMENT=simd build's kernels where both run
// AVX2+FMA: the assembly kernels repeat their operations in their order.
func TestKernelBitsMatchSIMDBuild(t *testing.T) {
	if !strings.HasPrefix(SIMD, "AVX2+FMA") {
		t.Skipf("no AVX2+FMA kernels in this build (%s)", SIMD)
	}
	if got := kernelDigest(); got != simdDigest {
		t.Fatalf("kernel digest %#x, want %#x (%s)", got, uint64(simdDigest), SIMD)
	}
}
