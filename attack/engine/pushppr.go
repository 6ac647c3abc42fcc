package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// PushPPR is the adaptive engine of the models on a top-k push PPR matrix,
// for graphs of any size, with nothing of size n²: the GDC models whose
// diffusion is the push approximation (gdc, sm_gdc, softmedian_gdc, ...
// with a ppr eps > 0; the GDC engine's gradient) and the PPRGo models
// (pprgo, softmedian_pprgo: global attacks, where the local engine PPRGo
// serves targeted ones).
//
// Forward: the model's own preprocessing of the perturbed graph, the top-k
// push PPR P (graph.TopKPPRScaled: the same bits as graph.ApproxGDC and
// graph.TopKPPR), its values a tape leaf, then for GDC models self loops,
// GCNNormValues and the layers, for PPRGo models the aggregation of the
// MLP's rows over P. Backward: as in GDC, ∂L/∂S = G on the top-k pattern
// and
//
//	H = c·S·(G+Gᵀ)·S,  c = (1−α)/α,
//
// but S (symmetric) is replaced by its top-k rows S̃: H_uv ≈ c·S̃_u·Y·S̃_vᵀ
// with Y = G+Gᵀ, so H_uv = c·(B_uv + B_vu) with B_uv = S̃_u·G·S̃_vᵀ. Per
// row u, r_u = S̃_u·G is scattered into a dense vector (k rows of G, k
// entries each) and B_uj = r_u·S̃_j is gathered for every stored entry
// (u, j) of the perturbed graph and the diagonal; H then gives γ_u (see
// GDC). The error of the approximation is the PPR mass outside the top k
// of the two rows; with k ≥ n (and a small push eps) it is the exact
// gradient (the GDC engine's for GDC models).
//
// Entries of weight at most 10·eps (PR-BCD's block pairs at its floor
// weight 1e-7 and those that have not grown much yet: at arXiv's size
// early in an attack, half of its million pairs) are left out of the
// diffusion: an entry of weight 10·eps moves a node's walk probabilities by
// 10·eps/d̃, below the push's own error bound eps·d̃ on every entry, and
// leaving them out spares the push their share of every row (the block
// can double the graph's entries). They keep their gradients.
//
// Per Evaluate with gradients: the push, the model, and O(n·k² +
// nnz(w)·k) for H. PairGrad reads H of stored entries, so the candidate
// pairs must be stored in the graph (AnyPair is false), as PR-BCD's and
// GR-BCD's blocks are. Memory O(nnz(w) + n·k) plus an n-vector per worker.
type PushPPR struct {
	m     model.Model
	pprgo bool // the layers on P directly (PPRGo), else gcn_norm first (GDC)
	x     *autograd.Sparse
	alpha float64
	eps   float64
	k     int
	n     int

	w     *tensor.CSR // the graph of the last Evaluate with gradients
	h     []float32   // H_uj for every stored entry of w
	isq   []float64   // d̃^{-1/2}
	gamma []float64
	ready bool
}

// NewPushPPR returns the adaptive engine for a model whose GDC
// preprocessing is the push approximation (model.GDCParams with Eps > 0)
// or a PPRGo model (model.PPRGoParams).
func NewPushPPR(m model.Model, p *data.Problem) (*PushPPR, error) {
	if parts, ok := model.PPRGoParams(m); ok {
		return &PushPPR{m: m, pprgo: true, x: p.X, alpha: parts.Alpha, eps: parts.Eps, k: parts.K, n: p.Adj.Rows}, nil
	}
	cfg, ok := model.GDCParams(m)
	if !ok {
		return nil, fmt.Errorf("attack: %s has neither GDC preprocessing nor a PPRGo matrix", m.Name())
	}
	if !(cfg.Eps > 0) {
		return nil, fmt.Errorf("attack: %s uses the exact diffusion; its adaptive engine is GDC, not PushPPR", m.Name())
	}
	return &PushPPR{m: m, x: p.X, alpha: cfg.Alpha, eps: cfg.Eps, k: cfg.K, n: p.Adj.Rows}, nil
}

// SetEps makes the forward pass push the perturbed graph's PPR with error
// eps instead of the model's own (eps > 0): the gradients of a coarser
// diffusion, for an attack that needs many forward passes. The push's
// cost grows like 1/eps; entries up to 10·eps leave the diffusion
// (minWeight).
func (e *PushPPR) SetEps(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("attack: push eps %v: want a positive number", eps)
	}
	e.eps = eps
	return nil
}

// Eps is the push error of the forward pass.
func (e *PushPPR) Eps() float64 { return e.eps }

