package metattack

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rgnn/rgnn/tensor"
)

// dense helpers on row-major float64 slices.

// spmmA returns Â·x for x n×k.
func (s *surrogate) spmmA(x []float64, k int) []float64 {
	out := make([]float64, s.n*k)
	a := s.atil
	tensor.Parallel(s.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := out[i*k : (i+1)*k]
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				v, j := s.ahat[p], int(a.Indices[p])
				xj := x[j*k : (j+1)*k]
				for c := range o {
					o[c] += v * xj[c]
				}
			}
		}
	})
	return out
}

// csrMul returns m·w for sparse m (r×q) and dense w (q×k).
func csrMul(m *tensor.CSR, w []float64, k int) []float64 {
	out := make([]float64, m.Rows*k)
	tensor.Parallel(m.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := out[i*k : (i+1)*k]
			for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
				v, j := float64(m.Values[p]), int(m.Indices[p])
				wj := w[j*k : (j+1)*k]
				for c := range o {
					o[c] += v * wj[c]
				}
			}
		}
	})
	return out
}

// mul returns a (r×q) · b (q×k).
func mul(a, b []float64, r, q, k int) []float64 {
	out := make([]float64, r*k)
	for i := range r {
		o := out[i*k : (i+1)*k]
		for l := range q {
			v := a[i*q+l]
			if v == 0 {
				continue
			}
			bl := b[l*k : (l+1)*k]
			for c := range o {
				o[c] += v * bl[c]
			}
		}
	}
	return out
}

// mulBT returns a (r×q) · bᵀ for b (k×q).
func mulBT(a, b []float64, r, q, k int) []float64 {
	out := make([]float64, r*k)
	for i := range r {
		ai := a[i*q : (i+1)*q]
		for j := range k {
			bj := b[j*q : (j+1)*q]
			var sum float64
			for l := range q {
				sum += ai[l] * bj[l]
			}
			out[i*k+j] = sum
		}
	}
	return out
}

// mulAT returns aᵀ·b for a (r×q), b (r×k): q×k, summed over rows in order.
func mulAT(a, b []float64, r, q, k int) []float64 {
	out := make([]float64, q*k)
	for i := range r {
		bi := b[i*k : (i+1)*k]
		for l := range q {
			v := a[i*q+l]
			if v == 0 {
				continue
			}
			o := out[l*k : (l+1)*k]
			for c := range o {
				o[c] += v * bi[c]
			}
		}
	}
	return out
}

func addTo(dst, src []float64) {
	for i := range dst {
		dst[i] += src[i]
	}
}

// fwd holds the intermediates of one forward pass.
type fwd struct {
	nn, hh, m, o, p []float64 // N = XW1, H = ÂN, M = HW2, O = ÂM, P = softmax(O)
}

func (s *surrogate) forward(w1, w2 []float64) *fwd {
	f := &fwd{}
	f.nn = csrMul(s.p.X, w1, s.h)
	f.hh = s.spmmA(f.nn, s.h)
	f.m = mul(f.hh, w2, s.n, s.h, s.c)
	f.o = s.spmmA(f.m, s.c)
	f.p = make([]float64, s.n*s.c)
	for i := range s.n {
		row, pr := f.o[i*s.c:(i+1)*s.c], f.p[i*s.c:(i+1)*s.c]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, v)
		}
		var z float64
		for c, v := range row {
			pr[c] = math.Exp(v - mx)
			z += pr[c]
		}
		for c := range pr {
			pr[c] /= z
		}
	}
	return f
}

// ceGrad returns ∂CE/∂O = (P − onehot(y))/|mask| on the masked rows, and
// the loss.
func (s *surrogate) ceGrad(f *fwd, y []int32, mask []bool) ([]float64, float64) {
	cnt := 0
	for _, m := range mask {
		if m {
			cnt++
		}
	}
	g := make([]float64, s.n*s.c)
	var loss float64
	for i, m := range mask {
		if !m {
			continue
		}
		for c := range s.c {
			g[i*s.c+c] = f.p[i*s.c+c] / float64(cnt)
		}
		g[i*s.c+int(y[i])] -= 1 / float64(cnt)
		loss -= math.Log(max(f.p[i*s.c+int(y[i])], 1e-300))
	}
	return g, loss / float64(cnt)
}

