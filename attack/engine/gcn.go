package engine

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// GCN is the analytic gradient of a trained 2-layer GCN (model "gcn":
// Z = Â·relu(Â·X·W1 + b1)·W2 + b2 with Â = D^{-1/2}(W+I)D^{-1/2}, dropout
// off). With G_Z = ∂L/∂Z, P = relu(·)·W2, Q = X·W1 and G_U the gradient at
// the first layer's pre-activation, ∂L/∂Â = G_Z·Pᵀ + G_U·Qᵀ = M·Nᵀ (rank
// C+h). Through the normalisation, for a pair {u, v}:
//
//	∂L/∂w_uv = M'_u·N'_v + M'_v·N'_u + γ_u + γ_v,  M' = D^{-1/2}M, N' = D^{-1/2}N,
//	γ_i = −½ d_i^{-1} (Σ_j w_ij (M'_i·N'_j + M'_j·N'_i) + 2 M'_i·N'_i),
//
// so any pair costs O(C+h) and all pairs are a row-blocked low-rank product.
// This is the reference's DenseGCN surrogate gradient (the triu trick sums
// both directions) without the dense n×n matrices.
//
// The degree terms γ have two exact forms. Per edge (the form above, used
// up to LargeGraphNodes nodes, whose results are pinned bit for bit): one
// dot product of length 2(C+h) per stored entry. Propagated (larger
// graphs, or UsePropagatedDegreeTerms): since Â is symmetric and
// ∂Â_ij/∂d_i = −½ Â_ij/d_i,
//
//	γ_i = −½ d_i^{-1} (G_Z,i·(ÂP)_i + G_U,i·(ÂQ)_i + P_i·(ÂG_Z)_i + Q_i·(ÂG_U)_i),
//
// where ÂP, ÂQ and ÂG_Z are already propagated by the forward and backward
// passes: one more propagation (ÂG_U, h columns) and four row dot products
// per node instead of a 2(C+h) dot product per entry (on an arXiv-sized
// graph with a block of 1e6 pairs, 4.3M entries: 0.15 instead of 0.7 CPU
// seconds per gradient). The two agree to float32 rounding.
type GCN struct {
	n, c, h    int
	q          *tensor.Dense // X·W1, n×h (constant)
	w2         *tensor.Dense // h×c
	b1, b2     []float32
	dinv       []float32
	deg        []float64
	u, p, z    *tensor.Dense
	gz, gp, gu *tensor.Dense
	mp, np     *tensor.Dense // M', N' (n×r)
	gamma      []float32
	kmat, lmat []float32 // rows K_i = [M'_i, N'_i], L_i = [N'_i, M'_i], padded to r2 (a multiple of 16)
	r2         int
	w          *tensor.CSR
	ahat       []float32
	ready      bool
	hid        *tensor.Dense // relu(U), n×h
	// propagated selects the propagated degree terms; ap = ÂP, aq = ÂQ,
	// agu = ÂG_U are their operands.
	propagated  bool
	ap, aq, agu *tensor.Dense
}

// LargeGraphNodes is the largest graph on which GCN computes its degree
// terms per edge; larger graphs use the propagated form (GCN's doc). It is
// the node count whose n(n−1)/2 pairs reach 2^28, where the attacks' pair
// sets stop being bitmaps and no all-pairs gradient is formed.
const LargeGraphNodes = 23_170

// NewGCN wraps a trained model "gcn" (its current weights are copied).
func NewGCN(m model.Model, x *tensor.CSR) (*GCN, error) {
	if m.Name() != "gcn" {
		return nil, fmt.Errorf("attack: the analytic surrogate needs model gcn, got %s", m.Name())
	}
	ps := m.Params()
	if len(ps) != 4 {
		return nil, fmt.Errorf("attack: gcn with %d parameter tensors, want 4", len(ps))
	}
	w1, b1, w2, b2 := ps[0].Value, ps[1].Value, ps[2].Value, ps[3].Value
	if w1.Rows != x.Cols || w2.Rows != w1.Cols || len(b1.Data) != w1.Cols || len(b2.Data) != w2.Cols {
		return nil, fmt.Errorf("attack: gcn weights %s, %s do not fit %d features", w1.Shape(), w2.Shape(), x.Cols)
	}
	n, h, c := x.Rows, w1.Cols, w2.Cols
	e := &GCN{n: n, c: c, h: h, q: tensor.NewDense(n, h), w2: w2.Clone(),
		b1: append([]float32(nil), b1.Data...), b2: append([]float32(nil), b2.Data...),
		dinv: make([]float32, n), deg: make([]float64, n),
		u: tensor.NewDense(n, h), p: tensor.NewDense(n, c), z: tensor.NewDense(n, c),
		gz: tensor.NewDense(n, c), gp: tensor.NewDense(n, c), gu: tensor.NewDense(n, h),
		mp: tensor.NewDense(n, c+h), np: tensor.NewDense(n, c+h), gamma: make([]float32, n),
		hid: tensor.NewDense(n, h)}
	tensor.SpMM(e.q, x, w1, false)
	e.UsePropagatedDegreeTerms(n > LargeGraphNodes)
	return e, nil
}

