package tensor

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func randSymLowRank(rng *rand.Rand, n, r int) *SymLowRank {
	m := &SymLowRank{N: n, Rank: r, U: randVec64(rng, n*r), Lambda: randVec64(rng, r), Diag: randVec64(rng, n)}
	for i := range m.Diag {
		m.Diag[i] = math.Abs(m.Diag[i])
	}
	return m
}

// TestSymLowRankMul compares Mul with the float64 product of the dense
// matrix (entries from At) for shapes with tails, several row chunks and
// both modes, and checks that its bits do not depend on GOMAXPROCS.
func TestSymLowRankMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 50))
	for _, tc := range []struct{ n, r, d int }{
		{1, 1, 1}, {5, 3, 7}, {9, 2, 4}, {300, 5, 16}, {700, 50, 7}, {1100, 13, 65},
	} {
		m := randSymLowRank(rng, tc.n, tc.r)
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		x := randDense(rng, tc.n, tc.d)
		for _, acc := range []bool{false, true} {
			dst := randDense(rng, tc.n, tc.d)
			before := dst.Clone()
			m.Mul(dst, x, acc)
			for i := 0; i < tc.n; i++ {
				for j := 0; j < tc.d; j++ {
					var ref float64
					for c := 0; c < tc.n; c++ {
						ref += m.At(i, c) * float64(x.At(c, j))
					}
					if acc {
						ref += float64(before.At(i, j))
					}
					if got := float64(dst.At(i, j)); math.Abs(got-ref) > 1e-6*(1+math.Abs(ref)) {
						t.Fatalf("n %d r %d d %d acc %v: (%d, %d) = %g, want %g", tc.n, tc.r, tc.d, acc, i, j, got, ref)
					}
				}
			}
		}
	}
	m := randSymLowRank(rng, 3000, 50)
	x := randDense(rng, 3000, 64)
	var ref []float32
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, p := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(p)
		dst := NewDense(3000, 64)
		m.Mul(dst, x, false)
		if ref == nil {
			ref = dst.Data
		} else if !slices.Equal(ref, dst.Data) {
			t.Fatalf("GOMAXPROCS=%d: bits differ from GOMAXPROCS=1", p)
		}
	}
}

func TestSymLowRankValidate(t *testing.T) {
	for _, m := range []*SymLowRank{nil, {N: 0, Rank: 1}, {N: 2, Rank: 1, U: make([]float64, 2), Lambda: []float64{1}, Diag: make([]float64, 1)}} {
		if m.Validate() == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}

// BenchmarkSymLowRankMul is one propagation of SVD GCN's first layer on
// cora_ml's shape (n = 2810, rank 50, 64 columns).
func BenchmarkSymLowRankMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randSymLowRank(rng, 2810, 50)
	x := randDense(rng, 2810, 64)
	dst := NewDense(2810, 64)
	for b.Loop() {
		m.Mul(dst, x, false)
	}
}
