package graph

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

const (
	// cgTol is the relative residual ‖r‖/‖α e_u‖ at which a source's CG
	// stops. The error of S[u,·] is then ≤ κ·cgTol·α ≤ 2.5e-12 in the 2-norm
	// (κ ≤ (2−α)/α), far below float32 resolution and below the top-k tie
	// tolerance tieRel·S[u,u].
	cgTol = 1e-12
	// cgMaxIter guards against non-convergence, which cannot happen for an
	// SPD system with κ ≤ (2−α)/α (CG needs ~50 iterations at α = 0.15).
	cgMaxIter = 2000
)

// ExactGDC is GDC with the exact diffusion: S = α(I − (1−α)T)⁻¹ computed to
// float64 rounding, then per row the top-k values (k < 1: all n; ties by
// column ascending), each row divided by its sum. Every row of the result has
// exactly min(k, n) entries (zeros included, as torch.topk would return them).
// Graphs with more than MaxExactPPRNodes nodes are refused.
//
// For a symmetric, nonnegative a (every graph of the reference) it solves
// (I − (1−α)T) x = α e_u by conjugate gradients for every source u, 32
// sources at a time per goroutine; S is symmetric, so x is row u. Otherwise
// it inverts the dense n×n matrix by LU (gonum).
func ExactGDC(a *tensor.CSR, alpha float64, k int) (*tensor.CSR, error) {
	if err := (GDCConfig{Alpha: alpha, K: k}).Validate(); err != nil {
		return nil, err
	}
	g, err := newDiffusionGraph(a)
	if err != nil {
		return nil, err
	}
	if g.n > MaxExactPPRNodes {
		return nil, fmt.Errorf("gdc: exact PPR refused for %d nodes (limit %d, dense O(n²) work); use the push approximation (GDCConfig.Eps > 0, e.g. 1e-4)", g.n, MaxExactPPRNodes)
	}
	kk := k
	if kk < 1 || kk > g.n {
		kk = g.n
	}
	res := newRowResults(g.n, kk)
	if g.nonneg && linalg.IsSymmetric(a) {
		err = g.exactRowsCG(alpha, res)
	} else {
		err = g.exactRowsDense(alpha, res)
	}
	if err != nil {
		return nil, err
	}
	return res.csr(), nil
}

// symTransition returns the values of T = D̃^{-1/2} Â D̃^{-1/2} on Â's
// structure.
func (g *diffusionGraph) symTransition() []float64 {
	t := make([]float64, len(g.vals))
	isq := make([]float64, g.n)
	for i, d := range g.deg {
		isq[i] = 1 / math.Sqrt(d)
	}
	for i := 0; i < g.n; i++ {
		for e := g.indptr[i]; e < g.indptr[i+1]; e++ {
			t[e] = isq[i] * g.vals[e] * isq[g.indices[e]]
		}
	}
	return t
}

// exactRowsCG fills res with the top-k of every row of S via block CG.
//
// A graph of several connected components (a sampled graph of randomized
// smoothing: 40% of citeseer's edges deleted leave ~40% of its nodes in
// components under 64 nodes) is solved one group of components at a time
// over the group's rows only (cgGroups). S is block diagonal, so a
// source's x, r and p are exactly +0 on the rows of other components
// throughout the whole-graph iteration: those rows add +0 to every sum and
// leave every other value as it is, and skipping them gives the same bits
// for a fraction of the work.
func (g *diffusionGraph) exactRowsCG(alpha float64, res *rowResults) error {
	n := g.n
	ct := g.symTransition()
	for e := range ct {
		ct[e] *= 1 - alpha
	}
	var groups [][]int32
	if res.groupRows >= 0 {
		groups = g.cgGroups(cmp.Or(res.groupRows, cgGroupRows))
	}
	if len(groups) <= 1 {
		op, err := linalg.NewCGOperator(n, n, g.indptr, g.indices, ct)
		if err != nil {
			return err
		}
		return solveCG(op, nil, alpha, res)
	}
	local := make([]int32, n) // a node's row in its group
	for _, nodes := range groups {
		for l, v := range nodes {
			local[v] = int32(l)
		}
	}
	for _, nodes := range groups {
		m := len(nodes)
		indptr := make([]int, m+1)
		indices := make([]int32, 0, m)
		vals := make([]float64, 0, m)
		for l, v := range nodes {
			for e := g.indptr[v]; e < g.indptr[v+1]; e++ {
				indices = append(indices, local[g.indices[e]])
				vals = append(vals, ct[e])
			}
			indptr[l+1] = len(indices)
		}
		op, err := linalg.NewCGOperator(m, m, indptr, indices, vals)
		if err != nil {
			return err
		}
		if err := solveCG(op, nodes, alpha, res); err != nil {
			return err
		}
	}
	return nil
}

