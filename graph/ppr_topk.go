package graph

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/rgnn/rgnn/tensor"
)

// TopKPPR is ApproxGDC for a set of nodes with memory O(n + len(nodes)·k):
// row i of the result (len(nodes) × n) holds the top-k of the personalised
// PageRank diffusion S[nodes[i],·] of GDC — S = α(I − (1−α)T)⁻¹,
// T = D̃^{-1/2}(A+I)D̃^{-1/2} — divided by its sum, computed by forward push
// to the residual bound eps (see ApproxGDC for the error bound and the
// ranking). nodes == nil means every node in order; the result is then
// bit-identical to ApproxGDC(adj, alpha, k, eps), and a row of a node set is
// bit-identical to that node's row of all nodes (each source's result
// depends only on the source). Rows can hold fewer than k entries (only
// nodes the push reached are candidates).
//
// The pushes run on workers goroutines (≤ 0: GOMAXPROCS), each with its
// own O(n) push state that is reset only where a push touched it; the
// selected entries are written straight into the result's arrays
// (len(nodes)·k slots), so nothing of size n² or n·k·(per-row overhead) is
// built. adj must be square, finite and nonnegative (it may be directed);
// nodes must be distinct and in [0, n); k must be ≥ 1 (k > n keeps all n).
func TopKPPR(adj *tensor.CSR, nodes []int, alpha, eps float64, k, workers int) (*tensor.CSR, error) {
	return TopKPPRProgress(adj, nodes, alpha, eps, k, workers, nil)
}

// TopKPPRProgress is TopKPPR reporting its progress: progress, if not nil,
// is called with the rows done and the rows to do about twice a second
// and once at the end, one call at a time (from a reporting goroutine, so
// it needs no locking but must not block). The result is the same bits as
// TopKPPR's.
func TopKPPRProgress(adj *tensor.CSR, nodes []int, alpha, eps float64, k, workers int, progress func(done, total int)) (*tensor.CSR, error) {
	pi, _, err := topKPPR(adj, nodes, alpha, eps, k, workers, progress, false)
	return pi, err
}

// TopKPPRScaled is TopKPPRProgress that also returns each row's divisor:
// sums[i] is the sum of the selected values S[u,·] (ranked as GDC ranks them,
// up to the factor √d̃_u that the normalisation cancels: the push estimate
// of the walk PPR π_u[v] divided by √d̃_v) that row i was divided by, 1 where
// that sum was not positive. So π_u[v] ≈ pi[i, v]·sums[i]·√d̃_v on the kept
// columns: WalkRows turns the pair back into the clean walk-PPR rows that
// the local update (LocalPPR) needs, without storing a second n·k matrix.
// pi is the same bits as TopKPPR's.
func TopKPPRScaled(adj *tensor.CSR, nodes []int, alpha, eps float64, k, workers int, progress func(done, total int)) (pi *tensor.CSR, sums []float64, err error) {
	return topKPPR(adj, nodes, alpha, eps, k, workers, progress, true)
}

func topKPPR(adj *tensor.CSR, nodes []int, alpha, eps float64, k, workers int, progress func(done, total int),
	withSums bool) (*tensor.CSR, []float64, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, nil, fmt.Errorf("top-k ppr: alpha %v outside (0, 1)", alpha)
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, nil, fmt.Errorf("top-k ppr: eps %v must be positive and finite", eps)
	}
	if k < 1 {
		return nil, nil, fmt.Errorf("top-k ppr: k must be ≥ 1, got %d", k)
	}
	if adj == nil {
		return nil, nil, errors.New("top-k ppr: nil adjacency")
	}
	n := adj.Rows
	// pos[v] is v's row in the result (−1: not requested).
	var pos []int32
	var want []bool
	rows := n
	if nodes != nil {
		if adj.Rows != adj.Cols {
			return nil, nil, fmt.Errorf("top-k ppr: adjacency is %d×%d, want square", adj.Rows, adj.Cols)
		}
		rows = len(nodes)
		pos = make([]int32, n)
		want = make([]bool, n)
		for v := range pos {
			pos[v] = -1
		}
		for i, v := range nodes {
			switch {
			case v < 0 || v >= n:
				return nil, nil, fmt.Errorf("top-k ppr: node %d (position %d) outside [0, %d)", v, i, n)
			case pos[v] >= 0:
				return nil, nil, fmt.Errorf("top-k ppr: node %d listed twice (positions %d and %d)", v, pos[v], i)
			}
			pos[v], want[v] = int32(i), true
		}
	}
	if nodes != nil && len(nodes) <= nodePushMax {
		return topKPPRNodes(adj, nodes, alpha, eps, k, progress, withSums)
	}
	g, err := newDiffusionGraph(adj)
	if err != nil {
		return nil, nil, fmt.Errorf("top-k ppr: %w", err)
	}
	if !g.nonneg {
		return nil, nil, errors.New("top-k ppr: push needs nonnegative edge weights")
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	kk := min(k, n)
	run := newPushRun(g, alpha, eps) // Â in float64 (g) is dead from here
	out := &topKRows{kk: kk, count: make([]int32, rows),
		cols: make([]int32, rows*kk), vals: make([]float32, rows*kk)}
	if withSums {
		out.sums = make([]float64, rows)
	}
	var done atomic.Int64
	stop := reportEvery(500*time.Millisecond, func() {
		if progress != nil {
			progress(int(done.Load()), rows)
		}
	})
	pushTopK(run, want, kk, workers, func(v int, sel []candidate) {
		if pos != nil {
			v = int(pos[v])
		}
		out.set(v, sel)
		done.Add(1)
	})
	stop()
	return out.csr(n), out.sums, nil
}