// trainGrad is the gradient of the training loss at f: returns the
// intermediates dO, E = Â·dO, dH = E·W2ᵀ and gW1, gW2.
type tgrad struct{ dO, e, dH, g1, g2 []float64 }

func (s *surrogate) trainGrad(f *fwd, w2 []float64) *tgrad {
	t := &tgrad{}
	t.dO, _ = s.ceGrad(f, s.p.Labels, s.trainM)
	t.e = s.spmmA(t.dO, s.c)
	t.g2 = mulAT(f.hh, t.e, s.n, s.h, s.c)
	t.dH = mulBT(t.e, w2, s.n, s.c, s.h)
	ff := s.spmmA(t.dH, s.h)
	t.g1 = csrMul(s.xT, ff, s.h)
	return t
}

// addFactor records Ā += l·rᵀ for l, r n×k.
func (s *surrogate) addFactor(l, r []float64, k int) {
	for c := range k {
		for i := range s.n {
			s.lf = append(s.lf, float32(l[i*k+c]))
		}
		for i := range s.n {
			s.rf = append(s.rf, float32(r[i*k+c]))
		}
	}
	s.rank += k
}

// attackBackward differentiates the attack loss at f, records its Ā
// factors and returns ∂/∂W1, ∂/∂W2 and the loss.
func (s *surrogate) attackBackward(f *fwd, w2 []float64) ([]float64, []float64, float64) {
	ob, loss := s.ceGrad(f, s.p.SelfLabels, s.unlM)
	s.addFactor(ob, f.m, s.c)
	mb := s.spmmA(ob, s.c)
	w2b := mulAT(f.hh, mb, s.n, s.h, s.c)
	hb := mulBT(mb, w2, s.n, s.c, s.h)
	s.addFactor(hb, f.nn, s.h)
	nb := s.spmmA(hb, s.h)
	return csrMul(s.xT, nb, s.h), w2b, loss
}

// metaGrad returns the dense n×n gradient Ā of the attack loss with
// respect to Â (row-major float32).
func (s *surrogate) metaGrad(o Options) []float32 {
	s.lf, s.rf, s.rank = s.lf[:0], s.rf[:0], 0
	nt := len(s.p.Train)
	s.abarT = make([]float64, s.n*nt)
	s.kT = make([]float64, s.n*nt)
	if o.Variant == Approx {
		s.approx(o)
	} else {
		s.unrolled(o)
	}
	return s.assemble()
}

// approx: MetaApprox, Adam on the training loss, Σ_t ∂L_attack/∂Â at W_t.
func (s *surrogate) approx(o Options) {
	w := [2][]float64{s.w1, s.w2}
	m := [2][]float64{make([]float64, len(s.w1)), make([]float64, len(s.w2))}
	v := [2][]float64{make([]float64, len(s.w1)), make([]float64, len(s.w2))}
	const b1, b2, eps = 0.9, 0.999, 1e-8
	for t := 1; t <= o.TrainIters; t++ {
		f := s.forward(w[0], w[1])
		tg := s.trainGrad(f, w[1])
		s.attackBackward(f, w[1])
		g := [2][]float64{tg.g1, tg.g2}
		c1, c2 := 1-math.Pow(b1, float64(t)), 1-math.Pow(b2, float64(t))
		for k := range w {
			for i := range w[k] {
				m[k][i] = b1*m[k][i] + (1-b1)*g[k][i]
				v[k][i] = b2*v[k][i] + (1-b2)*g[k][i]*g[k][i]
				w[k][i] -= o.LR * (m[k][i] / c1) / (math.Sqrt(v[k][i]/c2) + eps)
			}
		}
	}
	if o.TrainIters == 0 {
		s.attackBackward(s.forward(w[0], w[1]), w[1])
	}
}

