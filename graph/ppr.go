package graph

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rgnn/rgnn/tensor"
)

// MaxExactPPRNodes bounds the graph size of the exact PPR. The exact path
// costs O(n·nnz·iterations) time (and the dense fallback O(n²) memory and
// O(n³) time); beyond this size use the push approximation (GDCConfig.Eps > 0).
const MaxExactPPRNodes = 20000

// GDCConfig selects the personalised-PageRank graph diffusion (GDC) of the
// reference: S = α(I − (1−α)T)⁻¹ with T = D̃^{-1/2}(A+I)D̃^{-1/2}, the top-K
// entries of every row, each row divided by its sum.
type GDCConfig struct {
	// Alpha is the teleport (restart) probability, in (0, 1). Reference: 0.15.
	Alpha float64
	// K is the number of entries kept per row. K < 1 keeps all n columns,
	// like the reference's get_ppr_matrix. Reference: 64 (pubmed 32).
	K int
	// Eps selects the algorithm: 0 computes S exactly (to float64 rounding);
	// Eps > 0 runs the forward-push approximation, which stops once every
	// residual r_v < Eps·d̃_v (the at-scale repository's ppr_err).
	Eps float64
}

// DefaultK is the reference's top-k: the entries kept per row of GDC's PPR
// matrix and of PPRGo's, and the neighbours of the robust aggregations
// (package aggregate). The one copy of the default of rgnn's k.
const DefaultK = 64

// DefaultAlpha is the reference's PPR teleport probability α (GDC, PPRGo,
// APPNP).
const DefaultAlpha = 0.15

// DefaultGDCConfig is the reference's GDC setting: α = 0.15, k = 64, exact.
func DefaultGDCConfig() GDCConfig { return GDCConfig{Alpha: DefaultAlpha, K: DefaultK} }

// Validate checks the parameters.
func (c GDCConfig) Validate() error {
	if !(c.Alpha > 0 && c.Alpha < 1) {
		return fmt.Errorf("gdc: alpha %v outside (0, 1)", c.Alpha)
	}
	if !(c.Eps >= 0) || math.IsInf(c.Eps, 0) {
		return fmt.Errorf("gdc: eps %v must be finite and ≥ 0 (0 = exact)", c.Eps)
	}
	return nil
}

// GDC computes the top-k personalised-PageRank diffusion of a (square,
// finite, usually symmetric 0/1 without self loops) with the algorithm chosen
// by c.Eps. The result is an n×n CSR whose row u holds the kept entries
// S[u,·]/Σ(kept), columns sorted.
func GDC(a *tensor.CSR, c GDCConfig) (*tensor.CSR, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Eps > 0 {
		return ApproxGDC(a, c.Alpha, c.K, c.Eps)
	}
	return ExactGDC(a, c.Alpha, c.K)
}

// diffusionGraph is Â = A + I in float64 with its row sums d̃.
type diffusionGraph struct {
	n       int
	indptr  []int
	indices []int32
	vals    []float64 // Â entries (A's values, +1 on the diagonal)
	deg     []float64 // d̃ = row sums of Â
	// nonneg reports that no entry is negative (whether Â is symmetric,
	// which only the exact paths ask, is linalg.IsSymmetric's O(nnz·log) check:
	// the push does not pay for it)
	nonneg bool
}

