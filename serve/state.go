package serve

import (
	"fmt"
	"math"
	"slices"

	"github.com/rgnn/rgnn/internal/csrrows"
	"github.com/rgnn/rgnn/tensor"
)

// graphState is one version of the served graph: immutable once built
// (every update builds the next one), so readers and background jobs hold
// it without locks.
type graphState struct {
	version uint64
	adj     *tensor.CSR // n×n, symmetric, unweighted, no self loops
	feats   *tensor.CSR // n×d
	// unit: every entry of adj is 1 (then adj.Values may be a prefix of
	// ones); unitKnown: unit was checked.
	unit, unitKnown bool
	// ones: read-only ones, at least as many as adj's entries where
	// adj.Values is a prefix of them, shared along the version chain so
	// that an update does not copy the values.
	ones []float32
}

// unitValues reports whether every entry of g's adjacency is 1 (checked
// once per version chain: build passes it on).
func (g *graphState) unitValues() bool {
	if !g.unitKnown {
		g.unit = !slices.ContainsFunc(g.adj.Values, func(v float32) bool { return v != 1 })
		g.unitKnown = true
	}
	return g.unit
}

// nodes is the number of nodes.
func (g *graphState) nodes() int { return g.adj.Rows }

// hasEdge reports whether u–v is an edge.
func hasEdge(a *tensor.CSR, u, v int32) bool {
	_, ok := slices.BinarySearch(a.Indices[a.Indptr[u]:a.Indptr[u+1]], v)
	return ok
}

// builder applies edits to a graph version: the rows it changes are kept
// aside (sorted neighbour lists) until build writes the next version's
// CSR, copying every other row.
type builder struct {
	base      *graphState
	rows      map[int32][]int32 // changed rows
	featCols  [][]int32         // appended nodes' features
	featVals  [][]float32
	nodeCount int
}

func newBuilder(g *graphState) *builder {
	return &builder{base: g, rows: map[int32][]int32{}, nodeCount: g.nodes()}
}

// row returns u's neighbours now.
func (b *builder) row(u int32) []int32 {
	if r, ok := b.rows[u]; ok {
		return r
	}
	if int(u) >= b.base.nodes() {
		return nil
	}
	a := b.base.adj
	return a.Indices[a.Indptr[u]:a.Indptr[u+1]]
}

func (b *builder) has(u, v int32) bool {
	_, ok := slices.BinarySearch(b.row(u), v)
	return ok
}

// set inserts (add) or deletes v in u's row.
func (b *builder) set(u, v int32, add bool) {
	r := slices.Clone(b.row(u))
	i, found := slices.BinarySearch(r, v)
	switch {
	case add && !found:
		r = slices.Insert(r, i, v)
	case !add && found:
		r = slices.Delete(r, i, i+1)
	}
	b.rows[u] = r
}

// editError is an edit that does not apply to the graph; field names the
// offending item of the request.
type editError struct {
	status int
	field  string
	msg    string
}

func (e *editError) Error() string { return e.msg }

// edge adds or removes the undirected edge u–v, checked against the graph
// as edited so far (field names the pair in the request).
func (b *builder) edge(u, v int32, add bool, field string) error {
	n := int32(b.nodeCount)
	for i, x := range []int32{u, v} {
		if x < 0 {
			return &editError{status: 400, field: fmt.Sprintf("%s[%d]", field, i),
				msg: fmt.Sprintf("node id %d out of range: ids are ≥ 0", x)}
		}
		if x >= n {
			return &editError{status: 404, field: fmt.Sprintf("%s[%d]", field, i),
				msg: fmt.Sprintf("unknown node %d (the graph has nodes 0..%d)", x, n-1)}
		}
	}
	if u == v {
		return &editError{status: 400, field: field, msg: fmt.Sprintf("self-loop %d–%d: the graph has no self loops", u, v)}
	}
	switch has := b.has(u, v); {
	case add && has:
		return &editError{status: 409, field: field, msg: fmt.Sprintf("edge %d–%d exists already", u, v)}
	case !add && !has:
		return &editError{status: 409, field: field, msg: fmt.Sprintf("edge %d–%d does not exist", u, v)}
	}
	b.set(u, v, add)
	b.set(v, u, add)
	return nil
}

// node appends a node with the given feature row (nonzero columns
// ascending) and returns its id.
func (b *builder) node(cols []int32, vals []float32) int32 {
	b.featCols = append(b.featCols, cols)
	b.featVals = append(b.featVals, vals)
	b.nodeCount++
	return int32(b.nodeCount - 1)
}

