package graph

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"unsafe"

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
	run := newPushRun(g, alpha, eps)
	if kk < n {
		// Fixed slots of kk entries per row, written in place (TopKPPR's
		// layout and arithmetic), instead of two allocations per row.
		out := &topKRows{kk: kk, count: make([]int32, n), cols: make([]int32, n*kk), vals: make([]float32, n*kk)}
		pushTopK(run, nil, kk, runtime.GOMAXPROCS(0), out.set)
		return out.csr(n), nil
	}
	res := newRowResults(n, kk)
	pushTopK(run, nil, kk, runtime.GOMAXPROCS(0), res.set)
	return res.csr(), nil
}

// pushRun is a graph prepared for pushes from many sources: the push graph,
// the thresholds eps·d̃ and the ranking factors d̃^{-1/2}, and the split of
// the nodes into pushed roots and derived leaves (pushGraph.leafTasks).
type pushRun struct {
	pg            *pushGraph
	thresh, isqrt []float64
	roots         []int32
	leafPtr       []int
	leaves        []int32
}

func newPushRun(g *diffusionGraph, alpha, eps float64) *pushRun {
	n := g.n
	r := &pushRun{thresh: make([]float64, n), isqrt: make([]float64, n)}
	for v := 0; v < n; v++ {
		r.thresh[v] = eps * g.deg[v]
		r.isqrt[v] = 1 / math.Sqrt(g.deg[v])
	}
	r.pg = newPushGraph(g, alpha)
	r.roots, r.leafPtr, r.leaves = r.pg.leafTasks()
	return r
}

// pushTopK pushes from the roots and hands the top-kk candidates of every
// node to emit (node, entries sorted by column; the slice is reused after
// emit returns), on up to workers goroutines. With want set (one flag per
// node) only the wanted nodes are emitted, and only roots that are wanted or
// carry a wanted leaf are pushed. emit is called concurrently, once per
// node, and what it receives for a node depends only on that node.
func pushTopK(r *pushRun, want []bool, kk, workers int, emit func(v int, sel []candidate)) {
	pg, isqrt := r.pg, r.isqrt
	wanted := func(v int32) bool { return want == nil || want[v] }
	forEachWorkerN(workers, len(r.roots), func(next func() (int, bool)) {
		var w *pushWorker // allocated on the first push of this worker
		for i, ok := next(); ok; i, ok = next() {
			u := r.roots[i]
			leaves := r.leaves[r.leafPtr[i]:r.leafPtr[i+1]]
			if !wanted(u) && !slices.ContainsFunc(leaves, wanted) {
				continue
			}
			if w == nil {
				w = newPushWorker(len(pg.keep), r.thresh)
			}
			w.push(pg, int(u))
			if wanted(u) {
				emit(int(u), w.sel.selectTopK(w.candidates(isqrt, -1, 1, 0), kk))
			}
			// The leaves hanging off u: π_l = keep_l·e_l + scale_lu·π_u.
			for _, l := range leaves {
				if wanted(l) {
					e := pg.indptr[l]
					emit(int(l), w.sel.selectTopK(w.candidates(isqrt, int(l), pg.scale[e], pg.keep[l]), kk))
				}
			}
		}
	})
}

// pushGraph is Â prepared for the push: self loops taken out and solved
// in closed form. Pushing r_v from v sends the share c_v = (1−α)·â_vv/d̃_v
// straight back to v, which would be pushed again (and again); summing that
// geometric series, one push of r_v moves α·r_v/(1−c_v) into p_v and
// (1−α)·â_vw/d̃_v·r_v/(1−c_v) to every other neighbour w. That is the limit
// of infinitely many pushes, so the push invariant π_u = p + Σ_v r_v·π_v and
// the error bound are unchanged, with far fewer pops (c_v = 0.425 for a
// leaf; on sampled cora_ml graphs 30-40% fewer pops and edge updates).
type pushGraph struct {
	indptr  []int
	indices []int32
	scale   []float64 // (1−α)·â_vw/d̃_v/(1−c_v), w ≠ v, â_vw > 0
	keep    []float64 // α/(1−c_v)
	// prefetch: the graph is large enough for the pushes to prefetch
	// (prefetchAhead).
	prefetch bool
}

