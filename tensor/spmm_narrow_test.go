package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSpMMNarrowAccumulates checks the narrow-column path (≤ 16 columns)
// against the dense product, overwriting and accumulating.
func TestSpMMNarrowAccumulates(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 7, 8, 12, 16} {
		sp := randSparse(rng, 90, 40, 0.85, -1)
		csr := DenseToCSR(sp)
		x := randDense(rng, 40, n)
		init := randDense(rng, 90, n)
		got := init.Clone()
		SpMM(got, csr, x, true)
		want := naiveMul(sp, x)
		for i := range want.Data {
			want.Data[i] += init.Data[i]
		}
		assertClose(t, "SpMM acc", got, want)
		SpMM(got, csr, x, false)
		assertClose(t, "SpMM", got, naiveMul(sp, x))
	}
}

// BenchmarkSpMMFeatures is X·W of a cora_ml-like bag-of-words matrix
// (2810×2879, 50 nonzeros per row) with W of 64 columns (the hidden layer)
// and 7 (the last layer's width).
func BenchmarkSpMMFeatures(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, f := 2810, 2879
	var es []Entry
	for i := 0; i < n; i++ {
		for j := 0; j < 50; j++ {
			es = append(es, Entry{Row: int32(i), Col: int32(rng.IntN(f)), Val: 1})
		}
	}
	a, _ := FromCOO(n, f, es)
	for _, d := range []int{64, 7} {
		x := randDense(rng, f, d)
		out := NewDense(n, d)
		b.Run(fmt.Sprint(d), func(b *testing.B) {
			for b.Loop() {
				SpMM(out, a, x, false)
			}
		})
	}
}

// TestMatMulNarrow checks products with at most 8 output columns (the
// vector path of the SIMD build) against the naive product.
func TestMatMulNarrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, s := range [][3]int{{50, 64, 7}, {33, 5, 8}, {10, 3, 1}, {1, 70, 3}} {
		m, k, n := s[0], s[1], s[2]
		a, b := randDense(rng, m, k), randDense(rng, k, n)
		got := NewDense(m, n)
		MatMul(got, a, b, false)
		assertClose(t, "MatMul", got, naiveMul(a, b))
		init := randDense(rng, m, n)
		acc := init.Clone()
		MatMul(acc, a, b, true)
		want := naiveMul(a, b)
		for i := range want.Data {
			want.Data[i] += init.Data[i]
		}
		assertClose(t, "MatMul acc", acc, want)
	}
}
