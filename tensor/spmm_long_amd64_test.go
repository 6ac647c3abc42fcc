//go:build amd64 && !purego && !goexperiment.simd

package tensor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSpMMLongRowsSameBits: the tiled kernel for long rows gives the bits
// of the row-by-row kernel (spmmRow32AVX2), for dense and sparse rows,
// sorted or not, odd and even row lengths, with and without accumulating.
func TestSpMMLongRowsSameBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		rows, xRows, n int
		density        float64
		shuffle, acc   bool
	}{
		{5, 3001, 64, 1, false, false},
		{7, 5003, 32, 0.5, false, true},
		{3, 2049, 96, 0.3, true, false},
		{4, 4100, 64, 0.9, true, true},
	} {
		x := NewDense(c.xRows, c.n)
		for i := range x.Data {
			x.Data[i] = float32(rng.NormFloat64())
		}
		a := &CSR{Rows: c.rows, Cols: c.xRows, Indptr: make([]int, c.rows+1)}
		for i := range c.rows {
			var row []int32
			for j := range c.xRows {
				if rng.Float64() < c.density {
					row = append(row, int32(j))
				}
			}
			if len(row)%2 == 0 { // some rows odd, some even
				row = row[:len(row)-i%2]
			}
			if c.shuffle {
				rng.Shuffle(len(row), func(p, q int) { row[p], row[q] = row[q], row[p] })
			}
			for _, j := range row {
				a.Indices = append(a.Indices, j)
				a.Values = append(a.Values, float32(rng.NormFloat64()))
			}
			a.Indptr[i+1] = len(a.Indices)
		}
		init := make([]float32, c.rows*c.n)
		for i := range init {
			init[i] = float32(rng.NormFloat64())
		}
		want, got := NewDense(c.rows, c.n), NewDense(c.rows, c.n)
		copy(want.Data, init)
		copy(got.Data, init)
		for i := range c.rows {
			k0, k1 := a.Indptr[i], a.Indptr[i+1]
			spmmRow32AVX2(&want.Data[i*c.n], &x.Data[0], &a.Values[k0], &a.Indices[k0], k1-k0, c.n, c.acc)
		}
		spmmLongRows(got, a, x, c.acc, 0, c.rows)
		if !slices.Equal(got.Data, want.Data) {
			t.Errorf("%+v: the tiled kernel's bits differ", c)
		}
	}
}
