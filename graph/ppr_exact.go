package graph

import (
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
func (g *diffusionGraph) exactRowsCG(alpha float64, res *rowResults) error {
	n := g.n
	ct := g.symTransition()
	for e := range ct {
		ct[e] *= 1 - alpha
	}
	op, err := linalg.NewCGOperator(n, n, g.indptr, g.indices, ct)
	if err != nil {
		return err
	}
	errs := make(chan error, 1)
	// Sources are handed out one at a time: a slot whose source converged
	// takes the next one, so the block stays full.
	forEachWorker(n, func(next func() (int, bool)) {
		w := newCGWorker(n)
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
					w.src[b], w.iter[b], math.Sqrt(rrn[b])/alpha)
			}
			beta[b] = rrn[b] / w.rr[b]
			w.rr[b] = rrn[b]
		}
		linalg.CGDirection(w.p, w.r, &beta)
		for b := range linalg.CGBlock {
			if !done[b] {
				continue
			}
			if res.dense != nil {
				row := res.dense[w.src[b]*res.n : (w.src[b]+1)*res.n]
				for j := range row {
					row[j] = float32(w.x[j][b])
				}
			}
			res.set(w.src[b], w.sel.selectTopKBlock(w.x, b, res.kk))
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