func newPushGraph(g *diffusionGraph, alpha float64) *pushGraph {
	n := g.n
	pg := &pushGraph{indptr: make([]int, n+1), indices: make([]int32, 0, len(g.indices)),
		scale: make([]float64, 0, len(g.indices)), keep: make([]float64, n)}
	for v := 0; v < n; v++ {
		lo, hi := g.indptr[v], g.indptr[v+1]
		var self float64
		for e := lo; e < hi; e++ {
			if int(g.indices[e]) == v {
				self += g.vals[e]
			}
		}
		f := 1 / (1 - (1-alpha)*self/g.deg[v]) // self ≤ d̃_v and α > 0: finite
		pg.keep[v] = alpha * f
		for e := lo; e < hi; e++ {
			if x := g.indices[e]; int(x) != v && g.vals[e] > 0 {
				pg.indices = append(pg.indices, x)
				pg.scale = append(pg.scale, (1-alpha)*g.vals[e]/g.deg[v]*f)
			}
		}
		pg.indptr[v+1] = len(pg.indices)
	}
	pg.prefetch = n >= prefetchMinNodes
	return pg
}

// leafTasks splits the nodes into roots, whose PPR vectors are pushed,
// and leaves, whose vectors follow from their only neighbour's: a node l
// with exactly one neighbour u ≠ l in the push graph has, by the first step
// of the walk, π_l = keep_l·e_l + scale_lu·π_u, and the same combination of
// u's push estimate p_u (π_u − eps·d̃ ≤ p_u ≤ π_u entrywise) is within the
// same error bound (scale_lu < 1). Leaves are derived right after their
// root, from the worker's p, so nothing is stored; u must itself be a root
// (not a leaf), so the two ends of an isolated edge are both pushed. On a
// cora_ml graph with 40% of the edges deleted a quarter of the nodes are
// such leaves. The output depends only on the graph, not on the workers.
func (pg *pushGraph) leafTasks() (roots []int32, leafPtr []int, leaves []int32) {
	n := len(pg.keep)
	isLeaf := func(v int) bool { return pg.indptr[v+1]-pg.indptr[v] == 1 }
	leafOfRoot := func(v int) bool { return isLeaf(v) && !isLeaf(int(pg.indices[pg.indptr[v]])) }
	count := make([]int, n)
	for v := range n {
		if leafOfRoot(v) {
			count[pg.indices[pg.indptr[v]]]++
		}
	}
	slot := make([]int, n) // index of v in roots
	for v := range n {
		if !leafOfRoot(v) {
			slot[v] = len(roots)
			roots = append(roots, int32(v))
		}
	}
	leafPtr = make([]int, len(roots)+1)
	for i, r := range roots {
		leafPtr[i+1] = leafPtr[i] + count[r]
	}
	leaves = make([]int32, leafPtr[len(roots)])
	fill := make([]int, len(roots))
	copy(fill, leafPtr[:len(roots)])
	for v := range n { // ascending, so every root's leaves are sorted
		if leafOfRoot(v) {
			i := slot[pg.indices[pg.indptr[v]]]
			leaves[fill[i]] = int32(v)
			fill[i]++
		}
	}
	return roots, leafPtr, leaves
}

// candidates lists the nonzero entries of the vector scale·p + keep·e_self
// (self < 0: none) as (column, value·d̃^{-1/2}) pairs, in w.row.
func (w *pushWorker) candidates(isqrt []float64, self int, scale, keep float64) []candidate {
	w.row = w.row[:0]
	emit := func(v int, pv float64) {
		if v == self {
			pv += keep
		}
		if pv > 0 {
			w.row = append(w.row, candidate{col: int32(v), val: pv * isqrt[v]})
		}
	}
	if w.dense {
		// Every node to the next free slot, the length advancing for
		// positive values: no data-dependent branch over the n nodes.
		n := len(w.node)
		if cap(w.row) < n {
			w.row = make([]candidate, 0, n)
		}
		row, m := w.row[:n], 0
		for v := range w.node {
			pv := w.node[v].p * scale
			if v == self {
				pv += keep
			}
			row[m] = candidate{col: int32(v), val: pv * isqrt[v]}
			m += b2i(pv > 0)
		}
		w.row = row[:m]
		return w.row
	}
	selfSeen := self < 0
	for _, v := range w.touched {
		emit(int(v), scale*w.node[v].p)
		selfSeen = selfSeen || int(v) == self
	}
	if !selfSeen {
		emit(self, 0)
	}
	return w.row
}

