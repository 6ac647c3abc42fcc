//go:build amd64 && !purego && !goexperiment.simd

package aggregate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// bitsEqual fails unless got and want hold the same float32 bits.
func bitsEqual(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestSoftGradKernels checks the AVX2 row kernels of softgrad_amd64.go
// against the package tensor calls they replace, bit for bit, at every
// row count and several widths, strides and inner lengths.
func TestSoftGradKernels(t *testing.T) {
	if !useFMA {
		t.Skip("no AVX2+FMA, or AVX-512 (the kernels do not run)")
	}
	rng := rand.New(rand.NewPCG(38, 3))
	// gemmSubRows: GemmSmall into a buffer, then one Axpy(−1) per row, in
	// row order (rows may repeat).
	for _, n := range []int{32, 64, 96} {
		for _, k := range []int{1, 7, 65} {
			for m := 0; m <= 20; m++ {
				lda := k + m%3
				a, b := randSlice(rng, m*lda+k, m%2), randSlice(rng, k*n, 1)
				xRows := 9
				rows := make([]int32, m)
				for i := range rows {
					rows[i] = int32(rng.IntN(xRows))
				}
				g := randSlice(rng, xRows*n, 0)
				want := slices.Clone(g)
				done := gemmSubRows(g, rows, a, lda, b, m, k, n)
				if m >= 6 && done != m-m%6+(map[bool]int{true: 4}[m%6 >= 4]) {
					t.Fatalf("gemmSubRows m=%d: %d rows done", m, done)
				}
				tmp := make([]float32, n)
				ai := make([]float32, k)
				for i := 0; i < m; i++ {
					copy(ai, a[i*lda:i*lda+k])
					tensor.GemmSmall(tmp, ai, b, 1, k, n, false)
					if i >= done {
						tensor.Axpy(g[int(rows[i])*n:(int(rows[i])+1)*n], tmp, -1)
					}
					tensor.Axpy(want[int(rows[i])*n:(int(rows[i])+1)*n], tmp, -1)
				}
				bitsEqual(t, "gemmSubRows", g, want)
			}
		}
	}
	// gemmLd64: GemmSmall's bits in a strided block.
	for _, n := range []int{16, 32, 48, 64} {
		for _, k := range []int{1, 5, 64} {
			for m := 4; m <= 40; m++ {
				lda, ldb, ldc := k+1, n+16, n+8
				a, b := randSlice(rng, m*lda, 0), randSlice(rng, k*ldb, 0)
				out := randSlice(rng, m*ldc, 0)
				if !gemmLd64(out, ldc, a, lda, b, ldb, m, k, n) {
					t.Fatalf("gemmLd64 m=%d k=%d n=%d did not apply", m, k, n)
				}
				ac, bc := make([]float32, m*k), make([]float32, k*n)
				for i := range m {
					copy(ac[i*k:], a[i*lda:i*lda+k])
				}
				for i := range k {
					copy(bc[i*n:], b[i*ldb:i*ldb+n])
				}
				want := make([]float32, m*n)
				if n%32 == 0 { // GemmSmall's vector kernels
					tensor.GemmSmall(want, ac, bc, m, k, n, false)
					for i := range m {
						bitsEqual(t, "gemmLd64", out[i*ldc:i*ldc+n], want[i*n:(i+1)*n])
					}
				}
				if m >= 6 && tensor.GemmLd6(want, n, a, lda, b, ldb, m, k, n) {
					for i := range m {
						bitsEqual(t, "gemmLd64 (GemmLd6)", out[i*ldc:i*ldc+n], want[i*n:(i+1)*n])
					}
				}
			}
		}
	}
	for _, n := range []int{8, 16, 24, 48, 64} {
		for m := 1; m <= 9; m++ {
			ldx := n + m%2*8
			x, y := randSlice(rng, m*ldx, 1), randSlice(rng, n, 2)
			// dotRows: tensor.Dot per row.
			if n%16 == 0 {
				got := make([]float32, m)
				if !dotRows(got, x, ldx, y) {
					t.Fatalf("dotRows n=%d did not apply", n)
				}
				for i := range m {
					bitsEqual(t, "dotRows", got[i:i+1], []float32{tensor.Dot(y, x[i*ldx:i*ldx+n])})
				}
			}
			// rowSums8: PairCoef's sum, whose terms are here the row (dist
			// 1, w = the row, g = 0, ga = 1: each term w·1 + 0·wa, exact).
			got := make([]float32, m)
			if !rowSums8(got, x, ldx, n) {
				t.Fatalf("rowSums8 n=%d did not apply", n)
			}
			one, zero, dst := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range one {
				one[i] = 1
			}
			for i := range m {
				s := tensor.PairCoef(dst, one, x[i*ldx:i*ldx+n], zero, 1, 0)
				bitsEqual(t, "rowSums8", got[i:i+1], []float32{s})
			}
		}
	}
	for _, nk := range []int{8, 16, 24, 64} {
		// pairCoefUpper: tensor.PairCoef's values from column i&^7.
		ld := nk + 1
		dist := randSlice(rng, nk*nk, 0)
		for i := range dist {
			if i%7 == 0 {
				dist[i] = 0
			} else {
				dist[i] *= dist[i]
			}
		}
		w, gc := randSlice(rng, nk, 1), randSlice(rng, nk, 2)
		cm := randSlice(rng, nk*ld, 0)
		if !pairCoefUpper(cm, ld, dist, w, gc) {
			t.Fatalf("pairCoefUpper nk=%d did not apply", nk)
		}
		for i := range nk {
			i8 := i &^ 7
			want := make([]float32, nk-i8)
			tensor.PairCoef(want, dist[i*nk+i8:(i+1)*nk], w[i8:], gc[i8:], gc[i], w[i])
			bitsEqual(t, "pairCoefUpper", cm[i*ld+i8:i*ld+nk], want)
		}
		// gramToDistUpper: tensor.GramToDist from column i&^7, diagonal 0.
		g := randSlice(rng, nk*nk, 0)
		nrm := randSlice(rng, nk, 0)
		for i := range nrm {
			nrm[i] = nrm[i]*nrm[i] + 1
		}
		want := slices.Clone(g)
		if !gramToDistUpper(g, nk, nrm) {
			t.Fatalf("gramToDistUpper nk=%d did not apply", nk)
		}
		for i := range nk {
			i8 := i &^ 7
			tensor.GramToDist(want[i*nk+i8:(i+1)*nk], nrm[i8:], nrm[i])
			want[i*nk+i] = 0
			bitsEqual(t, "gramToDistUpper", g[i*nk+i8:(i+1)*nk], want[i*nk+i8:(i+1)*nk])
		}
		// transposeTiles8 and mirrorUpper8.
		src := randSlice(rng, nk*41, 0)
		dst := make([]float32, 40*(nk+3))
		if !transposeTiles8(dst, nk+3, src, 41, nk, 40) {
			t.Fatalf("transposeTiles8 nk=%d did not apply", nk)
		}
		for i := range nk {
			for j := range 40 {
				if dst[j*(nk+3)+i] != src[i*41+j] {
					t.Fatalf("transposeTiles8 nk=%d [%d][%d]", nk, i, j)
				}
			}
		}
		src = randSlice(rng, nk*ld, 0)
		mirrorUpper8(src, ld, nk)
		for i := range nk {
			for j := (i&^7 + 8); j < nk; j++ {
				if src[j*ld+i] != src[i*ld+j] {
					t.Fatalf("mirrorUpper8 nk=%d [%d][%d]", nk, i, j)
				}
			}
		}
	}
	// copyStream and gatherRowsAVX2Vec: copies.
	for n := 0; n < 300; n += 7 {
		for off := range 8 {
			src := randSlice(rng, n, 0)
			dst := make([]float32, n+off)
			if copyStream(dst[off:], src) != (n >= 64) {
				t.Fatalf("copyStream n=%d applied where it should not, or not where it should", n)
			}
			if n >= 64 {
				bitsEqual(t, "copyStream", dst[off:], src)
			}
		}
	}
	for _, d := range []int{1, 3, 7, 8, 13, 16, 40, 64, 72} {
		x := tensor.NewDense(50, d)
		copy(x.Data, randSlice(rng, 50*d, 0))
		rows := []int32{3, 40, 0, 3, 17, 49}  // x's last row last: the 8-float blocks stay inside x
		got := make([]float32, len(rows)*d+8) // room for the 8-float blocks at d < 4
		if !gatherRowsAVX2Vec(got, x, rows) {
			t.Fatalf("gatherRowsAVX2Vec d=%d did not apply", d)
		}
		for i, r := range rows {
			bitsEqual(t, "gatherRowsAVX2Vec", got[i*d:(i+1)*d], x.Row(int(r)))
		}
	}
}
