//go:build amd64 && !purego && !goexperiment.simd

package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/internal/cputime"
)

// TestGemm6MatchesGemm2: the six-row AVX2 kernel gives the two-row
// kernel's bits (GemmSmall with and without acc, GemmLd) at every m
// (tails of 0–5 rows), k 1…70 and n 32, 64, 96, with zeros, subnormals,
// infinities and NaN among the inputs.
func TestGemm6MatchesGemm2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(38, 6))
	val := func() float32 {
		switch rng.IntN(40) {
		case 0:
			return 0
		case 1:
			return 1e-41
		case 2:
			return float32(math.Inf(1 - 2*rng.IntN(2)))
		case 3:
			return float32(math.NaN())
		}
		return float32(rng.NormFloat64())
	}
	fill := func(n int, special bool) []float32 {
		v := make([]float32, n)
		for i := range v {
			if special {
				v[i] = val()
			} else {
				v[i] = float32(rng.NormFloat64())
			}
		}
		return v
	}
	defer func() { useGemm6 = true }()
	for _, n := range []int{32, 64, 96} {
		for _, m := range []int{1, 2, 5, 6, 7, 11, 12, 13, 17, 64, 65} {
			for _, k := range []int{1, 2, 3, 7, 16, 33, 65, 70} {
				special := (m+k)%3 == 0
				a, b := fill(m*k, special), fill(k*n, special)
				init := fill(m*n, special)
				ldc := n + 8
				run := func(six bool) (small, acc, ld []float32) {
					useGemm6 = six
					small = make([]float32, m*n)
					GemmSmall(small, a, b, m, k, n, false)
					acc = append([]float32(nil), init...)
					GemmSmall(acc, a, b, m, k, n, true)
					ld = make([]float32, m*ldc)
					for i := range ld {
						ld[i] = -7
					}
					if !GemmLd(ld, ldc, a, b, m, k, n) {
						t.Fatalf("GemmLd %d×%d×%d: no vector path", m, k, n)
					}
					return
				}
				s2, a2, l2 := run(false)
				s6, a6, l6 := run(true)
				for name, p := range map[string][2][]float32{"GemmSmall": {s2, s6}, "GemmSmall acc": {a2, a6}, "GemmLd": {l2, l6}} {
					for i := range p[0] {
						if math.Float32bits(p[0][i]) != math.Float32bits(p[1][i]) {
							t.Fatalf("%s m %d k %d n %d: entry %d = %v (six rows), %v (two rows)", name, m, k, n, i, p[1][i], p[0][i])
						}
					}
				}
			}
		}
	}
}

// BenchmarkGemmSmallRows compares the six-row and two-row AVX2 kernels on
// the Soft Medoid backward's product (64×65 · 65×64).
func BenchmarkGemmSmallRows(b *testing.B) {
	if !useAVX2 {
		b.Skip("no AVX2")
	}
	m, k, n := 64, 65, 64
	a, x, out := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range x {
		x[i] = float32(i%5) - 2
	}
	defer func() { useGemm6 = true }()
	for _, six := range []bool{false, true} {
		b.Run(fmt.Sprint("six=", six), func(b *testing.B) {
			useGemm6 = six
			c0, _ := cputime.Process()
			for b.Loop() {
				GemmSmall(out, a, x, m, k, n, false)
			}
			if c1, ok := cputime.Process(); ok {
				b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// TestGemmLd6MatchesGemmSmall: GemmLd6 on a block of a larger product (a,
// b and out strided) gives the bits GemmSmall gives for the whole product.
func TestGemmLd6MatchesGemmSmall(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(38, 7))
	for _, k := range []int{1, 5, 64, 67} {
		for _, m := range []int{6, 7, 11, 12, 16, 17, 32} {
			for _, n := range []int{16, 32, 48} {
				const M, N = 40, 64
				lda := k + 3
				A, B := make([]float32, M*lda), make([]float32, k*N)
				for i := range A {
					A[i] = float32(rng.NormFloat64())
				}
				for i := range B {
					B[i] = float32(rng.NormFloat64())
				}
				if k > 2 {
					A[2], B[1] = 0, float32(math.Inf(-1))
				}
				// The whole product of the contiguous a (M×k) and b.
				a := make([]float32, M*k)
				for i := range M {
					copy(a[i*k:(i+1)*k], A[i*lda:i*lda+k])
				}
				want := make([]float32, M*N)
				GemmSmall(want, a, B, M, k, N, false)
				r0, c0, ldc := 3, 16, N+5
				out := make([]float32, (r0+m)*ldc)
				if !GemmLd6(out[r0*ldc:], ldc, A[r0*lda:], lda, B[c0:], N, m, k, n) {
					t.Fatalf("m %d k %d n %d: no kernel", m, k, n)
				}
				for i := range m {
					for j := range n {
						g, w := out[(r0+i)*ldc+j], want[(r0+i)*N+c0+j]
						if math.Float32bits(g) != math.Float32bits(w) {
							t.Fatalf("m %d k %d n %d: (%d,%d) = %v, GemmSmall %v", m, k, n, i, j, g, w)
						}
					}
				}
			}
		}
	}
	if GemmLd6(make([]float32, 5*32), 32, make([]float32, 5*4), 4, make([]float32, 4*32), 32, 5, 4, 32) {
		t.Fatal("GemmLd6 took m = 5")
	}
}