// AnyPair implements Engine: only pairs stored in the evaluated graph have
// a gradient.
func (e *PushPPR) AnyPair() bool { return false }

// Evaluate implements Engine.
func (e *PushPPR) Evaluate(w *tensor.CSR, loss attack.Loss, targets []int, labels []int32, grad bool) (attack.Eval, error) {
	if w.Rows != e.n || w.Cols != e.n {
		return attack.Eval{}, fmt.Errorf("attack: graph %d×%d for a model of %d nodes", w.Rows, w.Cols, e.n)
	}
	e.ready = false
	var mirror []int
	if grad { // only the backward pairs the two directions of an entry
		var err error
		if mirror, err = mirrorEntries(w); err != nil {
			return attack.Eval{}, err
		}
	}
	k := e.k
	if k < 1 || k > e.n {
		k = e.n
	}
	pi, sums, err := graph.TopKPPRScaled(dropSmall(w, e.minWeight()), nil, e.alpha, e.eps, k, 0, nil)
	if err != nil {
		return attack.Eval{}, fmt.Errorf("attack: GDC of the perturbed graph: %w", err)
	}
	eval := evalWeighted
	if e.pprgo {
		eval = evalOnMatrix
	}
	ev, gp, err := eval(e.m, e.x, pi, loss, targets, labels, grad)
	if err != nil || !grad {
		return ev, err
	}
	e.backward(w, mirror, pi, sums, gp, k)
	return ev, nil
}

// mirrorEntries returns for every entry (u, j) of w the position of (j,
// u), or an error if w's pattern is not symmetric.
func mirrorEntries(w *tensor.CSR) ([]int, error) {
	t, perm := w.Transpose()
	if !slices.Equal(t.Indptr, w.Indptr) || !slices.Equal(t.Indices, w.Indices) {
		return nil, errors.New("attack: the perturbed graph's pattern is not symmetric")
	}
	return perm, nil
}

// backward computes H on w's entries and γ from gp = ∂L/∂P (P = pi's
// row-normalised values).
func (e *PushPPR) backward(w *tensor.CSR, mirror []int, pi *tensor.CSR, sums []float64, gp []float32, k int) {
	n := e.n
	minW := e.minWeight()
	deg := make([]float64, n)
	if len(e.isq) != n {
		e.isq, e.gamma = make([]float64, n), make([]float64, n)
	}
	for u := 0; u < n; u++ {
		d := 1.0
		for q := w.Indptr[u]; q < w.Indptr[u+1]; q++ {
			if v := w.Values[q]; v > minW {
				d += float64(v)
			}
		}
		deg[u] = d
		e.isq[u] = 1 / math.Sqrt(d)
	}
	// S̃ on pi's pattern: S_uv = √d̃_u·sums_u·P_uv (TopKPPRScaled). G on the
	// pattern: P_uj = S_uj/Σ_l S_ul, so G_uj = (gP_uj − Σ_l gP_ul P_ul)/Σ_l S_ul.
	s := make([]float32, pi.Nnz())
	g := pi.WithValues(make([]float32, pi.Nnz()))
	tensor.Parallel(n, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			a, b := pi.Indptr[u], pi.Indptr[u+1]
			rs := math.Sqrt(deg[u]) * sums[u]
			var dot float64
			for q := a; q < b; q++ {
				s[q] = float32(rs * float64(pi.Values[q]))
				dot += float64(gp[q]) * float64(pi.Values[q])
			}
			if !(rs > 0) {
				continue // an empty row: G stays 0
			}
			for q := a; q < b; q++ {
				g.Values[q] = float32((float64(gp[q]) - dot) / rs)
			}
		}
	})
	if cap(e.h) < w.Nnz() {
		e.h = make([]float32, w.Nnz())
	}
	e.h = e.h[:w.Nnz()]
	// B(u, j) = S̃_u·G·S̃_jᵀ for every entry (u, j) of w and the diagonal:
	// r = S̃_u·G scattered into a dense vector (k rows of G, k entries
	// each), then one gather of S̃_j per entry. Only G's rows are read, so
	// the nodes in many top-k rows (hubs, long columns of G) cost nothing
	// extra.
	b := make([]float32, w.Nnz())
	bd := make([]float32, n)
	dotS := func(r []float32, j int) float32 {
		var acc float32
		for q := pi.Indptr[j]; q < pi.Indptr[j+1]; q++ {
			acc += r[pi.Indices[q]] * s[q]
		}
		return acc
	}
	// G's rows are read in the order of S̃_u's columns, which the hardware
	// prefetcher cannot guess: each is asked for prefetchAhead entries early
	// (its values and its column indices, viewed as floats for the hint).
	gIdx := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(g.Indices))), len(g.Indices))
	tensor.ParallelChunks(n, 64, func(lo, hi int) {
		r := make([]float32, n)
		var off [1]int32
		for u := lo; u < hi; u++ {
			end := pi.Indptr[u+1]
			for q := pi.Indptr[u]; q < end; q++ {
				if f := q + prefetchAhead; f < len(pi.Indices) {
					off[0] = int32(g.Indptr[pi.Indices[f]])
					tensor.PrefetchRows(g.Values, 1, k, off[:])
					tensor.PrefetchRows(gIdx, 1, k, off[:])
				}
				a, su := int(pi.Indices[q]), s[q]
				for t := g.Indptr[a]; t < g.Indptr[a+1]; t++ {
					r[g.Indices[t]] += su * g.Values[t]
				}
			}
			for q := w.Indptr[u]; q < w.Indptr[u+1]; q++ {
				b[q] = dotS(r, int(w.Indices[q]))
			}
			bd[u] = dotS(r, u)
			for q := pi.Indptr[u]; q < pi.Indptr[u+1]; q++ {
				a := int(pi.Indices[q])
				for t := g.Indptr[a]; t < g.Indptr[a+1]; t++ {
					r[g.Indices[t]] = 0
				}
			}
		}
	})
	// H_uj = c·(B(u, j) + B(j, u)) (Y = G + Gᵀ), the same bits in both
	// directions; γ from H on each row of W + I.
	c := float32((1 - e.alpha) / e.alpha)
	tensor.Parallel(n, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			hasLoop := false
			var acc float64
			for q := w.Indptr[u]; q < w.Indptr[u+1]; q++ {
				j := int(w.Indices[q])
				hv := c * (b[q] + b[mirror[q]])
				e.h[q] = hv
				a := float64(w.Values[q])
				if a <= float64(minW) {
					a = 0 // left out of the diffusion
				}
				if j == u {
					a++
					hasLoop = true
				}
				acc += float64(hv) * a * e.isq[u] * e.isq[j]
			}
			if !hasLoop {
				acc += float64(c*(bd[u]+bd[u])) / deg[u]
			}
			e.gamma[u] = -0.5 / deg[u] * acc
		}
	})
	e.w = w
	e.ready = true
}

