package tensor

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// CSR is a compressed-sparse-row float32 matrix. Row i holds the entries
// Indices[Indptr[i]:Indptr[i+1]] with values Values[Indptr[i]:Indptr[i+1]].
// Column indices within a row are strictly increasing (no duplicates) for
// every CSR built by this package; kernels may rely on that.
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Indices    []int32
	Values     []float32
}

// Nnz returns the number of stored entries.
func (a *CSR) Nnz() int { return len(a.Indices) }

// RowRange returns the entry range [lo, hi) of row i.
func (a *CSR) RowRange(i int) (lo, hi int) { return a.Indptr[i], a.Indptr[i+1] }

// Validate checks the structural invariants and returns an error naming the
// first violation: index bounds, monotone Indptr, sorted unique columns,
// finite values.
func (a *CSR) Validate() error {
	if a.Rows < 0 || a.Cols < 0 {
		return fmt.Errorf("csr: negative shape %d×%d", a.Rows, a.Cols)
	}
	if len(a.Indptr) != a.Rows+1 {
		return fmt.Errorf("csr: indptr has %d entries, want rows+1 = %d", len(a.Indptr), a.Rows+1)
	}
	if a.Indptr[0] != 0 || a.Indptr[a.Rows] != len(a.Indices) || len(a.Values) != len(a.Indices) {
		return fmt.Errorf("csr: indptr spans [%d, %d] but there are %d indices and %d values",
			a.Indptr[0], a.Indptr[a.Rows], len(a.Indices), len(a.Values))
	}
	for i := 0; i < a.Rows; i++ {
		lo, hi := a.Indptr[i], a.Indptr[i+1]
		if hi < lo {
			return fmt.Errorf("csr: indptr decreases at row %d", i)
		}
		for k := lo; k < hi; k++ {
			c := a.Indices[k]
			if c < 0 || int(c) >= a.Cols {
				return fmt.Errorf("csr: column %d out of range [0, %d) in row %d", c, a.Cols, i)
			}
			if k > lo && a.Indices[k-1] >= c {
				return fmt.Errorf("csr: columns not strictly increasing in row %d", i)
			}
			if v := float64(a.Values[k]); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("csr: non-finite value at (%d, %d)", i, c)
			}
		}
	}
	return nil
}

// Clone returns a deep copy.
func (a *CSR) Clone() *CSR {
	return &CSR{Rows: a.Rows, Cols: a.Cols,
		Indptr: slices.Clone(a.Indptr), Indices: slices.Clone(a.Indices), Values: slices.Clone(a.Values)}
}

// WithValues returns a CSR sharing a's structure with new values (len Nnz).
func (a *CSR) WithValues(v []float32) *CSR {
	if len(v) != len(a.Indices) {
		panic(fmt.Sprintf("tensor: %d values for a CSR with %d entries", len(v), len(a.Indices)))
	}
	return &CSR{Rows: a.Rows, Cols: a.Cols, Indptr: a.Indptr, Indices: a.Indices, Values: v}
}

// Entry is one coordinate-format entry.
type Entry struct {
	Row, Col int32
	Val      float32
}

// FromCOO assembles a rows×cols CSR from coordinate entries. Duplicate
// coordinates are summed; entries are sorted by (row, col). It returns an
// error for out-of-range coordinates.
func FromCOO(rows, cols int, entries []Entry) (*CSR, error) {
	for _, e := range entries {
		if e.Row < 0 || int(e.Row) >= rows || e.Col < 0 || int(e.Col) >= cols {
			return nil, fmt.Errorf("csr: entry (%d, %d) outside %d×%d", e.Row, e.Col, rows, cols)
		}
	}
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b Entry) int {
		if c := cmp.Compare(a.Row, b.Row); c != 0 {
			return c
		}
		return cmp.Compare(a.Col, b.Col)
	})
	m := &CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
	m.Indices = make([]int32, 0, len(es))
	m.Values = make([]float32, 0, len(es))
	for k := 0; k < len(es); {
		e := es[k]
		v := float64(e.Val)
		k++
		for k < len(es) && es[k].Row == e.Row && es[k].Col == e.Col {
			v += float64(es[k].Val)
			k++
		}
		m.Indices = append(m.Indices, e.Col)
		m.Values = append(m.Values, float32(v))
		m.Indptr[e.Row+1]++
	}
	for i := 0; i < rows; i++ {
		m.Indptr[i+1] += m.Indptr[i]
	}
	return m, nil
}

// Transpose returns aᵀ and perm, where entry k of aᵀ is entry perm[k] of a.
// perm lets gradients with respect to aᵀ's values flow back to a's values.
func (a *CSR) Transpose() (*CSR, []int) {
	t := &CSR{Rows: a.Cols, Cols: a.Rows, Indptr: make([]int, a.Cols+1),
		Indices: make([]int32, a.Nnz()), Values: make([]float32, a.Nnz())}
	perm := make([]int, a.Nnz())
	for _, c := range a.Indices {
		t.Indptr[c+1]++
	}
	for i := 0; i < a.Cols; i++ {
		t.Indptr[i+1] += t.Indptr[i]
	}
	next := slices.Clone(t.Indptr[:a.Cols])
	for i := 0; i < a.Rows; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			c := a.Indices[k]
			p := next[c]
			next[c]++
			t.Indices[p] = int32(i)
			t.Values[p] = a.Values[k]
			perm[p] = k
		}
	}
	return t, perm
}

// RowSums returns Σ_j a_ij for every row, accumulated in float64.
func (a *CSR) RowSums() []float64 {
	s := make([]float64, a.Rows)
	for i := range s {
		var acc float64
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			acc += float64(a.Values[k])
		}
		s[i] = acc
	}
	return s
}

// ColSums returns Σ_i a_ij for every column, accumulated in float64.
func (a *CSR) ColSums() []float64 {
	s := make([]float64, a.Cols)
	for k, c := range a.Indices {
		s[c] += float64(a.Values[k])
	}
	return s
}

// Find returns the entry position of (i, j) and whether it is stored.
func (a *CSR) Find(i, j int) (int, bool) {
	lo, hi := a.Indptr[i], a.Indptr[i+1]
	k, ok := slices.BinarySearch(a.Indices[lo:hi], int32(j))
	return lo + k, ok
}

// ToDense expands a into a dense matrix. Only for tests and tiny inputs.
func (a *CSR) ToDense() *Dense {
	d := NewDense(a.Rows, a.Cols)
	for i := 0; i < a.Rows; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			d.Data[i*a.Cols+int(a.Indices[k])] += a.Values[k]
		}
	}
	return d
}

// DenseToCSR keeps the nonzeros of d. Only for tests and tiny inputs.
func DenseToCSR(d *Dense) *CSR {
	m := &CSR{Rows: d.Rows, Cols: d.Cols, Indptr: make([]int, d.Rows+1)}
	for i := 0; i < d.Rows; i++ {
		for j, v := range d.Row(i) {
			if v != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Values = append(m.Values, v)
			}
		}
		m.Indptr[i+1] = len(m.Indices)
	}
	return m
}
