package tensor

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// SymLowRank is the symmetric n×n matrix M = U·diag(Lambda)·Uᵀ + diag(Diag)
// kept in low-rank form (SVD GCN's normalised graph D_r(L + I)D_r with
// U = D_r·V, Diag = D_r²): O(n·Rank) memory instead of n² entries.
type SymLowRank struct {
	N, Rank int
	// U is N×Rank row-major: U[i*Rank+t].
	U      []float64
	Lambda []float64 // Rank
	Diag   []float64 // N
}

// Validate checks the lengths of the operator's arrays.
func (m *SymLowRank) Validate() error {
	switch {
	case m == nil:
		return errors.New("low-rank operator: nil")
	case m.N < 1 || m.Rank < 1:
		return fmt.Errorf("low-rank operator: %d×%d of rank %d", m.N, m.N, m.Rank)
	case len(m.U) != m.N*m.Rank || len(m.Lambda) != m.Rank || len(m.Diag) != m.N:
		return fmt.Errorf("low-rank operator: %d×%d of rank %d with %d, %d and %d values (want %d, %d and %d)",
			m.N, m.N, m.Rank, len(m.U), len(m.Lambda), len(m.Diag), m.N*m.Rank, m.Rank, m.N)
	}
	return nil
}

// At returns entry (i, j) of M, computed in float64.
func (m *SymLowRank) At(i, j int) float64 {
	ui, uj := m.U[i*m.Rank:(i+1)*m.Rank], m.U[j*m.Rank:(j+1)*m.Rank]
	var s float64
	for t, l := range m.Lambda {
		s += l * ui[t] * uj[t]
	}
	if i == j {
		s += m.Diag[i]
	}
	return s
}

// lowRankChunk is the smallest row chunk of the reduction Uᵀ·X, and
// lowRankMaxChunks the most chunks: the chunking is a function of n only,
// so the partial sums, added in chunk order, give the same bits for any
// GOMAXPROCS.
const (
	lowRankChunk     = 256
	lowRankMaxChunks = 64
)

// lowRankChunks returns the fixed row chunk size and the number of chunks
// for n rows.
func lowRankChunks(n int) (size, count int) {
	size = max(lowRankChunk, (n+lowRankMaxChunks-1)/lowRankMaxChunks)
	return size, (n + size - 1) / size
}

// lowRankScratch recycles Mul's float64 buffers (a certificate multiplies
// ~10⁴ sampled graphs).
var lowRankScratch sync.Pool

// Mul computes dst = M·x (or dst += M·x when acc) for the n×d float32 x:
// with x in float64 (columns padded to a multiple of 4 with zeros),
// T = Λ·(Uᵀ·x) (r×d), then element (i, j) of the result is
// float32(fma(Diag_i, x_ij, (U·T)_ij)) (acc: added to dst_ij in float64
// first). Both products are Gemm64/GemmT64 (fused multiply-adds, one chain
// per element in a fixed order). Uᵀ·x sums over the rows in fixed chunks
// (lowRankChunks), each into its own partial, added in chunk order; U·T is
// parallel over rows. So the bits do not depend on GOMAXPROCS (nor on the
// build), and the cost is 2·n·r·d multiply-adds instead of the dense n²·d,
// with O(n·d + r·d) scratch.
func (m *SymLowRank) Mul(dst, x *Dense, acc bool) {
	n, r, d := m.N, m.Rank, x.Cols
	if x.Rows != n || dst.Rows != n || dst.Cols != d || len(m.U) != n*r || len(m.Lambda) != r || len(m.Diag) != n {
		panic(fmt.Sprintf("tensor.SymLowRank.Mul: %d×%d operator of rank %d · %s into %s", n, n, r, x.Shape(), dst.Shape()))
	}
	if d == 0 {
		return
	}
	dp := (d + 3) &^ 3
	size, count := lowRankChunks(n)
	need := n*dp + (count+1)*r*dp
	var buf []float64
	if p, ok := lowRankScratch.Get().(*[]float64); ok && cap(*p) >= need {
		buf = (*p)[:need]
	} else {
		buf = make([]float64, need)
	}
	x64, parts, t := buf[:n*dp], buf[n*dp:n*dp+count*r*dp], buf[n*dp+count*r*dp:]
	ParallelChunks(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := x64[i*dp : (i+1)*dp]
			for j, v := range x.Data[i*d : (i+1)*d] {
				row[j] = float64(v)
			}
			clear(row[d:])
		}
	})
	ParallelChunks(count, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			i0, i1 := c*size, min((c+1)*size, n)
			GemmT64(parts[c*r*dp:(c+1)*r*dp], dp, m.U[i0*r:], r, x64[i0*dp:], dp, i1-i0, r, dp)
		}
	})
	copy(t, parts[:r*dp])
	for c := 1; c < count; c++ {
		p := parts[c*r*dp : (c+1)*r*dp]
		for k := range t {
			t[k] += p[k]
		}
	}
	for k, l := range m.Lambda {
		row := t[k*dp : (k+1)*dp]
		for j := range row {
			row[j] *= l
		}
	}
	y64 := x64 // x64 is not read again
	ParallelChunks(n, 64, func(lo, hi int) {
		Gemm64(y64[lo*dp:], dp, m.U[lo*r:], r, t, dp, hi-lo, r, dp)
		for i := lo; i < hi; i++ {
			g := m.Diag[i]
			yi, xi, oi := y64[i*dp:i*dp+d], x.Data[i*d:(i+1)*d], dst.Data[i*d:(i+1)*d]
			if acc {
				for j, y := range yi {
					oi[j] = float32(float64(oi[j]) + math.FMA(g, float64(xi[j]), y))
				}
			} else {
				for j, y := range yi {
					oi[j] = float32(math.FMA(g, float64(xi[j]), y))
				}
			}
		}
	})
	lowRankScratch.Put(&buf)
}
