package graph

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/rgnn/rgnn/internal/csrrows"
	"github.com/rgnn/rgnn/tensor"
)

// DynamicPPR keeps the row-normalised top-k push-PPR matrix of a graph that
// changes (TopKPPR of every node of the current graph, row for row the same
// bits) and, after an edit, recomputes only the rows the edit can reach.
//
// A push from a source reads the rows and degrees of the nodes it touches
// (the popped nodes and their neighbours) and nothing else; a node that
// hangs off a root (a leaf, see pushGraph.leafTasks) is derived from its
// root's push. So a row is unchanged, bit for bit, by an edit whose
// endpoints its push did not touch: the push on the edited graph makes the
// same reads in the same order. DynamicPPR records the popped nodes of every
// row's push (with the residual moved out of each) and, per node, the rows
// that popped it; an edit changing the rows of the nodes C then recomputes
// the rows that popped a node of C, and those that only touched a node c
// of C whose threshold fell (a removal) when c's residual in that push
// reaches the new threshold (Update), each with the push of TopKPPR on the
// edited graph, and nothing else. Recomputed rows are TopKPPR's rows of the
// new graph (tested bit for bit against a full TopKPPR; the kept popped
// sets and residuals against a fresh push).
//
// Memory: k entries per row plus the popped sets, stored twice (per row and
// per node: at eps = 1e-4 a few hundred entries per row), and a float32
// residual per popped entry. Not safe for concurrent use.
type DynamicPPR struct {
	alpha, eps float64
	k          int
	adj        *tensor.CSR
	run        *pushRun         // adj prepared for the push
	spare      *pushRun         // the run before: its arrays are reused by the next update
	workers    chan *pushWorker // push states kept between updates (their thresholds follow run)
	rows       *topKRows
	popped     [][]int32 // popped[i]: the popped nodes of row i's push (any order)
	// mass[i][j] is the residual row i's push moved out of popped[i][j] in
	// all (its p over its keep), rounded to float32: what the push sent to
	// each neighbour of that node, over the scale of the edge.
	mass     [][]float32
	poppedBy [][]int32 // poppedBy[v]: the rows whose push popped v (any order)
	mark     []bool
	stamp    []uint64 // per node, Update's set differences (gen)
	gen      uint64
	// Update's residual test: per node the scale of its edge to the
	// changed node in hand (valid where nbrStamp is nbrGen), per row
	// whether it was tested for that node (rowStamp).
	nbrScale           []float64
	nbrStamp, rowStamp []uint64
	nbrGen             uint64
	// settleRows are the rows the last Update recomputed, whose change of
	// popped set (from settleBefore) poppedBy does not show yet (Settle).
	settleRows   []int
	settleBefore [][]int32
}

// NewDynamicPPR computes the top-k PPR rows of every node of adj (square,
// nonnegative; TopKPPR's alpha, eps and k) and the index that later updates
// use, on up to workers goroutines (≤ 0: GOMAXPROCS).
func NewDynamicPPR(adj *tensor.CSR, alpha, eps float64, k, workers int) (*DynamicPPR, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("dynamic ppr: alpha %v outside (0, 1)", alpha)
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("dynamic ppr: eps %v must be positive and finite", eps)
	}
	if k < 1 {
		return nil, fmt.Errorf("dynamic ppr: k must be ≥ 1, got %d", k)
	}
	if err := checkPushAdj(adj); err != nil {
		return nil, fmt.Errorf("dynamic ppr: %w", err)
	}
	n := adj.Rows
	d := &DynamicPPR{alpha: alpha, eps: eps, k: k, adj: adj,
		rows:   &topKRows{kk: min(k, n), count: make([]int32, n), cols: make([]int32, n*min(k, n)), vals: make([]float32, n*min(k, n))},
		popped: make([][]int32, n), mass: make([][]float32, n), poppedBy: make([][]int32, n), mark: make([]bool, n), stamp: make([]uint64, n),
		nbrScale: make([]float64, n), nbrStamp: make([]uint64, n), rowStamp: make([]uint64, n),
		workers: make(chan *pushWorker, 8)}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if err := d.prepare(adj); err != nil {
		return nil, fmt.Errorf("dynamic ppr: %w", err)
	}
	d.recompute(all, workers)
	for i, ps := range d.popped {
		for _, v := range ps {
			d.poppedBy[v] = append(d.poppedBy[v], int32(i))
		}
	}
	return d, nil
}

