package attack

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rgnn/rgnn/tensor"
)

// numPairs is n(n−1)/2, the number of undirected pairs without self loops.
func numPairs(n int) int64 { return int64(n) * int64(n-1) / 2 }

// linearToPair maps a linear index of the strict upper triangle (row-major)
// to its pair (the reference's linear_to_triu_idx, with integer fix-ups).
func linearToPair(n int, lin int64) Flip {
	nn := int64(n)
	// row u has n−1−u entries; offset(u) = u·n − u(u+1)/2 − u... solve for u.
	u := nn - 2 - int64(math.Floor(math.Sqrt(float64(-8*lin+4*nn*(nn-1)-7))/2-0.5))
	off := func(u int64) int64 { return u * (2*nn - u - 1) / 2 }
	for u > 0 && off(u) > lin {
		u--
	}
	for u < nn-2 && off(u+1) <= lin {
		u++
	}
	v := lin - off(u) + u + 1
	return Flip{int32(u), int32(v)}
}

// pairToLinear is the inverse of linearToPair.
func pairToLinear(n int, f Flip) int64 {
	u, nn := int64(f.U), int64(n)
	return u*(2*nn-u-1)/2 + int64(f.V) - u - 1
}

// newRNG is the attacks' random source for a seed and a stream.
func newRNG(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0xa77ac4^stream))
}

// Perturbed returns the weighted adjacency of adj with every pair's weight
// moved by p: an edge gets 1 − p, a non-edge p. Non-edges with p ≤ floor are
// left out of the structure (floor < 0 keeps them all).
func Perturbed(adj *tensor.CSR, pairs []Flip, p []float32, floor float32) (*tensor.CSR, error) {
	return perturbedSigned(adj, pairs, p, nil, floor)
}

// perturbedSigned is Perturbed with the pairs' edgeSign precomputed (nil:
// looked up).
func perturbedSigned(adj *tensor.CSR, pairs []Flip, p, sign []float32, floor float32) (*tensor.CSR, error) {
	es := make([]tensor.Entry, 0, adj.Nnz()+2*len(pairs))
	for r := 0; r < adj.Rows; r++ {
		for k := adj.Indptr[r]; k < adj.Indptr[r+1]; k++ {
			es = append(es, tensor.Entry{Row: int32(r), Col: adj.Indices[k], Val: adj.Values[k]})
		}
	}
	for i, f := range pairs {
		d := p[i]
		isEdge := false
		if sign != nil {
			isEdge = sign[i] < 0
		} else {
			isEdge = hasEdge(adj, int(f.U), int(f.V))
		}
		if isEdge {
			d = -d
		} else if d <= floor {
			continue
		}
		es = append(es, tensor.Entry{Row: f.U, Col: f.V, Val: d}, tensor.Entry{Row: f.V, Col: f.U, Val: d})
	}
	return rowsToCSR(adj.Rows, es), nil
}

// edgeSign returns +1 for non-edges and −1 for edges: ∂w/∂p of a pair.
func edgeSign(adj *tensor.CSR, f Flip) float32 {
	if hasEdge(adj, int(f.U), int(f.V)) {
		return -1
	}
	return 1
}

// rowsToCSR assembles an n×n CSR from in-range entries in O(entries +
// Σ row sort): a counting sort by row, then each row sorted by column;
// duplicates are summed (as tensor.FromCOO, which sorts everything at once).
func rowsToCSR(n int, es []tensor.Entry) *tensor.CSR {
	start := make([]int, n+1)
	for _, e := range es {
		start[e.Row+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	cols := make([]int32, len(es))
	vals := make([]float32, len(es))
	fill := append([]int(nil), start[:n]...)
	for _, e := range es {
		k := fill[e.Row]
		cols[k], vals[k] = e.Col, e.Val
		fill[e.Row]++
	}
	out := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: cols[:0], Values: vals[:0]}
	type cv struct {
		c int32
		v float32
	}
	var row []cv
	w := 0
	for i := 0; i < n; i++ {
		row = row[:0]
		for k := start[i]; k < start[i+1]; k++ {
			row = append(row, cv{cols[k], vals[k]})
		}
		slices.SortStableFunc(row, func(a, b cv) int { return int(a.c) - int(b.c) })
		for j := 0; j < len(row); {
			c, v := row[j].c, float64(row[j].v)
			j++
			for j < len(row) && row[j].c == c {
				v += float64(row[j].v)
				j++
			}
			cols[w], vals[w] = c, float32(v)
			w++
		}
		out.Indptr[i+1] = w
	}
	out.Indices, out.Values = cols[:w], vals[:w]
	return out
}