// pushWorker is one goroutine's reusable push state: per node the estimate
// p, the residual and whether it was touched, in one dense array. In sparse
// mode the touched nodes are tracked and only they are reset and scanned;
// once a push from the previous source reached more than n/denseFrac nodes
// the worker switches to dense mode (clear and scan everything, no
// per-update bookkeeping), and back when pushes get small again.
type pushWorker struct {
	node    []pushNode
	touched []int32
	// queue is a FIFO ring (a power of two > n slots, so the slot at the
	// tail is always free) holding the nodes from head to tail.
	queue      []int32
	head, tail int
	// dense is the mode of the last push (how to read and reset p),
	// nextDense the mode of the next one.
	dense, nextDense bool
	row              []candidate
	sel              topKSelector
}

// denseFrac: dense mode when more than n/denseFrac nodes were reached.
const denseFrac = 4

// pushNode keeps a node's push state in one 32-byte slot (half a cache
// line): the residual r and its push threshold eps·d̃, which the inner loop
// reads per neighbour, the estimate p, which the pop writes and the top-k
// reads, and whether the current push touched the node (sparse mode). On
// graphs larger than the caches each touched node then costs one line, not
// three.
type pushNode struct {
	r, thr, p float64
	seen      bool
}

func newPushWorker(n int, thresh []float64) *pushWorker {
	w := &pushWorker{node: make([]pushNode, n),
		touched: make([]int32, 0, n+1), queue: make([]int32, ringSize(n))}
	for v := range w.node {
		w.node[v].thr = thresh[v]
	}
	return w
}

// push runs forward push from source u with a FIFO queue: pop v, move
// keep_v·r_v into p_v and spread r_v along row v of the push graph, enqueue
// neighbours whose residual reached eps·d̃. The result does not depend on
// the mode (the same updates in the same order).
//
// A node is in the queue exactly when r ≥ thr: residuals only grow until
// the node is popped, and popping sets r = 0 < thr. So a neighbour is
// enqueued when an update makes its residual cross the threshold, without a
// queued flag. (The source is queued first with r = 1 whatever its
// threshold and popped before any other update.) In sparse mode a node can
// only be new when its residual was 0, which keeps the seen lookup off the
// common path.
func (w *pushWorker) push(g *pushGraph, u int) {
	n := len(w.node)
	// Reset what the previous source left, then switch mode (dense mode
	// leaves seen false).
	if w.dense {
		for v := range w.node {
			w.node[v].r, w.node[v].p = 0, 0
		}
	} else {
		for _, v := range w.touched {
			nd := &w.node[v]
			nd.r, nd.p, nd.seen = 0, 0, false
		}
	}
	w.dense = w.nextDense
	w.touched = w.touched[:0]
	w.node[u].r = 1
	w.queue[0], w.head, w.tail = int32(u), 0, 1
	if w.dense {
		w.drainDense(g)
		reached := 0
		for v := range w.node {
			reached += b2i(w.node[v].p > 0)
		}
		w.nextDense = reached > n/denseFrac
	} else {
		w.touched = append(w.touched, int32(u))
		w.node[u].seen = true
		w.drainSparse(g)
		w.nextDense = len(w.touched) > n/denseFrac
	}
}