// topKPPRNodes is topKPPR for a few nodes (at most nodePushMax): the same
// validation of adj and the same rows, each pushed by nodePush on adj
// itself, one after the other.
func topKPPRNodes(adj *tensor.CSR, nodes []int, alpha, eps float64, k int, progress func(done, total int),
	withSums bool) (*tensor.CSR, []float64, error) {
	if err := adj.Validate(); err != nil {
		return nil, nil, fmt.Errorf("top-k ppr: gdc: adjacency: %w", err)
	}
	for _, v := range adj.Values {
		if v < 0 {
			return nil, nil, errors.New("top-k ppr: push needs nonnegative edge weights")
		}
	}
	n := adj.Rows
	kk := min(k, n)
	out := &topKRows{kk: kk, count: make([]int32, len(nodes)),
		cols: make([]int32, len(nodes)*kk), vals: make([]float32, len(nodes)*kk)}
	if withSums {
		out.sums = make([]float64, len(nodes))
	}
	w := newNodePush(adj, alpha, eps)
	for i, u := range nodes {
		out.set(i, w.topK(int32(u), kk))
		if progress != nil {
			progress(i+1, len(nodes))
		}
	}
	return out.csr(n), out.sums, nil
}

// reportEvery calls report every period on a goroutine of its own until
// the returned stop is called; stop waits for it and calls report a last
// time, so report's calls never overlap.
func reportEvery(period time.Duration, report func()) (stop func()) {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				report()
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
		report()
	}
}

// topKRows holds up to kk row-normalised entries per row in fixed slots
// (row i at [i·kk, i·kk+count[i])); rows are written concurrently, each by
// one goroutine.
type topKRows struct {
	kk    int
	count []int32
	cols  []int32
	vals  []float32
	sums  []float64 // nil, or each row's divisor
}

// set stores row i's selected entries (sorted by column) divided by their
// sum, with the same arithmetic as rowResults.csr (a float64 sum in column
// order; a sum ≤ 0 divides by 1).
func (t *topKRows) set(i int, sel []candidate) {
	var sum float64
	for _, c := range sel {
		sum += c.val
	}
	if sum <= 0 {
		sum = 1
	}
	cols, vals := t.cols[i*t.kk:][:len(sel)], t.vals[i*t.kk:][:len(sel)]
	for j, c := range sel {
		cols[j], vals[j] = c.col, float32(c.val/sum)
	}
	t.count[i] = int32(len(sel))
	if t.sums != nil {
		t.sums[i] = sum
	}
}

// csr packs the rows into a len(count) × n CSR, moving them left in place
// over the unused slots (the arrays are shared, not copied).
func (t *topKRows) csr(n int) *tensor.CSR {
	rows := len(t.count)
	indptr := make([]int, rows+1)
	for i, c := range t.count {
		lo, src := indptr[i], i*t.kk
		if lo != src {
			copy(t.cols[lo:lo+int(c)], t.cols[src:src+int(c)])
			copy(t.vals[lo:lo+int(c)], t.vals[src:src+int(c)])
		}
		indptr[i+1] = lo + int(c)
	}
	nnz := indptr[rows]
	cols, vals := t.cols[:nnz:nnz], t.vals[:nnz:nnz]
	if nnz < len(t.cols)*3/4 { // many short rows: give the unused slots back
		cols, vals = slices.Clone(cols), slices.Clone(vals)
	}
	return &tensor.CSR{Rows: rows, Cols: n, Indptr: indptr,
		Indices: cols, Values: vals}
}