// cgGroupRows is the number of rows up to which cgGroups packs components
// together (each component whole): a group's every CG iteration costs its
// rows times the block width, so small components share a group of a few
// hundred rows instead of each paying for the whole graph.
const cgGroupRows = 512

// cgGroups returns the nodes (ascending) of each group of connected
// components of Â's stored structure (every stored entry an edge, zeros
// too, as the CG operator reads them): a component of rows nodes or more
// alone, the others packed in order of their smallest node while the group
// stays within rows. A connected graph is one group (nil).
func (g *diffusionGraph) cgGroups(rows int) [][]int32 {
	ones := make([]float32, len(g.indices))
	for e := range ones {
		ones[e] = 1
	}
	labels, sizes := ConnectedComponents(&tensor.CSR{Rows: g.n, Cols: g.n, Indptr: g.indptr, Indices: g.indices, Values: ones})
	if len(sizes) <= 1 {
		return nil
	}
	group := make([]int32, len(sizes)) // per component, in order of its smallest node
	count, fill := 0, rows
	for c, s := range sizes {
		if fill+s > rows || s >= rows {
			count++
			fill = 0
		}
		group[c] = int32(count - 1)
		fill += s
	}
	if count <= 1 {
		return nil
	}
	groups := make([][]int32, count)
	for v, c := range labels {
		groups[group[c]] = append(groups[group[c]], int32(v))
	}
	return groups
}

