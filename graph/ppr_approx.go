package graph

import (
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// ApproxGDC is GDC with the forward-push approximation of personalised
// PageRank (Andersen, Chung & Lang 2006), run from every source node in
// parallel. It has the same semantics as ExactGDC — row u holds the top-k of
// S[u,·] for S = α(I − (1−α)T)⁻¹, T = D̃^{-1/2}(A+I)D̃^{-1/2}, row-normalised —
// up to the push error, which is controlled by eps:
//
//   - push computes p ≈ π_u, the PPR vector of the random walk P = D̃⁻¹Â
//     (Â = A+I), stopping when every residual r_v < eps·d̃_v; then
//     0 ≤ π_u[v] − p[v] ≤ eps·d̃_v for an undirected graph;
//   - S = D̃^{1/2} Π D̃^{-1/2}, so S[u,v] = √d̃_u · p[v]/√d̃_v; the top-k is
//     chosen by that value (the factor √d̃_u cancels in the row
//     normalisation).
//
// Only nodes the push reached are candidates, so a row can hold fewer than k
// entries (never a zero). Unlike the at-scale repository, which picks the
// top-k of p before rescaling, the ranking here is by S so that eps → 0
// reproduces ExactGDC. The adjacency must be nonnegative (it may be
// directed).
func ApproxGDC(a *tensor.CSR, alpha float64, k int, eps float64) (*tensor.CSR, error) {
	if err := (GDCConfig{Alpha: alpha, K: k, Eps: eps}).Validate(); err != nil {
		return nil, err
	}
	if !(eps > 0) {
		return nil, fmt.Errorf("gdc: push approximation needs eps > 0, got %v", eps)
	}
	g, err := newDiffusionGraph(a)
	if err != nil {
		return nil, err
	}
	if !g.nonneg {
		return nil, fmt.Errorf("gdc: push approximation needs nonnegative edge weights")
	}
	n := g.n
	kk := k
	if kk < 1 || kk > n {
		kk = n
	}
	res := newRowResults(n, kk)
	thresh := make([]float64, n)
	isqrt := make([]float64, n)
	scale := make([]float64, len(g.vals)) // (1−α)·â_vw/d̃_v
	for v := 0; v < n; v++ {
		thresh[v] = eps * g.deg[v]
		isqrt[v] = 1 / math.Sqrt(g.deg[v])
		for e := g.indptr[v]; e < g.indptr[v+1]; e++ {
			scale[e] = (1 - alpha) * g.vals[e] / g.deg[v]
		}
	}
	forEachWorker(n, func(next func() (int, bool)) {
		w := &pushWorker{p: make([]float64, n), node: make([]pushNode, n)}
		for v := range w.node {
			w.node[v].thr = thresh[v]
		}
		for u, ok := next(); ok; u, ok = next() {
			w.push(g, u, alpha, scale)
			w.row = w.row[:0]
			for _, v := range w.touched {
				if w.p[v] > 0 {
					w.row = append(w.row, candidate{col: v, val: w.p[v] * isqrt[v]})
				}
			}
			res.set(u, w.sel.selectTopK(w.row, kk))
		}
	})
	return res.csr(), nil
}

// pushWorker is one goroutine's reusable push state: the estimate p and
// the per-node residual state as dense arrays that are reset only where
// touched.
type pushWorker struct {
	p       []float64
	node    []pushNode
	touched []int32
	queue   []int32
	row     []candidate
	sel     topKSelector
}

// pushNode keeps what the inner loop touches per neighbour on one cache
// line: the residual, its push threshold eps·d̃, and two flags.
type pushNode struct {
	r, thr       float64
	seen, queued bool
}

// push runs forward push from source u with a FIFO queue: pop v, move
// α·r_v into p_v and spread (1−α)·r_v along Â's row v (its self loop
// included), enqueue neighbours whose residual reached eps·d̃.
func (w *pushWorker) push(g *diffusionGraph, u int, alpha float64, scale []float64) {
	for _, v := range w.touched {
		w.p[v] = 0
		nd := &w.node[v]
		nd.r, nd.seen, nd.queued = 0, false, false
	}
	w.touched = append(w.touched[:0], int32(u))
	w.node[u].seen, w.node[u].queued, w.node[u].r = true, true, 1
	w.queue = append(w.queue[:0], int32(u))
	for head := 0; head < len(w.queue); head++ {
		v := w.queue[head]
		nv := &w.node[v]
		nv.queued = false
		rv := nv.r
		nv.r = 0
		w.p[v] += alpha * rv
		for e := g.indptr[v]; e < g.indptr[v+1]; e++ {
			x := g.indices[e]
			nd := &w.node[x]
			if !nd.seen {
				nd.seen = true
				w.touched = append(w.touched, x)
			}
			nd.r += rv * scale[e]
			if !nd.queued && nd.r >= nd.thr {
				nd.queued = true
				w.queue = append(w.queue, x)
			}
		}
		// Keep the queue's memory bounded by the live part.
		if head > 4096 && head > len(w.queue)/2 {
			live := copy(w.queue, w.queue[head+1:])
			w.queue = w.queue[:live]
			head = -1
		}
	}
}