// UsePropagatedDegreeTerms selects the propagated form of the degree terms
// (on) or the per-edge one (off); NewGCN picks the propagated form for
// graphs above LargeGraphNodes nodes. It takes effect at the next Evaluate.
func (e *GCN) UsePropagatedDegreeTerms(on bool) {
	e.propagated, e.ready = on, false
	if on && e.ap == nil {
		e.ap, e.aq, e.agu = tensor.NewDense(e.n, e.c), tensor.NewDense(e.n, e.h), tensor.NewDense(e.n, e.h)
	}
}

// AnyPair implements Engine.
func (e *GCN) AnyPair() bool { return true }

// propagate computes dst = Â·src for the current graph.
func (e *GCN) propagate(dst, src *tensor.Dense) {
	tensor.SpMM(dst, e.w.WithValues(e.ahat), src, false)
	cols := src.Cols
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			tensor.Axpy(dst.Data[i*cols:(i+1)*cols], src.Data[i*cols:(i+1)*cols], e.dinv[i]*e.dinv[i])
		}
	})
}

// Logits returns the logits of the last Evaluate (owned by the engine).
func (e *GCN) Logits() *tensor.Dense { return e.z }

// Evaluate implements Engine.
func (e *GCN) Evaluate(w *tensor.CSR, loss attack.Loss, targets []int, labels []int32, grad bool) (attack.Eval, error) {
	if w.Rows != e.n || w.Cols != e.n {
		return attack.Eval{}, fmt.Errorf("attack: graph %d×%d for a surrogate of %d nodes", w.Rows, w.Cols, e.n)
	}
	e.w, e.ready = w, false
	e.normalize(w)
	e.forward()
	if err := e.z.CheckFinite("surrogate logits"); err != nil {
		return attack.Eval{}, err
	}
	ev := attack.Eval{Loss: loss(e.z, targets, labels, e.gz), Accuracy: train.Accuracy(e.z, labels, targets)}
	if !grad {
		return ev, nil
	}
	e.backward()
	e.pack()
	if e.propagated {
		e.propagatedDegreeTerms()
	} else {
		e.degreeTerms(w)
	}
	e.ready = true
	return ev, nil
}

// normalize computes the degrees d = 1 + row sums of w and the values of
// Â = D^{-1/2}(W+I)D^{-1/2} on w's structure (the diagonal is applied in
// propagate).
func (e *GCN) normalize(w *tensor.CSR) {
	if cap(e.ahat) < w.Nnz() {
		e.ahat = make([]float32, w.Nnz())
	}
	e.ahat = e.ahat[:w.Nnz()]
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d := 1.0
			for k := w.Indptr[i]; k < w.Indptr[i+1]; k++ {
				d += float64(w.Values[k])
			}
			e.deg[i] = d
			e.dinv[i] = float32(1 / math.Sqrt(d))
		}
	})
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k := w.Indptr[i]; k < w.Indptr[i+1]; k++ {
				e.ahat[k] = e.dinv[i] * w.Values[k] * e.dinv[w.Indices[k]]
			}
		}
	})
}

// forward computes U = Â·Q + b1, P = relu(U)·W2 and the logits
// Z = Â·P + b2.
func (e *GCN) forward() {
	e.propagate(e.u, e.q)
	if e.propagated {
		copy(e.aq.Data, e.u.Data)
	}
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ur, hr := e.u.Row(i), e.hid.Row(i)
			for j := range ur {
				ur[j] += e.b1[j]
				hr[j] = max(ur[j], 0)
			}
		}
	})
	tensor.MatMul(e.p, e.hid, e.w2, false)
	e.propagate(e.z, e.p)
	if e.propagated {
		copy(e.ap.Data, e.z.Data)
	}
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			zr := e.z.Row(i)
			for j := range zr {
				zr[j] += e.b2[j]
			}
		}
	})
}

// backward propagates G_Z (in gz) to the first layer's pre-activation and
// forms the scaled factors M' = D^{-1/2}[G_Z, G_U] and N' = D^{-1/2}[P, Q].
func (e *GCN) backward() {
	e.propagate(e.gp, e.gz)
	tensor.MatMulBT(e.gu, e.gp, e.w2, false)
	r := e.c + e.h
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ur, gr := e.u.Row(i), e.gu.Row(i)
			for j := range gr {
				if ur[j] <= 0 {
					gr[j] = 0
				}
			}
			s := e.dinv[i]
			mr, nr := e.mp.Data[i*r:(i+1)*r], e.np.Data[i*r:(i+1)*r]
			for j, v := range e.gz.Row(i) {
				mr[j] = s * v
			}
			for j, v := range gr {
				mr[e.c+j] = s * v
			}
			for j, v := range e.p.Row(i) {
				nr[j] = s * v
			}
			for j, v := range e.q.Row(i) {
				nr[e.c+j] = s * v
			}
		}
	})
}