// solveCG runs the block CG workers over the sources of op, which is the
// whole graph (nodes nil) or the group of rows nodes (its rows in the
// graph's order).
func solveCG(op *linalg.CGOperator, nodes []int32, alpha float64, res *rowResults) error {
	m := res.n
	if nodes != nil {
		m = len(nodes)
	}
	errs := make(chan error, 1)
	// Sources are handed out one at a time: a slot whose source converged
	// takes the next one, so the block stays full.
	forEachWorker(m, func(next func() (int, bool)) {
		w := newCGWorker(m)
		w.nodes = nodes
		if err := w.run(op, alpha, res, next); err != nil {
			select {
			case errs <- err:
			default:
			}
		}
	})
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// cgWorker iterates linalg.CGBlock sources together; their vectors are
// interleaved (row-major n×linalg.CGBlock) so that every nonzero of T is
// loaded once per block instead of once per source.
type cgWorker struct {
	x, r, p, q [][linalg.CGBlock]float64
	src        [linalg.CGBlock]int
	iter       [linalg.CGBlock]int
	rr         [linalg.CGBlock]float64
	sel        topKSelector
	// nodes, if set, are the graph's nodes of the worker's rows (a group of
	// components), row ascending; sources and columns are then rows of it.
	nodes []int32
	full  []candidate // a whole row of S for selectTopK (with nodes)
}

func newCGWorker(n int) *cgWorker {
	w := &cgWorker{x: make([][linalg.CGBlock]float64, n), r: make([][linalg.CGBlock]float64, n),
		p: make([][linalg.CGBlock]float64, n), q: make([][linalg.CGBlock]float64, n)}
	for b := range w.src {
		w.src[b] = -1
	}
	return w
}

// load resets slot b to source u (or to idle when u < 0).
func (w *cgWorker) load(b, u int, alpha float64) {
	for i := range w.x {
		w.x[i][b], w.r[i][b], w.p[i][b] = 0, 0, 0
	}
	w.src[b], w.iter[b], w.rr[b] = u, 0, 0
	if u >= 0 {
		w.r[u][b], w.p[u][b] = alpha, alpha
		w.rr[b] = alpha * alpha
	}
}

// run iterates until next() is exhausted and every slot is idle. The
// arithmetic of a slot never mixes with the other slots', so the result for
// a source is the same whichever slot or worker computes it.
func (w *cgWorker) run(op *linalg.CGOperator, alpha float64, res *rowResults, next func() (int, bool)) error {
	active := 0
	for b := range linalg.CGBlock {
		u, ok := next()
		if !ok {
			u = -1
		} else {
			active++
		}
		w.load(b, u, alpha)
	}
	var pq, a, rrn, beta [linalg.CGBlock]float64
	tol := cgTol * alpha
	if res.tol > 0 {
		tol = res.tol * alpha
	}
	for active > 0 {
		// q = (I − (1−α)T) p and pq = pᵀq, one row at a time.
		op.MatVec(w.q, w.p, &pq)
		for b := range linalg.CGBlock {
			a[b] = 0
			if w.src[b] >= 0 {
				a[b] = w.rr[b] / pq[b]
			}
		}
		linalg.CGUpdate(w.x, w.r, w.p, w.q, &a, &rrn)
		var done [linalg.CGBlock]bool
		for b := range linalg.CGBlock {
			beta[b] = 0
			if w.src[b] < 0 {
				continue
			}
			w.iter[b]++
			if math.Sqrt(rrn[b]) <= tol {
				done[b] = true
				continue
			}
			if w.iter[b] >= cgMaxIter || math.IsNaN(rrn[b]) {
				return fmt.Errorf("gdc: conjugate gradients for source %d did not converge in %d iterations (residual %g)",
					w.node(w.src[b]), w.iter[b], math.Sqrt(rrn[b])/alpha)
			}
			beta[b] = rrn[b] / w.rr[b]
			w.rr[b] = rrn[b]
		}
		linalg.CGDirection(w.p, w.r, &beta)
		for b := range linalg.CGBlock {
			if !done[b] {
				continue
			}
			w.emit(b, res)
			u, ok := next()
			if !ok {
				u = -1
				active--
			}
			w.load(b, u, alpha)
		}
	}
	return nil
}

// node is the graph's node of row l.
func (w *cgWorker) node(l int) int {
	if w.nodes == nil {
		return l
	}
	return int(w.nodes[l])
}

// emit stores the converged row of slot b: its top k (and with res.dense
// the whole row), +0 in the columns outside the worker's group, as the
// whole-graph iteration leaves them.
func (w *cgWorker) emit(b int, res *rowResults) {
	u := w.node(w.src[b])
	if w.nodes == nil {
		if res.dense != nil {
			row := res.dense[u*res.n : (u+1)*res.n]
			for j := range row {
				row[j] = float32(w.x[j][b])
			}
		}
		res.set(u, w.sel.selectTopKBlock(w.x, b, res.kk))
		return
	}
	if res.dense != nil {
		row := res.dense[u*res.n : (u+1)*res.n]
		clear(row)
		for l, j := range w.nodes {
			row[j] = float32(w.x[l][b])
		}
	}
	full := w.full[:0]
	for j := range res.n {
		full = append(full, candidate{col: int32(j)})
	}
	for l, j := range w.nodes {
		full[j].val = w.x[l][b]
	}
	w.full = full
	res.set(u, w.sel.selectTopK(full, res.kk))
}

// exactRowsDense fills res from the dense inverse α(I − (1−α)T)⁻¹ (LU,
// float64). Used for non-symmetric or signed adjacencies, where CG does not
// apply.
func (g *diffusionGraph) exactRowsDense(alpha float64, res *rowResults) error {
	n := g.n
	t := g.symTransition()
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
		for e := g.indptr[i]; e < g.indptr[i+1]; e++ {
			j := int(g.indices[e])
			m.Set(i, j, m.At(i, j)-(1-alpha)*t[e])
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(m); err != nil {
		return fmt.Errorf("gdc: I − (1−α)T is singular: %w", err)
	}
	tensor.Parallel(n, func(lo, hi int) {
		row := make([]candidate, n)
		var sel topKSelector
		for u := lo; u < hi; u++ {
			for j := range row {
				row[j] = candidate{col: int32(j), val: alpha * inv.At(u, j)}
			}
			res.set(u, sel.selectTopK(row, res.kk))
		}
	})
	for u := 0; u < n; u++ {
		for _, v := range res.vals[u] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("gdc: non-finite diffusion value in row %d", u)
			}
		}
	}
	return nil
}