// trainSGD runs the inner training (SGD with momentum) and returns the
// final W1 (as a one-element slice), the W2 trajectory W2_0..W2_T, and the
// forward intermediates of every step.
func (s *surrogate) trainSGD(o Options) (w1s, w2s [][]float64, fs []*fwd, tgs []*tgrad) {
	w1, w2 := append([]float64(nil), s.w1...), append([]float64(nil), s.w2...)
	v1, v2 := make([]float64, len(w1)), make([]float64, len(w2))
	for range o.TrainIters {
		w2s = append(w2s, append([]float64(nil), w2...)) // W1_t is not needed by the reverse pass
		f := s.forward(w1, w2)
		tg := s.trainGrad(f, w2)
		fs, tgs = append(fs, f), append(tgs, tg)
		for i := range w1 {
			v1[i] = o.Momentum*v1[i] + tg.g1[i]
			w1[i] -= o.LR * v1[i]
		}
		for i := range w2 {
			v2[i] = o.Momentum*v2[i] + tg.g2[i]
			w2[i] -= o.LR * v2[i]
		}
		f.o, tg.g1, tg.g2, tg.dH = nil, nil, nil, nil // not needed by the reverse pass
	}
	return append(w1s, w1), append(w2s, w2), fs, tgs
}

// attackLoss trains and returns the attack loss (for finite differences).
func (s *surrogate) attackLoss(o Options) float64 {
	w1s, w2s, _, _ := s.trainSGD(o)
	f := s.forward(w1s[len(w1s)-1], w2s[len(w2s)-1])
	_, loss := s.ceGrad(f, s.p.SelfLabels, s.unlM)
	return loss
}

// unrolled: Meta-Self, reverse mode through the SGD-with-momentum steps.
func (s *surrogate) unrolled(o Options) {
	w1s, w2s, fs, tgs := s.trainSGD(o)
	T := o.TrainIters
	wb1, wb2, _ := s.attackBackward(s.forward(w1s[len(w1s)-1], w2s[T]), w2s[T])
	c1, c2 := make([]float64, len(wb1)), make([]float64, len(wb2)) // μ·Ṽ_{t+2}
	nt := len(s.p.Train)
	for t := T - 1; t >= 0; t-- {
		w2 := w2s[t]
		v1 := make([]float64, len(wb1))
		v2 := make([]float64, len(wb2))
		for i := range v1 {
			v1[i] = -o.LR*wb1[i] + c1[i]
		}
		for i := range v2 {
			v2[i] = -o.LR*wb2[i] + c2[i]
		}
		// VJP of g(W1, W2, Â) = (gW1, gW2) with cotangent (v1, v2).
		f, tg := fs[t], tgs[t] // intermediates kept from the forward training
		fs[t], tgs[t] = nil, nil
		fb := csrMul(s.p.X, v1, s.h)                // F̄ = X·Ṽ1
		q := mul(fb, w2, s.n, s.h, s.c)             // F̄·W2: Ā += (F̄W2)·dOᵀ·Â
		dhb := s.spmmA(fb, s.h)                     // dH̄ = Â·F̄
		eb := mul(dhb, w2, s.n, s.h, s.c)           // Ē = dH̄·W2
		addTo(wb2, mulAT(dhb, tg.e, s.n, s.h, s.c)) // W̄2 += dH̄ᵀ·E
		hb := mulBT(tg.e, v2, s.n, s.c, s.h)        // H̄ = E·Ṽ2ᵀ
		addTo(eb, mul(f.hh, v2, s.n, s.h, s.c))     // Ē += H·Ṽ2
		for ti, tr := range s.p.Train {             // Ā(:, T) += Ē·dO[T]ᵀ, kT += (F̄W2)·dO[T]ᵀ
			d := tg.dO[tr*s.c : (tr+1)*s.c]
			for i := range s.n {
				var a, b float64
				for c := range s.c {
					a += eb[i*s.c+c] * d[c]
					b += q[i*s.c+c] * d[c]
				}
				s.abarT[i*nt+ti] += a
				s.kT[i*nt+ti] += b
			}
		}
		dob := s.spmmA(eb, s.c) // dŌ = Â·Ē
		cnt := float64(nt)
		ob := make([]float64, s.n*s.c)
		for _, i := range s.p.Train {
			pr := f.p[i*s.c : (i+1)*s.c]
			var dot float64
			for c := range s.c {
				dot += dob[i*s.c+c] / cnt * pr[c]
			}
			for c := range s.c {
				ob[i*s.c+c] = pr[c] * (dob[i*s.c+c]/cnt - dot)
			}
		}
		s.addFactor(ob, f.m, s.c)
		mb := s.spmmA(ob, s.c)
		addTo(hb, mulBT(mb, w2, s.n, s.c, s.h))
		addTo(wb2, mulAT(f.hh, mb, s.n, s.h, s.c))
		s.addFactor(hb, f.nn, s.h)
		nb := s.spmmA(hb, s.h)
		addTo(wb1, csrMul(s.xT, nb, s.h))
		for i := range v1 {
			c1[i] = o.Momentum * v1[i]
		}
		for i := range v2 {
			c2[i] = o.Momentum * v2[i]
		}
	}
}