// checkPushAdj checks what the push needs of an adjacency.
func checkPushAdj(adj *tensor.CSR) error {
	if adj == nil {
		return errors.New("nil adjacency")
	}
	if adj.Rows != adj.Cols {
		return fmt.Errorf("adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	if err := adj.Validate(); err != nil {
		return fmt.Errorf("adjacency: %w", err)
	}
	for _, v := range adj.Values {
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			return errors.New("push needs finite nonnegative edge weights")
		}
	}
	return nil
}

// Nodes is the number of rows.
func (d *DynamicPPR) Nodes() int { return len(d.rows.count) }

// Adj is the current graph.
func (d *DynamicPPR) Adj() *tensor.CSR { return d.adj }

// recompute sets the rows of nodes (distinct) with TopKPPR's push on
// d.adj (prepared once per graph: run) and their popped sets (the index
// poppedBy is the caller's).
func (d *DynamicPPR) recompute(nodes []int, workers int) {
	run := d.run
	want := make([]bool, d.adj.Rows)
	for _, u := range nodes {
		want[u] = true
	}
	// The roots to push (those wanted or carrying a wanted leaf), found in
	// one pass here rather than by the workers taking every root in turn.
	var tasks []int32
	if len(nodes) < len(run.roots) {
		tasks = make([]int32, 0, len(nodes))
		for i, u := range run.roots {
			if want[u] || slices.ContainsFunc(run.leaves[run.leafPtr[i]:run.leafPtr[i+1]], func(l int32) bool { return want[l] }) {
				tasks = append(tasks, int32(i))
			}
		}
	}
	pushTopKPopped(run, want, tasks, d.rows.kk, workerCount(workers), d.getWorker, d.putWorker, func(v int, sel []candidate, popped []int32, mass []float32) {
		d.rows.set(v, sel)
		d.popped[v] = append(d.popped[v][:0], popped...)
		d.mass[v] = append(d.mass[v][:0], mass...)
	})
}

// getWorker returns a kept push state, or a new one.
func (d *DynamicPPR) getWorker() *pushWorker {
	select {
	case w := <-d.workers:
		return w
	default:
		return newPushWorker(len(d.run.pg.keep), d.run.thresh)
	}
}

// putWorker keeps a push state for the next update (a few at most).
func (d *DynamicPPR) putWorker(w *pushWorker) {
	select {
	case d.workers <- w:
	default:
	}
}

// retargetWorkers makes the kept push states follow the thresholds of
// d.run at the nodes changed; after the graph grew they are dropped.
func (d *DynamicPPR) retargetWorkers(changed []int, grew bool) {
	var keep []*pushWorker
	for {
		select {
		case w := <-d.workers:
			keep = append(keep, w)
			continue
		default:
		}
		break
	}
	if grew {
		return
	}
	for _, w := range keep {
		for _, c := range changed {
			w.node[c].thr = d.run.thresh[c]
		}
		d.putWorker(w)
	}
}

// prepare sets d.adj and its push run.
func (d *DynamicPPR) prepare(adj *tensor.CSR) error {
	g, err := newDiffusionGraph(adj)
	if err != nil {
		return err
	}
	if !g.nonneg {
		return errors.New("push needs nonnegative edge weights")
	}
	d.adj, d.run = adj, newPushRun(g, d.alpha, d.eps)
	return nil
}

