package attack

import (
	"slices"

	"github.com/rgnn/rgnn/tensor"
)

// RandomBlock draws a PR-BCD block of up to size random pairs of adj
// (stream 1 of seed), for the tests of package attack_test.
func RandomBlock(adj *tensor.CSR, seed uint64, size int) []Flip {
	b := newBlock(adj, size, bitmapMaxPairs)
	b.fill(newPairDraws(seed, 1), size)
	return b.pairs
}

// GradPairs asks e for the gradients of pairs of an n-node graph the way
// PR-BCD and GR-BCD do (pairGrader: one PairGrad, or a ScanPairs pass for
// large sets).
func GradPairs(e Engine, n int, pairs []Flip, out []float32) error {
	return newPairGrader(e, n, numPairs(n)).grad(pairs, out)
}

// WithPairLimit makes a PR-BCD or GR-BCD attack keep its block sets as
// bitmaps only up to limit pairs (1: always the hash set).
func WithPairLimit(a Attack, limit int64) Attack {
	switch x := a.(type) {
	case *PRBCD:
		x.pairLimit = limit
	case *GRBCD:
		x.pairLimit = limit
	}
	return a
}

// PairSetOps applies a sequence of operations to a pair set of np pairs
// (limit as newPairSet's) and reports has() after each: op 0 adds, 1
// removes, 2 only asks; a clone replaces the set every 97 operations.
func PairSetOps(np, limit int64, ops []int, lins []int64) []bool {
	s := newPairSet(np, 4, limit)
	out := make([]bool, len(ops))
	for i, op := range ops {
		switch op {
		case 0:
			s.add(lins[i])
		case 1:
			s.remove(lins[i])
		}
		out[i] = s.has(lins[i])
		if i%97 == 96 {
			s = s.clone(i % 3 * 1000)
		}
	}
	return out
}

// PerturbedByRows is Perturbed as rowsToCSR of adj's entries followed by
// the pairs' (the form perturbedSigned must equal bit for bit).
func PerturbedByRows(adj *tensor.CSR, pairs []Flip, p []float32, floor float32) *tensor.CSR {
	es := make([]tensor.Entry, 0, adj.Nnz()+2*len(pairs))
	for r := 0; r < adj.Rows; r++ {
		for k := adj.Indptr[r]; k < adj.Indptr[r+1]; k++ {
			es = append(es, tensor.Entry{Row: int32(r), Col: adj.Indices[k], Val: adj.Values[k]})
		}
	}
	for i, f := range pairs {
		d := p[i]
		if hasEdge(adj, int(f.U), int(f.V)) {
			d = -d
		} else if d <= floor {
			continue
		}
		es = append(es, tensor.Entry{Row: f.U, Col: f.V, Val: d}, tensor.Entry{Row: f.V, Col: f.U, Val: d})
	}
	return rowsToCSR(adj.Rows, es)
}

// rowsToCSR (the tests' reference for Perturbed) assembles an n×n CSR from in-range entries in O(entries +
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
