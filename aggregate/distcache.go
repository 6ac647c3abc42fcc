package aggregate

import (
	"slices"
	"sync/atomic"

	"github.com/rgnn/rgnn/tensor"
)

// DistCache keeps, per row, the Soft Medoid's k×k distance matrix of the
// row's selected neighbours (and which neighbours, in order) between calls
// of SoftKMedoid.ForwardCached on the same embeddings x. A row's distances
// depend on nothing but the columns it selects and their rows of x, so a
// row whose top-k columns are unchanged reuses them: the same bits as
// computing them again, without the k²·d Gram product. A server whose graph
// changes by a few edges keeps the first layer's input X·W₁ fixed while
// the gcn_norm weights of nearly every row change, but the top-k columns
// of nearly all rows stay (cora_ml, Soft Medoid GDC: 96–98 % per edit).
//
// Memory: k² float32 per row (46 MB for cora_ml at k = 64). The cache
// belongs to one x: calls with another *tensor.Dense (or another width)
// start it afresh. Not safe for concurrent use.
type DistCache struct {
	x    *tensor.Dense
	cols [][]int32
	dist [][]float32
	hits atomic.Int64
	// Hits and Misses count the rows of the last ForwardCached that
	// reused their distances and that computed them.
	Hits, Misses int
}

// Bytes is the memory the cached distances and columns take.
func (c *DistCache) Bytes() int64 {
	var b int64
	for i := range c.dist {
		b += 4*int64(cap(c.dist[i])) + 4*int64(cap(c.cols[i]))
	}
	return b
}

// prepare makes the cache one of x's with rows rows.
func (c *DistCache) prepare(x *tensor.Dense, rows int) {
	if c.x != x || c.x.Cols != x.Cols {
		c.x = x
		for i := range c.cols {
			c.cols[i] = c.cols[i][:0]
		}
	}
	for len(c.cols) < rows {
		c.cols = append(c.cols, nil)
		c.dist = append(c.dist, nil)
	}
	c.hits.Store(0)
}

// rowDist returns row r's distances for the selected entries sel of a,
// computed (and kept) unless the row selected the same columns last time;
// either way ws.xs holds the selected embeddings afterwards.
func (c *DistCache) rowDist(ws *workspace, r int, sel []int, a *tensor.CSR, x *tensor.Dense) []float32 {
	nk := len(sel)
	cols := c.cols[r]
	same := len(cols) == nk
	for i := 0; same && i < nk; i++ {
		same = cols[i] == a.Indices[sel[i]]
	}
	if same {
		c.hits.Add(1)
		ws.gather(sel, a, x)
		return c.dist[r][:nk*nk]
	}
	cols = slices.Grow(cols[:0], nk)[:nk]
	for i, p := range sel {
		cols[i] = a.Indices[p]
	}
	d := c.dist[r]
	if cap(d) < nk*nk {
		d = make([]float32, nk*nk)
	}
	d = d[:nk*nk]
	ws.distances(sel, a, x, d)
	c.cols[r], c.dist[r] = cols, d
	return d
}

// ForwardCached is Forward (the same bits) with the distances of the rows
// kept in c: a row whose top-k columns are those of the previous call on
// the same x reuses its distances.
func (m *SoftKMedoid) ForwardCached(a *tensor.CSR, x, out *tensor.Dense, c *DistCache) any {
	c.prepare(x, a.Rows)
	m.st.cache = c
	defer func() { m.st.cache = nil }()
	st := m.forward(a, x, out, false)
	nonEmpty := 0
	for r := 0; r < a.Rows; r++ {
		if a.Indptr[r+1] > a.Indptr[r] {
			nonEmpty++
		}
	}
	c.Hits = int(c.hits.Load())
	c.Misses = nonEmpty - c.Hits
	return st
}