// pushTopKPopped is pushTopK (the same pushes, rows and leaves) that also
// hands emit the nodes the push popped (in no particular order; the root's
// push for a leaf) and the residual it moved out of each (p/keep, as
// float32). emit is called concurrently, once per wanted node.
// tasks, if not nil, lists the indices of the roots to consider (all of
// them otherwise).
func pushTopKPopped(r *pushRun, want []bool, tasks []int32, kk, workers int, get func() *pushWorker, put func(*pushWorker),
	emit func(v int, sel []candidate, popped []int32, mass []float32)) {
	pg, isqrt := r.pg, r.isqrt
	count := len(r.roots)
	if tasks != nil {
		count = len(tasks)
	}
	forEachWorkerN(workers, count, func(next func() (int, bool)) {
		var w *pushWorker
		defer func() {
			if w != nil {
				put(w)
			}
		}()
		var popped []int32
		var mass []float32
		for i, ok := next(); ok; i, ok = next() {
			if tasks != nil {
				i = int(tasks[i])
			}
			u := r.roots[i]
			leaves := r.leaves[r.leafPtr[i]:r.leafPtr[i+1]]
			if !want[u] && !slices.ContainsFunc(leaves, func(l int32) bool { return want[l] }) {
				continue
			}
			if w == nil {
				w = get()
			}
			w.push(pg, int(u))
			popped, mass = popped[:0], mass[:0]
			if w.dense {
				for v := range w.node {
					if p := w.node[v].p; p > 0 {
						popped = append(popped, int32(v))
						mass = append(mass, float32(p/pg.keep[v]))
					}
				}
			} else {
				for _, v := range w.touched {
					if p := w.node[v].p; p > 0 {
						popped = append(popped, v)
						mass = append(mass, float32(p/pg.keep[v]))
					}
				}
			}
			if want[u] {
				emit(int(u), w.sel.selectTopK(w.candidates(isqrt, -1, 1, 0), kk), popped, mass)
			}
			for _, l := range leaves {
				if want[l] {
					e := pg.indptr[l]
					emit(int(l), w.sel.selectTopK(w.candidates(isqrt, int(l), pg.scale[e], pg.keep[l]), kk), popped, mass)
				}
			}
		}
	})
}