// prefetchAhead is how many entries of S̃_u ahead the backward asks for
// the G row it will read (a few, not a whole row's 64: too many
// outstanding prefetches stall the core, as in the Soft Median's backward).
const prefetchAhead = 4

// minWeight is the weight at or below which an entry is left out of the
// diffusion: 10·eps.
func (e *PushPPR) minWeight() float32 { return float32(10 * e.eps) }

// dropSmall returns w without its entries of weight at most floor (w itself
// if it has none).
func dropSmall(w *tensor.CSR, floor float32) *tensor.CSR {
	small := 0
	for _, v := range w.Values {
		if v <= floor {
			small++
		}
	}
	if small == 0 {
		return w
	}
	out := &tensor.CSR{Rows: w.Rows, Cols: w.Cols, Indptr: make([]int, w.Rows+1),
		Indices: make([]int32, 0, w.Nnz()-small), Values: make([]float32, 0, w.Nnz()-small)}
	for u := 0; u < w.Rows; u++ {
		for q := w.Indptr[u]; q < w.Indptr[u+1]; q++ {
			if v := w.Values[q]; v > floor {
				out.Indices = append(out.Indices, w.Indices[q])
				out.Values = append(out.Values, v)
			}
		}
		out.Indptr[u+1] = len(out.Indices)
	}
	return out
}

// PairGrad implements Engine: ∂L/∂w_uv = H_uv·d̃_u^{-1/2}d̃_v^{-1/2} + γ_u
// + γ_v.
func (e *PushPPR) PairGrad(pairs []attack.Flip, out []float32) error {
	if !e.ready {
		return fmt.Errorf("attack: PairGrad before Evaluate with gradients")
	}
	for i, f := range pairs {
		u, v := int(f.U), int(f.V)
		// w's pattern is symmetric (mirrorEntries) and H has the same bits
		// in both directions: one of them suffices.
		q, ok := e.w.Find(u, v)
		if !ok {
			return fmt.Errorf("attack: pair (%d, %d) is not stored in the graph (adaptive engines need it)", f.U, f.V)
		}
		out[i] = float32(float64(e.h[q])*e.isq[u]*e.isq[v] + e.gamma[u] + e.gamma[v])
	}
	return nil
}