// drainSparse empties the queue, tracking touched nodes. The loop over a
// row's neighbours has no data-dependent branch: every neighbour is
// written to the free slots after touched and after the queue's tail, and
// the lengths advance by the conditions (first touch; residual crossing
// the threshold). Updates, their order and the queue order are those of
// the branching loop.
func (w *pushWorker) drainSparse(g *pushGraph) {
	node := w.node
	queue, mask := w.queue, len(w.queue)-1
	touched, nt := w.touched[:cap(w.touched)], len(w.touched) // capacity n+1: one free slot
	head, tail := w.head, w.tail
	for head != tail {
		if g.prefetch {
			g.prefetchAhead(queue, mask, head, tail, node)
		}
		v := queue[head&mask]
		head++
		rv := node[v].r
		node[v].r = 0
		node[v].p += g.keep[v] * rv
		lo, hi := g.indptr[v], g.indptr[v+1]
		idx, sc := g.indices[lo:hi], g.scale[lo:hi]
		sc = sc[:len(idx)]
		for j, x := range idx {
			nd := &node[x]
			old := nd.r
			nr := old + rv*sc[j]
			nd.r = nr
			touched[nt] = x
			nt += b2i(old == 0) & b2i(!nd.seen)
			nd.seen = true
			queue[tail&mask] = x
			tail += b2i(nr >= nd.thr) & b2i(old < nd.thr)
		}
	}
	w.touched, w.head, w.tail = touched[:nt], head, tail
}

// drainDense empties the queue without tracking touched nodes (branch-free
// as drainSparse).
//
// Deliberate speed copy of drainSparse: the same pops and pushes without
// the two stores and the flag test per neighbour that track touched nodes.
// The dense mode runs when a push reaches a large share of the graph, where
// that bookkeeping is the inner loop's largest cost; one loop with a flag
// would pay for it or branch on every neighbour.
func (w *pushWorker) drainDense(g *pushGraph) {
	node := w.node
	queue, mask := w.queue, len(w.queue)-1
	head, tail := w.head, w.tail
	for head != tail {
		if g.prefetch {
			g.prefetchAhead(queue, mask, head, tail, node)
		}
		v := queue[head&mask]
		head++
		rv := node[v].r
		node[v].r = 0
		node[v].p += g.keep[v] * rv
		lo, hi := g.indptr[v], g.indptr[v+1]
		idx, sc := g.indices[lo:hi], g.scale[lo:hi]
		sc = sc[:len(idx)]
		for j, x := range idx {
			nd := &node[x]
			old := nd.r
			nr := old + rv*sc[j]
			nd.r = nr
			queue[tail&mask] = x
			tail += b2i(nr >= nd.thr) & b2i(old < nd.thr)
		}
	}
	w.head, w.tail = head, tail
}

// The push pops nodes in queue order, so the rows it reads next are known
// ahead of time. On graphs whose arrays do not fit the caches (arXiv-sized
// and up) each pop would otherwise wait for its row from memory: the
// queue's entries prefetchPtr ahead get their row offsets prefetched, those
// prefetchRow ahead (whose offsets have arrived by then) the first lines of
// their neighbours and weights, and those prefetchAheadNodes ahead (whose
// neighbour lists have arrived) their neighbours' slots. A prefetch is a
// hint: the values and the order of the updates are unchanged.
//
// Below prefetchMinNodes nodes the push state (32 bytes per node) and the
// graph stay in the caches, where the prefetches only cost time.
const (
	prefetchMinNodes   = 1 << 15
	prefetchPtr        = 12
	prefetchRow        = 8
	prefetchAheadNodes = 4
)

// prefetchAhead issues the prefetches for the pop at head (queue holds the
// nodes head…tail-1).
func (g *pushGraph) prefetchAhead(queue []int32, mask, head, tail int, node []pushNode) {
	if head+prefetchPtr < tail {
		prefetch(unsafe.Pointer(&g.indptr[queue[(head+prefetchPtr)&mask]]))
	}
	if head+prefetchRow < tail {
		u := queue[(head+prefetchRow)&mask]
		if lo := g.indptr[u]; lo < g.indptr[u+1] {
			prefetch(unsafe.Pointer(&g.indices[lo]))
			prefetch(unsafe.Pointer(&g.scale[lo]))
		}
	}
	if head+prefetchAheadNodes < tail {
		u := queue[(head+prefetchAheadNodes)&mask]
		prefetchNodes(node, g.indices[g.indptr[u]:g.indptr[u+1]])
	}
}

// ringSize is the queue's ring length: the smallest power of two above n
// (at most n nodes are queued at a time, as a node is queued only while
// its residual is at least its threshold, so the slot at the tail is free).
func ringSize(n int) int {
	s := 1
	for s <= n {
		s *= 2
	}
	return s
}

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