// propagatedDegreeTerms computes γ_i = −½ d_i^{-1} (G_Z,i·(ÂP)_i +
// G_U,i·(ÂQ)_i + P_i·(ÂG_Z)_i + Q_i·(ÂG_U)_i) (GCN's doc), after backward.
func (e *GCN) propagatedDegreeTerms() {
	e.propagate(e.agu, e.gu)
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			acc := float64(tensor.Dot(e.gz.Row(i), e.ap.Row(i))) + float64(tensor.Dot(e.gu.Row(i), e.aq.Row(i))) +
				float64(tensor.Dot(e.p.Row(i), e.gp.Row(i))) + float64(tensor.Dot(e.q.Row(i), e.agu.Row(i)))
			e.gamma[i] = float32(-0.5 / e.deg[i] * acc)
		}
	})
}

// degreeTerms computes γ_i = −½ d_i^{-1} (K_i·L_i + Σ_j w_ij K_i·L_j), the
// normalisation's share of every pair gradient.
func (e *GCN) degreeTerms(w *tensor.CSR) {
	r2 := e.r2
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ki := e.kmat[i*r2 : (i+1)*r2]
			acc := float64(tensor.Dot(ki, e.lmat[i*r2:(i+1)*r2]))
			for k := w.Indptr[i]; k < w.Indptr[i+1]; k++ {
				j := int(w.Indices[k])
				if wv := w.Values[k]; wv != 0 {
					acc += float64(wv) * float64(tensor.Dot(ki, e.lmat[j*r2:(j+1)*r2]))
				}
			}
			e.gamma[i] = float32(-0.5 / e.deg[i] * acc)
		}
	})
}

// pack lays out K = [M', N'] and L = [N', M'] row-major with rows padded
// to a multiple of 16 (full vector loops in the dot products and tiles).
func (e *GCN) pack() {
	r := e.c + e.h
	r2 := (2*r + 15) / 16 * 16
	e.r2 = r2
	if len(e.kmat) != (e.n+tileRows)*r2 {
		e.kmat = make([]float32, (e.n+tileRows)*r2) // rows past n stay zero (ScanPairs tiles)
		e.lmat = make([]float32, e.n*r2)
	}
	tensor.Parallel(e.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			copy(e.kmat[i*r2:], e.mp.Row(i))
			copy(e.kmat[i*r2+r:], e.np.Row(i))
			copy(e.lmat[i*r2:], e.np.Row(i))
			copy(e.lmat[i*r2+r:], e.mp.Row(i))
		}
	})
}

// PairGrad implements Engine.
func (e *GCN) PairGrad(pairs []attack.Flip, out []float32) error {
	if !e.ready {
		return fmt.Errorf("attack: PairGrad before Evaluate with gradients")
	}
	r2 := e.r2
	tensor.Parallel(len(pairs), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			u, v := int(pairs[k].U), int(pairs[k].V)
			out[k] = tensor.Dot(e.kmat[u*r2:(u+1)*r2], e.lmat[v*r2:(v+1)*r2]) + e.gamma[u] + e.gamma[v]
		}
	})
	return nil
}

// ScanPairs implements DenseEngine: S = K·Lᵀ with K = [M', N'] and
// L = [N', M'] is formed in tileRows×tileCols register tiles over the upper
// triangle (L packed into panels once per call), then γ is added. Row
// blocks are handed out dynamically; every value is computed by the same
// tile whatever the schedule, so results do not depend on GOMAXPROCS.
func (e *GCN) ScanPairs(fn func(u int, s []float32)) {
	e.ScanPairsRaw(func(u int, s []float32, gu float32, gamma []float32) {
		for j := range s {
			s[j] += gu + gamma[u+1+j]
		}
		fn(u, s)
	})
}

// ScanPairsRaw is ScanPairs without the per-node terms: fn gets row u's
// s[j] = (K·Lᵀ)[u, u+1+j], γ_u and γ, and the gradient of the pair (u, v)
// is s[v−u−1] + (γ_u + γ_v) — the same float32 operations as ScanPairs', so
// a caller that needs a few entries of a row adds the terms to those only
// and gets ScanPairs' bits.
func (e *GCN) ScanPairsRaw(fn func(u int, s []float32, gu float32, gamma []float32)) {
	n, r2 := e.n, e.r2
	kmat := e.kmat
	panels := packPanels(e.lmat, n, r2)
	blocks := (n + tileRows - 1) / tileRows
	var next atomic.Int64
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]float32, tileRows*n)
			var t [tileRows * tileCols]float32
			for {
				b := int(next.Add(1)) - 1
				if b >= blocks {
					return
				}
				u0 := b * tileRows
				rows := min(tileRows, n-u0)
				k := kmat[u0*r2 : (u0+tileRows)*r2]
				for p := (u0 + 1) / tileCols; p*tileCols < n; p++ {
					tile(&t, k, panels[p*r2*tileCols:(p+1)*r2*tileCols], r2)
					c0 := p * tileCols
					w := min(tileCols, n-c0)
					for i := 0; i < rows; i++ {
						copy(buf[i*n+c0:i*n+c0+w], t[i*tileCols:i*tileCols+w])
					}
				}
				for i := 0; i < rows; i++ {
					u := u0 + i
					fn(u, buf[i*n+u+1:(i+1)*n], e.gamma[u], e.gamma)
				}
			}
		}()
	}
	wg.Wait()
}