// Update moves to adj, the current graph with edits that changed the rows
// (and degrees) of the nodes in changed — the endpoints of added or removed
// edges — and possibly new nodes appended at the end (rows ≥ Nodes(), which
// need not be listed), and recomputes every row those edits can reach. It
// returns the recomputed rows, ascending (the new nodes included); the
// others are unchanged. adj must keep the old nodes' ids.
func (d *DynamicPPR) Update(adj *tensor.CSR, changed []int, workers int) ([]int, error) {
	d.Settle()
	old, oldRun := d.adj, d.run
	n0, n := old.Rows, adj.Rows
	if n < n0 {
		return nil, fmt.Errorf("dynamic ppr: the graph shrank from %d to %d nodes", n0, n)
	}
	if adj.Rows != adj.Cols || len(adj.Indptr) != n+1 {
		return nil, fmt.Errorf("dynamic ppr: adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	for _, c := range changed {
		if c < 0 || c >= n {
			return nil, fmt.Errorf("dynamic ppr: changed node %d outside [0, %d)", c, n)
		}
	}
	var rows []int // the rows that differ from the old graph's: changed and new
	for _, c := range changed {
		if c < n0 {
			rows = append(rows, c)
		}
	}
	for i := n0; i < n; i++ {
		rows = append(rows, i)
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	for _, c := range rows {
		if err := checkRow(adj, c); err != nil {
			return nil, fmt.Errorf("dynamic ppr: %w", err)
		}
	}
	d.adj, d.run = adj, patchPushRun(oldRun, d.spare, adj, rows, d.alpha, d.eps)
	d.spare = oldRun
	if n > n0 {
		d.grow(n)
	}
	d.retargetWorkers(rows, n > n0)
	run := d.run
	var redo []int
	markRow := func(i int) {
		if !d.mark[i] {
			d.mark[i] = true
			redo = append(redo, i)
		}
	}
	byNode := func(v int) {
		for _, i := range d.poppedBy[v] {
			markRow(int(i))
		}
	}
	isLeaf := func(pg *pushGraph, v int) bool { return v < len(pg.keep) && pg.indptr[v+1]-pg.indptr[v] == 1 }
	for _, c := range changed {
		markRow(c) // its own push starts from its changed row
		if c >= n0 {
			continue
		}
		// A push that popped c read its row. One that only touched it (a
		// neighbour was popped) read its threshold eps·d̃_c, against which
		// c's residual stayed below: a higher threshold leaves that push
		// as it was, a lower one may not.
		byNode(c)
		// Whether a neighbour is a leaf of its root depends on c's row.
		for _, g := range []*tensor.CSR{old, adj} {
			for _, v := range g.Indices[g.Indptr[c]:g.Indptr[c+1]] {
				if isLeaf(oldRun.pg, int(v)) || isLeaf(run.pg, int(v)) {
					markRow(int(v))
				}
			}
		}
	}
	for i := n0; i < n; i++ {
		markRow(i)
	}
	// A push that touched a changed node c without popping it (it popped
	// a neighbour of c) read c's threshold eps·d̃_c each time c's residual
	// grew, and c's residual stayed below it. A higher threshold leaves
	// that push as it was. Under a lower one the push is still the same,
	// read for read, as long as c's final residual stays below the new
	// threshold (a residual only grows until its node is popped): that
	// residual is the sum over c's popped neighbours x of the residual
	// moved out of x (mass) times the scale of the edge x→c, and is
	// recomputed here from the row's popped set. The masses are rounded to
	// float32 and the push sums in its own order, so the test keeps a
	// relative margin (residualMargin, far above both roundings of these
	// sums of positive terms) and recomputes the row when in doubt.
	for _, c := range changed {
		if c >= n0 || run.thresh[c] >= oldRun.thresh[c] {
			continue
		}
		nbrs := old.Indices[old.Indptr[c]:old.Indptr[c+1]]
		d.nbrGen++
		gen := d.nbrGen
		for _, x := range nbrs {
			d.nbrStamp[x], d.nbrScale[x] = gen, edgeScale(oldRun.pg, int(x), int32(c))
		}
		limit := run.thresh[c] / (1 + residualMargin)
		for _, x := range nbrs {
			for _, i := range d.poppedBy[x] {
				if d.mark[i] || d.rowStamp[i] == gen {
					continue
				}
				d.rowStamp[i] = gen
				r, ms := 0.0, d.mass[i]
				for j, y := range d.popped[i] {
					if d.nbrStamp[y] == gen {
						r += float64(ms[j]) * d.nbrScale[y]
					}
				}
				if !(r < limit) {
					markRow(int(i))
				}
			}
		}
	}
	slices.Sort(redo)
	for _, i := range redo {
		d.mark[i] = false
	}
	before := make([][]int32, len(redo))
	for j, i := range redo {
		before[j] = slices.Clone(d.popped[i])
	}
	d.recompute(redo, workers)
	d.settleRows, d.settleBefore = slices.Clone(redo), before
	return redo, nil
}

// Settle brings the index of popped sets up to date with the rows the last
// Update recomputed. Update does it first, so calling it is never needed;
// a caller that has time between updates (a server, once it has served the
// new rows) calls it then, and the next Update starts with its pushes.
func (d *DynamicPPR) Settle() {
	redo, before := d.settleRows, d.settleBefore
	d.settleRows, d.settleBefore = nil, nil
	// Each recomputed row leaves the nodes it no longer pops and joins
	// those it pops now (the sets in any order: stamp marks the old set's
	// nodes with 2·gen, those popped again with 2·gen+1).
	for j, i := range redo {
		a, b := before[j], d.popped[i]
		d.gen++
		old, again := 2*d.gen, 2*d.gen+1
		for _, v := range a {
			d.stamp[v] = old
		}
		for _, v := range b {
			if d.stamp[v] == old {
				d.stamp[v] = again
			} else {
				d.poppedBy[v] = append(d.poppedBy[v], int32(i))
			}
		}
		for _, v := range a {
			if d.stamp[v] == old {
				d.leave(v, int32(i))
			}
		}
	}
}

// residualMargin is the relative margin of Update's residual test: the
// float32 masses are within 2^-24 of the push's sums, and the push's own
// sums of positive terms within a few hundred 2^-53.
const residualMargin = 1e-5

// edgeScale is the scale of the push graph's edge x→c (0 if none).
func edgeScale(pg *pushGraph, x int, c int32) float64 {
	lo, hi := pg.indptr[x], pg.indptr[x+1]
	if k, ok := slices.BinarySearch(pg.indices[lo:hi], c); ok {
		return pg.scale[lo+k]
	}
	return 0
}

// leave removes row i from poppedBy[v].
func (d *DynamicPPR) leave(v, i int32) {
	l := d.poppedBy[v]
	if k := slices.Index(l, i); k >= 0 {
		l[k] = l[len(l)-1]
		d.poppedBy[v] = l[:len(l)-1]
	}
}

// grow appends empty rows up to n nodes (new nodes; kk stays the old
// one's k clamped to the old size unless that was below k).
func (d *DynamicPPR) grow(n int) {
	r := d.rows
	n0 := len(r.count)
	if kk := min(d.k, n); kk != r.kk {
		// k was clamped to the old size: re-slot every row at the new width.
		nr := &topKRows{kk: kk, count: make([]int32, n0), cols: make([]int32, n0*kk), vals: make([]float32, n0*kk)}
		for i := range n0 {
			c := int(r.count[i])
			copy(nr.cols[i*kk:], r.cols[i*r.kk:i*r.kk+c])
			copy(nr.vals[i*kk:], r.vals[i*r.kk:i*r.kk+c])
			nr.count[i] = int32(c)
		}
		r = nr
		d.rows = r
	}
	r.count = append(r.count, make([]int32, n-n0)...)
	r.cols = append(r.cols, make([]int32, (n-n0)*r.kk)...)
	r.vals = append(r.vals, make([]float32, (n-n0)*r.kk)...)
	d.popped = append(d.popped, make([][]int32, n-n0)...)
	d.mass = append(d.mass, make([][]float32, n-n0)...)
	d.nbrScale = append(d.nbrScale, make([]float64, n-n0)...)
	d.nbrStamp = append(d.nbrStamp, make([]uint64, n-n0)...)
	d.rowStamp = append(d.rowStamp, make([]uint64, n-n0)...)
	d.poppedBy = append(d.poppedBy, make([][]int32, n-n0)...)
	d.mark = append(d.mark, make([]bool, n-n0)...)
	d.stamp = append(d.stamp, make([]uint64, n-n0)...)
}

// Matrix returns the current top-k matrix (Nodes() × Nodes()), a copy: the
// same bits as TopKPPR(Adj(), nil, alpha, eps, k, ·) when k < Nodes() was
// not clamped (k ≥ Nodes() keeps whole rows in both).
func (d *DynamicPPR) Matrix() *tensor.CSR {
	n := d.Nodes()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return d.Rows(all)
}

// Rows returns the rows nodes of the current top-k matrix as a
// len(nodes) × Nodes() CSR (a copy).
func (d *DynamicPPR) Rows(nodes []int) *tensor.CSR {
	r := d.rows
	nnz := 0
	for _, i := range nodes {
		nnz += int(r.count[i])
	}
	out := &tensor.CSR{Rows: len(nodes), Cols: d.Nodes(), Indptr: make([]int, len(nodes)+1),
		Indices: make([]int32, 0, nnz), Values: make([]float32, 0, nnz)}
	for j, i := range nodes {
		c := int(r.count[i])
		out.Indices = append(out.Indices, r.cols[i*r.kk:i*r.kk+c]...)
		out.Values = append(out.Values, r.vals[i*r.kk:i*r.kk+c]...)
		out.Indptr[j+1] = len(out.Indices)
	}
	return out
}

// IndexSize is the number of entries of the popped-set index (each stored
// twice), for memory reports.
func (d *DynamicPPR) IndexSize() int {
	s := 0
	for _, p := range d.popped {
		s += len(p)
	}
	return s
}

// workerCount is workers, or GOMAXPROCS when it is ≤ 0.
func workerCount(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

// checkRow checks row i of a as checkPushAdj checks every row: sorted
// distinct columns in range, finite nonnegative weights.
func checkRow(a *tensor.CSR, i int) error {
	lo, hi := a.Indptr[i], a.Indptr[i+1]
	if lo < 0 || hi < lo || hi > len(a.Indices) || hi > len(a.Values) {
		return fmt.Errorf("row %d: bad row pointers %d..%d", i, lo, hi)
	}
	for k := lo; k < hi; k++ {
		c := a.Indices[k]
		if c < 0 || int(c) >= a.Cols || k > lo && c <= a.Indices[k-1] {
			return fmt.Errorf("row %d: columns not sorted, distinct and in [0, %d)", i, a.Cols)
		}
		if v := a.Values[k]; !(v >= 0) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("row %d: push needs finite nonnegative edge weights", i)
		}
	}
	return nil
}

// patchPushRun is newPushRun of adj, built from old (the push run of a
// graph that differs from adj only in the rows listed, ascending, and in
// nodes appended at the end, which rows lists too): the other rows of the
// push graph, their thresholds and ranking factors are copied, the listed
// ones computed with newDiffusionGraph's and newPushGraph's arithmetic, so
// the result is newPushRun(newDiffusionGraph(adj)) bit for bit, in
// O(n + nnz) copying instead of arithmetic over every entry.
//
// spare, if not nil, is a push run no longer used (the one before old):
// its arrays are reused where large enough, so an update of a large graph
// copies its push graph instead of allocating (and zeroing) a new one. The
// leaf tasks (roots, leaves) are old's, shared, when no listed row was or
// becomes a leaf and the graph did not grow: then no node's leaf status or
// root changed.
func patchPushRun(old, spare *pushRun, adj *tensor.CSR, rows []int, alpha, eps float64) *pushRun {
	n, n0 := adj.Rows, len(old.pg.keep)
	op := old.pg
	if spare == nil || spare == old {
		spare = &pushRun{pg: &pushGraph{}}
	}
	sp := spare.pg
	pg := &pushGraph{indptr: reuse(sp.indptr, n+1), keep: reuse(sp.keep, n)}
	r := &pushRun{pg: pg, thresh: reuse(spare.thresh, n), isqrt: reuse(spare.isqrt, n)}
	copy(pg.keep, op.keep)
	copy(r.thresh, old.thresh)
	copy(r.isqrt, old.isqrt)
	pg.indptr[0] = 0
	extra := 0
	for _, v := range rows {
		extra += adj.Indptr[v+1] - adj.Indptr[v]
	}
	pg.indices = reuse(sp.indices, len(op.indices)+extra)[:0]
	pg.scale = reuse(sp.scale, len(op.indices)+extra)[:0]
	next := 0 // the first row not yet written
	copyRows := func(lo, hi int) {
		pg.indices, pg.scale = csrrows.Append(pg.indptr, pg.indices, pg.scale, op.indptr, op.indices, op.scale, lo, hi)
	}
	for _, v := range rows {
		copyRows(next, min(v, n0))
		// Â's row v (newDiffusionGraph), then the push row (newPushGraph).
		lo, hi := adj.Indptr[v], adj.Indptr[v+1]
		var d, self float64
		placed := false
		for k := lo; k < hi; k++ {
			c, x := int(adj.Indices[k]), float64(adj.Values[k])
			if !placed && c > v {
				d++
				self += 1
				placed = true
			}
			if c == v {
				x++
				self += x
				placed = true
			}
			d += x
		}
		if !placed {
			d++
			self += 1
		}
		f := 1 / (1 - (1-alpha)*self/d)
		pg.keep[v] = alpha * f
		for k := lo; k < hi; k++ {
			if x := adj.Indices[k]; int(x) != v && adj.Values[k] > 0 {
				pg.indices = append(pg.indices, x)
				pg.scale = append(pg.scale, (1-alpha)*float64(adj.Values[k])/d*f)
			}
		}
		pg.indptr[v+1] = len(pg.indices)
		r.thresh[v] = eps * d
		r.isqrt[v] = 1 / math.Sqrt(d)
		next = v + 1
	}
	copyRows(next, n0)
	pg.prefetch = n >= prefetchMinNodes
	sameLeaves := n == n0
	for _, v := range rows {
		if !sameLeaves {
			break
		}
		sameLeaves = op.indptr[v+1]-op.indptr[v] != 1 && pg.indptr[v+1]-pg.indptr[v] != 1
	}
	if sameLeaves {
		r.roots, r.leafPtr, r.leaves = old.roots, old.leafPtr, old.leaves
	} else {
		r.roots, r.leafPtr, r.leaves = pg.leafTasks()
	}
	return r
}

// reuse returns s resliced to n elements when its capacity allows, else a
// new slice (contents undefined in both cases).
func reuse[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}