// newDiffusionGraph validates a and builds Â = A + I (adding 1 to an
// existing self loop, like the reference's to_dense(A) + I).
func newDiffusionGraph(a *tensor.CSR) (*diffusionGraph, error) {
	if a == nil {
		return nil, errors.New("gdc: nil adjacency")
	}
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("gdc: adjacency is %d×%d, want square", a.Rows, a.Cols)
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("gdc: adjacency: %w", err)
	}
	n := a.Rows
	g := &diffusionGraph{n: n, indptr: make([]int, n+1), deg: make([]float64, n), nonneg: true}
	added := 0
	for i := 0; i < n; i++ {
		if _, ok := a.Find(i, i); !ok {
			added++
		}
	}
	g.indices = make([]int32, 0, a.Nnz()+added)
	g.vals = make([]float64, 0, a.Nnz()+added)
	for i := 0; i < n; i++ {
		placed := false
		var d float64
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			c := int(a.Indices[k])
			v := float64(a.Values[k])
			if v < 0 {
				g.nonneg = false
			}
			if !placed && c > i {
				g.indices = append(g.indices, int32(i))
				g.vals = append(g.vals, 1)
				d++
				placed = true
			}
			if c == i {
				v++
				placed = true
			}
			g.indices = append(g.indices, int32(c))
			g.vals = append(g.vals, v)
			d += v
		}
		if !placed {
			g.indices = append(g.indices, int32(i))
			g.vals = append(g.vals, 1)
			d++
		}
		g.indptr[i+1] = len(g.indices)
		if !(d > 0) {
			return nil, fmt.Errorf("gdc: row sum of A+I is %v at node %d; D̃^{-1/2} needs positive degrees", d, i)
		}
		g.deg[i] = d
	}
	return g, nil
}

// rowResults collects, per source row, at most kk (column, value) pairs and
// assembles the row-normalised CSR. Each row is written by exactly one
// goroutine.
type rowResults struct {
	n, kk int
	cols  [][]int32
	vals  [][]float64
	// dense, if set (n×n row-major), receives every full row of S in
	// float32 (ExactGDCDense).
	dense []float32
	// tol, if > 0, replaces cgTol (ExactGDCDense).
	tol float64
	// groupRows, if not 0, replaces cgGroupRows (< 0: the whole graph in
	// one solve; the tests compare both).
	groupRows int
}

func newRowResults(n, kk int) *rowResults {
	return &rowResults{n: n, kk: kk, cols: make([][]int32, n), vals: make([][]float64, n)}
}

// set stores the selected entries (sorted by column) of row u.
func (r *rowResults) set(u int, sel []candidate) {
	cols, vals := make([]int32, len(sel)), make([]float64, len(sel))
	for i, c := range sel {
		cols[i], vals[i] = c.col, c.val
	}
	r.cols[u], r.vals[u] = cols, vals
}

// csr divides every row by its sum (a sum ≤ 0 divides by 1, as in the
// reference) and packs the rows.
func (r *rowResults) csr() *tensor.CSR {
	nnz := 0
	for _, c := range r.cols {
		nnz += len(c)
	}
	out := &tensor.CSR{Rows: r.n, Cols: r.n, Indptr: make([]int, r.n+1),
		Indices: make([]int32, 0, nnz), Values: make([]float32, 0, nnz)}
	for u := 0; u < r.n; u++ {
		var sum float64
		for _, v := range r.vals[u] {
			sum += v
		}
		if sum <= 0 {
			sum = 1
		}
		out.Indices = append(out.Indices, r.cols[u]...)
		for _, v := range r.vals[u] {
			out.Values = append(out.Values, float32(v/sum))
		}
		out.Indptr[u+1] = len(out.Indices)
	}
	return out
}

// forEachWorker starts min(GOMAXPROCS, n) goroutines that each call body
// with a shared next() handing out the sources 0..n-1 dynamically (so hubs
// do not unbalance the load). Whatever a worker computes for source u must
// depend on u alone, never on the worker or the order, which keeps the
// output deterministic for any GOMAXPROCS.
func forEachWorker(n int, body func(next func() (int, bool))) {
	forEachWorkerN(runtime.GOMAXPROCS(0), n, body)
}

// forEachWorkerN is forEachWorker with min(workers, n) goroutines.
func forEachWorkerN(workers, n int, body func(next func() (int, bool))) {
	workers = max(1, min(workers, n))
	var counter atomic.Int64
	next := func() (int, bool) {
		u := int(counter.Add(1) - 1)
		return u, u < n
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(next)
		}()
	}
	wg.Wait()
}
