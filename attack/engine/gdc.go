package engine

import (
	"fmt"
	"math"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// MaxGDCNodes bounds the graphs GDC accepts: it keeps three
// dense n×n float32 matrices (S, (G+Gᵀ)·S and its transpose), 12n² bytes
// (95 MB for cora_ml, 4.8 GB at the limit).
const MaxGDCNodes = 20000

// GDC differentiates a model with GDC preprocessing (gdc, sm_gdc,
// medoid_gdc, ...: exact top-k PPR, rows normalised, then gcn_norm and the
// layers) with respect to the undirected pair weights of the input graph:
// the adaptive attack through GDC.
//
// Forward: T = D̃^{-1/2}(W+I)D̃^{-1/2}, S = α(I − (1−α)T)⁻¹ dense (block
// conjugate gradients, graph.ExactGDCDense, the same solves as the model's
// own preprocessing), per row the top-k entries (the selection is held
// constant, like max-pooling), divided by their row sum; the normalised
// values are a tape leaf, followed by self loops, GCNNormValues and the
// model's Forward. Backward: the tape gives ∂L/∂P on the top-k pattern;
// through the row normalisation G = ∂L/∂S on the pattern; then, S being
// symmetric,
//
//	∂L/∂T = c·S·G·S,  c = (1−α)/α,
//
// and only its symmetric part H = c·S·(G+Gᵀ)·S matters for symmetric pair
// weights. With Y = (G+Gᵀ)·S (sparse times dense) and Z = Yᵀ, H_uv =
// c·S_u·Z_v, a dot product of two rows, so any pair costs O(n). Through the
// symmetric normalisation (d̃ = row sums of W+I):
//
//	∂L/∂w_uv = H_uv·d̃_u^{-1/2}d̃_v^{-1/2} + γ_u + γ_v,
//	γ_u = −½ d̃_u^{-1} Σ_{j ∈ row u of W+I} H_uj T_uj.
//
// Per Evaluate with gradients: the CG solves (n right-hand sides), one
// SpMM of 2nk nonzeros by n×n, and (nnz(W)+n) row dot products.
type GDC struct {
	m     model.Model
	x     *autograd.Sparse
	alpha float64
	k     int
	n     int
	s     *tensor.Dense // S of the last Evaluate
	y, z  *tensor.Dense // (G+Gᵀ)·S and its transpose
	isq   []float64     // d̃^{-1/2}
	gamma []float64
	ready bool
}

// NewGDC returns the adaptive engine for a model with GDC
// preprocessing (model.GDCParams). The model must use the exact diffusion.
func NewGDC(m model.Model, p *data.Problem) (*GDC, error) {
	cfg, ok := model.GDCParams(m)
	if !ok {
		return nil, fmt.Errorf("attack: %s has no GDC preprocessing", m.Name())
	}
	if cfg.Eps > 0 {
		return nil, fmt.Errorf("attack: adaptive gradients through GDC need the exact diffusion; %s uses the push approximation (ppr eps %g)",
			m.Name(), cfg.Eps)
	}
	n := p.Adj.Rows
	if n > MaxGDCNodes {
		return nil, fmt.Errorf("attack: adaptive gradients through GDC keep dense n×n matrices; %d nodes exceed the limit of %d",
			n, MaxGDCNodes)
	}
	return &GDC{m: m, x: p.X, alpha: cfg.Alpha, k: cfg.K, n: n}, nil
}

// AnyPair implements Engine: H is dense, so every pair has a gradient.
func (e *GDC) AnyPair() bool { return true }

// Evaluate implements Engine.
func (e *GDC) Evaluate(w *tensor.CSR, loss attack.Loss, targets []int, labels []int32, grad bool) (attack.Eval, error) {
	if w.Rows != e.n || w.Cols != e.n {
		return attack.Eval{}, fmt.Errorf("attack: graph %d×%d for a model of %d nodes", w.Rows, w.Cols, e.n)
	}
	e.ready = false
	if e.s == nil {
		e.s = tensor.NewDense(e.n, e.n) // reused: PairGrad only refers to the last Evaluate
	}
	sk, s, err := graph.ExactGDCDense(w, e.alpha, e.k, 0, e.s)
	if err != nil {
		return attack.Eval{}, fmt.Errorf("attack: GDC of the perturbed graph: %w", err)
	}
	ev, gp, err := evalWeighted(e.m, e.x, sk, loss, targets, labels, grad)
	if err != nil || !grad {
		return ev, err
	}
	e.backward(w, sk, s, gp)
	return ev, nil
}

// backward turns gp = ∂L/∂P (P = sk's row-normalised values) into γ and
// the matrices PairGrad needs.
func (e *GDC) backward(w, sk *tensor.CSR, s *tensor.Dense, gp []float32) {
	n := e.n
	// G = ∂L/∂S on the pattern: P_uj = S_uj/Σ_l S_ul, so
	// G_uj = (gP_uj − Σ_l gP_ul P_ul)/Σ_l S_ul.
	g := sk.WithValues(make([]float32, sk.Nnz()))
	for u := 0; u < n; u++ {
		lo, hi := sk.Indptr[u], sk.Indptr[u+1]
		var sum, dot float64
		for k := lo; k < hi; k++ {
			sum += float64(s.Data[u*n+int(sk.Indices[k])])
			dot += float64(gp[k]) * float64(sk.Values[k])
		}
		if sum <= 0 {
			sum = 1
		}
		for k := lo; k < hi; k++ {
			g.Values[k] = float32((float64(gp[k]) - dot) / sum)
		}
	}
	gt, _ := g.Transpose()
	if e.y == nil {
		e.y, e.z = tensor.NewDense(n, n), tensor.NewDense(n, n)
		e.isq, e.gamma = make([]float64, n), make([]float64, n)
	}
	tensor.SpMM(e.y, g, s, false)
	tensor.SpMM(e.y, gt, s, true)
	transposeInto(e.z, e.y)
	// d̃ = 1 + row sums of w (graph.ExactGDC adds 1 to the diagonal).
	deg := make([]float64, n)
	for u := 0; u < n; u++ {
		d := 1.0
		for k := w.Indptr[u]; k < w.Indptr[u+1]; k++ {
			d += float64(w.Values[k])
		}
		deg[u] = d
		e.isq[u] = 1 / math.Sqrt(d)
	}
	c := (1 - e.alpha) / e.alpha
	tensor.Parallel(n, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			su := s.Data[u*n : (u+1)*n]
			hasLoop := false
			var acc float64
			for k := w.Indptr[u]; k < w.Indptr[u+1]; k++ {
				j := int(w.Indices[k])
				a := float64(w.Values[k])
				if j == u {
					a++
					hasLoop = true
				}
				if a != 0 {
					acc += c * float64(tensor.Dot(su, e.z.Row(j))) * a * e.isq[u] * e.isq[j]
				}
			}
			if !hasLoop {
				acc += c * float64(tensor.Dot(su, e.z.Row(u))) / deg[u]
			}
			e.gamma[u] = -0.5 / deg[u] * acc
		}
	})
	e.ready = true
}

// transposeInto writes dst = srcᵀ (square) in cache-sized tiles.
func transposeInto(dst, src *tensor.Dense) {
	n := src.Rows
	const bs = 64
	tensor.Parallel((n+bs-1)/bs, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			i0, i1 := bi*bs, min((bi+1)*bs, n)
			for j0 := 0; j0 < n; j0 += bs {
				j1 := min(j0+bs, n)
				for i := i0; i < i1; i++ {
					for j := j0; j < j1; j++ {
						dst.Data[j*n+i] = src.Data[i*n+j]
					}
				}
			}
		}
	})
}

// PairGrad implements Engine.
func (e *GDC) PairGrad(pairs []attack.Flip, out []float32) error {
	if !e.ready {
		return fmt.Errorf("attack: PairGrad before Evaluate with gradients")
	}
	n := e.n
	c := (1 - e.alpha) / e.alpha
	tensor.Parallel(len(pairs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			u, v := int(pairs[i].U), int(pairs[i].V)
			h := c * float64(tensor.Dot(e.s.Data[u*n:(u+1)*n], e.z.Data[v*n:(v+1)*n]))
			out[i] = float32(h*e.isq[u]*e.isq[v] + e.gamma[u] + e.gamma[v])
		}
	})
	return nil
}