// assemble returns Ā = Σ lf·rfᵀ + abarT (columns T) + kT·Â[T,:].
func (s *surrogate) assemble() []float32 {
	n := s.n
	abar := make([]float32, n*n)
	switch {
	case s.rank == 0:
	case useTiled:
		tiledGemm(abar, s.lf, s.rf, n, s.rank)
	default:
		a := blas32.General{Rows: s.rank, Cols: n, Stride: n, Data: s.lf}
		b := blas32.General{Rows: s.rank, Cols: n, Stride: n, Data: s.rf}
		c := blas32.General{Rows: n, Cols: n, Stride: n, Data: abar}
		blas32.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, c)
	}
	nt := len(s.p.Train)
	a := s.atil
	tensor.Parallel(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := abar[i*n : (i+1)*n]
			for ti, tr := range s.p.Train {
				row[tr] += float32(s.abarT[i*nt+ti])
				k := s.kT[i*nt+ti]
				if k == 0 {
					continue
				}
				for p := a.Indptr[tr]; p < a.Indptr[tr+1]; p++ {
					row[a.Indices[p]] += float32(k * s.ahat[p])
				}
			}
		}
	})
	return abar
}

// pairGrad chains Ā through Â = D^{-1/2}(A+I)D^{-1/2} (row degrees) and
// the symmetric parametrisation: g_ij = ∂L/∂A_ij + ∂L/∂A_ji for i ≠ j,
// returned as a dense n×n float32 (upper triangle filled).
func (s *surrogate) pairGrad(abar []float32) []float32 {
	n := s.n
	a := s.atil
	db := make([]float64, n)
	for k := range n {
		var sb float64
		for p := a.Indptr[k]; p < a.Indptr[k+1]; p++ {
			l := int(a.Indices[p])
			sb += (float64(abar[k*n+l]) + float64(abar[l*n+k])) * float64(a.Values[p]) * s.sq[l]
		}
		db[k] = -0.5 * math.Pow(s.dg[k], -1.5) * sb
	}
	g := make([]float32, n*n)
	tensor.Parallel(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := i + 1; j < n; j++ {
				g[i*n+j] = float32(s.sq[i]*s.sq[j]*(float64(abar[i*n+j])+float64(abar[j*n+i])) + db[i] + db[j])
			}
		}
	})
	return g
}

// tiledGemm computes out = lfᵀ·rf (lf, rf r×n row-major) with
// tensor.GemmSmall on 32-row blocks × 128-column panels (packed once), in
// parallel over row blocks. With GOEXPERIMENT=simd this is about 3× faster
// than gonum's Sgemm on this machine (BenchmarkAssembleGEMM).
func tiledGemm(out, lf, rf []float32, n, r int) {
	const w = 128
	at := make([]float32, n*r)
	for k := range r {
		for i := range n {
			at[i*r+k] = lf[k*n+i]
		}
	}
	np := (n + w - 1) / w
	panels := make([]float32, np*r*w)
	for p := range np {
		pn := panels[p*r*w : (p+1)*r*w]
		for k := range r {
			for j := 0; j < w && p*w+j < n; j++ {
				pn[k*w+j] = rf[k*n+p*w+j]
			}
		}
	}
	const mb = 32
	tensor.ParallelChunks((n+mb-1)/mb, 1, func(lo, hi int) {
		tile := make([]float32, mb*w)
		for blk := lo; blk < hi; blk++ {
			i0 := blk * mb
			m := min(mb, n-i0)
			for p := range np {
				tensor.GemmSmall(tile, at[i0*r:(i0+m)*r], panels[p*r*w:(p+1)*r*w], m, r, w, false)
				for i := range m {
					j0 := p * w
					copy(out[(i0+i)*n+j0:(i0+i)*n+min(j0+w, n)], tile[i*w:i*w+min(w, n-j0)])
				}
			}
		}
	})
}