// changed lists the rows that differ from the base graph (ascending): the
// edited ones and the new nodes.
func (b *builder) changed() []int {
	out := make([]int, 0, len(b.rows)+b.nodeCount-b.base.nodes())
	for u := range b.rows {
		out = append(out, int(u))
	}
	for i := b.base.nodes(); i < b.nodeCount; i++ {
		if _, ok := b.rows[int32(i)]; !ok {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// build returns the next version: the base's rows copied where unchanged
// (their values shared ones when every entry is 1).
func (b *builder) build(version uint64) *graphState {
	a := b.base.adj
	unit := b.base.unitValues()
	n := b.nodeCount
	nnz := len(a.Indices)
	for u, r := range b.rows {
		if int(u) < a.Rows {
			nnz -= a.Indptr[u+1] - a.Indptr[u]
		}
		nnz += len(r)
	}
	out := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, 0, nnz)}
	if !unit {
		out.Values = make([]float32, 0, nnz)
	}
	changed := b.changed()
	next := 0 // first row not yet written
	copyRows := func(lo, hi int) {
		if unit {
			out.Indices = csrrows.AppendIndices(out.Indptr, out.Indices, a.Indptr, a.Indices, lo, hi)
			return
		}
		out.Indices, out.Values = csrrows.Append(out.Indptr, out.Indices, out.Values, a.Indptr, a.Indices, a.Values, lo, hi)
	}
	for _, u := range changed {
		copyRows(next, min(u, a.Rows))
		r := b.row(int32(u))
		out.Indices = append(out.Indices, r...)
		if !unit {
			for range r {
				out.Values = append(out.Values, 1)
			}
		}
		out.Indptr[u+1] = len(out.Indices)
		next = u + 1
	}
	copyRows(next, a.Rows)
	shared := b.base.ones
	if unit {
		if m := len(out.Indices); len(shared) < m {
			shared = make([]float32, m+m/8) // slack for the next versions' edges
			for i := range shared {
				shared[i] = 1
			}
		}
		out.Values = shared[:len(out.Indices):len(out.Indices)] // capacity: an append copies
	}
	feats := b.base.feats
	if len(b.featCols) > 0 {
		f := b.base.feats
		nf := &tensor.CSR{Rows: n, Cols: f.Cols, Indptr: make([]int, n+1)}
		nf.Indices = slices.Clone(f.Indices)
		nf.Values = slices.Clone(f.Values)
		copy(nf.Indptr, f.Indptr)
		for i := range b.featCols {
			nf.Indices = append(nf.Indices, b.featCols[i]...)
			nf.Values = append(nf.Values, b.featVals[i]...)
			nf.Indptr[f.Rows+i+1] = len(nf.Indices)
		}
		feats = nf
	}
	return &graphState{version: version, adj: out, feats: feats, unit: unit, unitKnown: true, ones: shared}
}

// featureRow turns a dense feature vector of a request into its nonzero
// columns and values (field names it in errors).
func featureRow(x []float64, d int, binary bool, field string) ([]int32, []float32, error) {
	if len(x) != d {
		return nil, nil, &editError{status: 400, field: field, msg: fmt.Sprintf("%d features, want %d", len(x), d)}
	}
	var cols []int32
	var vals []float32
	for j, v := range x {
		f := float32(v)
		if math.IsNaN(v) || math.IsInf(float64(f), 0) {
			return nil, nil, &editError{status: 400, field: fmt.Sprintf("%s[%d]", field, j), msg: fmt.Sprintf("feature %v is not a finite float32", v)}
		}
		if binary && v != 0 && v != 1 {
			return nil, nil, &editError{status: 400, field: fmt.Sprintf("%s[%d]", field, j),
				msg: fmt.Sprintf("feature %v: the served features are binary (--binary-attr), want 0 or 1", v)}
		}
		if f != 0 {
			cols = append(cols, int32(j))
			vals = append(vals, f)
		}
	}
	return cols, vals, nil
}

// applyRecord replays a logged update onto b (it was checked when it was
// accepted; a record that does not apply means the log does not belong to
// this graph).
func (b *builder) applyRecord(rec Record) error {
	for i := range rec.Cols {
		if len(rec.Cols[i]) != len(rec.Vals[i]) {
			return fmt.Errorf("version %d: feature row %d has %d columns and %d values", rec.Version, i, len(rec.Cols[i]), len(rec.Vals[i]))
		}
		for _, c := range rec.Cols[i] {
			if c < 0 || int(c) >= b.base.feats.Cols {
				return fmt.Errorf("version %d: feature column %d outside [0, %d)", rec.Version, c, b.base.feats.Cols)
			}
		}
		b.node(rec.Cols[i], rec.Vals[i])
	}
	for _, e := range rec.Remove {
		if err := b.edge(e[0], e[1], false, "remove"); err != nil {
			return fmt.Errorf("version %d: %w", rec.Version, err)
		}
	}
	for _, e := range rec.Add {
		if err := b.edge(e[0], e[1], true, "add"); err != nil {
			return fmt.Errorf("version %d: %w", rec.Version, err)
		}
	}
	return nil
}
