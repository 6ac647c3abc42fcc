package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestGemm checks the aggregations' small matrix product against
// tensor.GemmSmall: bitwise where the vector kernels apply (n a multiple of
// 32), since each element is the same chain of operations over k.
func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, s := range [][3]int{{32, 64, 32}, {64, 64, 64}, {4, 7, 32}, {8, 3, 96}, {5, 9, 32}, {6, 4, 10}} {
		m, k, n := s[0], s[1], s[2]
		a, b := make([]float32, m*k), make([]float32, k*n)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		got, want := make([]float32, m*n), make([]float32, m*n)
		for i := range got {
			got[i] = 99 // gemm overwrites
		}
		gemm(got, a, b, m, k, n)
		tensor.GemmSmall(want, a, b, m, k, n, false)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%d×%d·%d×%d: element %d = %v, want %v", m, k, k, n, i, got[i], want[i])
			}
		}
	}
}

// TestGemmStrided checks the strided product (straight into a wider matrix)
// against tensor.GemmSmall, bitwise.
func TestGemmStrided(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var ws workspace
	for _, s := range [][4]int{{32, 64, 32, 32}, {32, 64, 32, 18}, {20, 64, 32, 32}, {7, 5, 32, 9}} {
		m, k, n, cols := s[0], s[1], s[2], s[3]
		a, b := make([]float32, m*k), make([]float32, k*n)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		const ldc = 70
		out := make([]float32, m*ldc)
		for i := range out {
			out[i] = 99
		}
		gemmStrided(out, ldc, a, b, m, k, n, cols, &ws)
		want := make([]float32, m*n)
		tensor.GemmSmall(want, a, b, m, k, n, false)
		for i := 0; i < m; i++ {
			for j := 0; j < ldc; j++ {
				w := float32(99)
				if j < cols {
					w = want[i*n+j]
				}
				if out[i*ldc+j] != w {
					t.Fatalf("%v: (%d,%d) = %v, want %v", s, i, j, out[i*ldc+j], w)
				}
			}
		}
	}
}

// TestTransposeTiles checks the 16×16 and the 8×8 tile transposes (where
// the build and the CPU have them) against the definition, with strides
// wider than the tile.
func TestTransposeTiles(t *testing.T) {
	for _, tile := range []struct {
		n  int
		fn func(dst []float32, ldd int, src []float32, lds int) bool
	}{{16, transpose16}, {8, transpose8}} {
		n := tile.n
		lds, ldd := n+4, n+21
		src := make([]float32, n*lds)
		for i := range src {
			src[i] = float32(i)
		}
		dst := make([]float32, n*ldd)
		if !tile.fn(dst, ldd, src, lds) {
			t.Logf("no %d×%d vector transpose in this build or CPU", n, n)
			continue
		}
		for i := range n {
			for j := range ldd {
				want := float32(0)
				if j < n {
					want = src[j*lds+i]
				}
				if dst[i*ldd+j] != want {
					t.Fatalf("%d×%d: dst[%d][%d] = %v, want %v", n, n, i, j, dst[i*ldd+j], want)
				}
			}
		}
	}
}

// TestWeightedSum checks cᵀX against float64 sums.
func TestWeightedSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, s := range [][3]int{{64, 64, 64}, {7, 64, 70}, {64, 7, 7}, {33, 48, 50}, {5, 16, 16}, {3, 80, 80}} {
		m, n, ldx := s[0], s[1], s[2]
		x, c := make([]float32, m*ldx), make([]float32, m)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		for i := range c {
			c[i] = float32(rng.NormFloat64())
		}
		o := make([]float32, n)
		for i := range o {
			o[i] = 99 // overwritten
		}
		weightedSum(o, x, ldx, c)
		for j := range n {
			var want, abs float64
			for i := range m {
				want += float64(c[i]) * float64(x[i*ldx+j])
				abs += math.Abs(float64(c[i]) * float64(x[i*ldx+j]))
			}
			if math.Abs(float64(o[j])-want) > 1e-6*abs+1e-7 {
				t.Fatalf("%v: o[%d] = %v, want %v", s, j, o[j], want)
			}
		}
	}
}

// TestGemmDiag checks the diagonal Gram block without its lower-left tile
// against tensor.GemmSmall, bitwise, and that the tile is left alone.
func TestGemmDiag(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, k := range []int{64, 7, 16} {
		a := make([]float32, 32*k)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		b := make([]float32, k*32)
		for i := range 32 {
			for t := range k {
				b[t*32+i] = a[i*k+t]
			}
		}
		const ldc = 40
		out := make([]float32, 32*ldc)
		for i := range out {
			out[i] = 99
		}
		if !gemmDiag(out, ldc, a, b, k) {
			t.Skip("no AVX-512 or AVX2 kernel in this build or CPU")
		}
		want := make([]float32, 32*32)
		tensor.GemmSmall(want, a, b, 32, k, 32, false)
		for i := range 32 {
			for j := range ldc {
				w := want[min(i*32+j, len(want)-1)]
				if j >= 32 || (i >= 16 && j < 16) {
					w = 99
				}
				if math.Float32bits(out[i*ldc+j]) != math.Float32bits(w) {
					t.Fatalf("k=%d: (%d,%d) = %v, want %v", k, i, j, out[i*ldc+j], w)
				}
			}
		}
	}
}
