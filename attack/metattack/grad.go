package metattack

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rgnn/rgnn/tensor"
)

// dense helpers on row-major float64 slices.

// spmm64 returns m·x for the sparse m (r×q) with the float64 values vals
// (on m's structure) and x dense q×k, in parallel over rows; rows of width
// 16 use rowMul16.
func (s *surrogate) spmm64(m *tensor.CSR, vals, x []float64, k int) []float64 {
	out := s.buf(m.Rows * k)
	tensor.Parallel(m.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := out[i*k : (i+1)*k]
			if k == 16 && rowMul16(o, vals[m.Indptr[i]:m.Indptr[i+1]], m.Indices[m.Indptr[i]:m.Indptr[i+1]], x) {
				continue
			}
			for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
				v, j := vals[p], int(m.Indices[p])
				xj := x[j*k : (j+1)*k]
				for c := range o {
					o[c] += v * xj[c]
				}
			}
		}
	})
	return out
}

// spmmA returns Â·x for x n×k.
func (s *surrogate) spmmA(x []float64, k int) []float64 {
	return s.spmm64(s.atil, s.ahat, x, k)
}

// mul returns a (r×q) · b (q×k), in parallel over rows.
func (s *surrogate) mul(a, b []float64, r, q, k int) []float64 {
	out := s.buf(r * k)
	tensor.Parallel(r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
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
	})
	return out
}

// mulBT returns a (r×q) · bᵀ for b (k×q), in parallel over rows.
func (s *surrogate) mulBT(a, b []float64, r, q, k int) []float64 {
	out := s.buf(r * k)
	tensor.Parallel(r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
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
	})
	return out
}

// mulAT returns aᵀ·b for a (r×q), b (r×k): q×k. Rows are summed in fixed
// blocks of 512 (in parallel), then the blocks in order: the same bits
// whatever GOMAXPROCS.
func (s *surrogate) mulAT(a, b []float64, r, q, k int) []float64 {
	const blk = 512
	nb := (r + blk - 1) / blk
	part := s.buf(nb * q * k)
	tensor.ParallelChunks(nb, 1, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			pp := part[bi*q*k : (bi+1)*q*k]
			for i := bi * blk; i < min(r, (bi+1)*blk); i++ {
				br := b[i*k : (i+1)*k]
				for l := range q {
					v := a[i*q+l]
					if v == 0 {
						continue
					}
					o := pp[l*k : (l+1)*k]
					for c := range o {
						o[c] += v * br[c]
					}
				}
			}
		}
	})
	out := s.buf(q * k)
	for bi := range nb {
		addTo(out, part[bi*q*k:(bi+1)*q*k])
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
	f.nn = s.spmm64(s.p.Features, s.ws.xv, w1, s.h)
	f.hh = s.spmmA(f.nn, s.h)
	f.m = s.mul(f.hh, w2, s.n, s.h, s.c)
	f.o = s.spmmA(f.m, s.c)
	f.p = s.buf(s.n * s.c)
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
	g := s.buf(s.n * s.c)
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

// tgrad holds the gradient of the training loss at a forward pass: the
// intermediates dO, E = Â·dO, dH = E·W2ᵀ and gW1, gW2.
type tgrad struct{ dO, e, dH, g1, g2 []float64 }

// trainGrad returns the gradient of the training loss at f.
func (s *surrogate) trainGrad(f *fwd, w2 []float64) *tgrad {
	t := s.trainErr(f)
	s.paramGrads(f, t, w2)
	return t
}

// trainErr returns a tgrad with only dO and E set (what Meta-Self's reverse
// pass keeps of each step).
func (s *surrogate) trainErr(f *fwd) *tgrad {
	t := &tgrad{}
	t.dO, _ = s.ceGrad(f, s.p.Labels, s.trainM)
	t.e = s.spmmA(t.dO, s.c)
	return t
}

// paramGrads sets t.g2, t.dH and t.g1 from t.e.
func (s *surrogate) paramGrads(f *fwd, t *tgrad, w2 []float64) {
	t.g2 = s.mulAT(f.hh, t.e, s.n, s.h, s.c)
	t.dH = s.mulBT(t.e, w2, s.n, s.c, s.h)
	ff := s.spmmA(t.dH, s.h)
	t.g1 = s.spmm64(s.xT, s.ws.xTv, ff, s.h)
}

// addFactor records Ā += l·rᵀ for l, r n×k (MetaApprox: explicit factors).
func (s *surrogate) addFactor(l, r []float64, k int) {
	w := s.ws
	for c := range k {
		for i := range s.n {
			w.lf = append(w.lf, float32(l[i*k+c]))
		}
		for i := range s.n {
			w.rf = append(w.rf, float32(r[i*k+c]))
		}
	}
	s.rank += k
}

// factors records the Ā terms hb·Nᵀ + ob·Mᵀ of one step, where N = X·W1
// and M = Â·N·W2 are the step's forward intermediates. Meta-Self stores
// only the left parts in the low-rank stacks (slot = step); MetaApprox
// stores explicit factors.
func (s *surrogate) factors(hb, ob []float64, f *fwd, w2 []float64, slot int) {
	if s.lr == nil {
		s.addFactor(ob, f.m, s.c)
		s.addFactor(hb, f.nn, s.h)
		return
	}
	s.lr.record(s, hb, ob, w2, slot)
}

// attackBackward differentiates the attack loss at f, records its Ā
// factors and returns ∂/∂W1, ∂/∂W2 and the loss.
func (s *surrogate) attackBackward(f *fwd, w2 []float64, slot int) ([]float64, []float64, float64) {
	ob, loss := s.ceGrad(f, s.self, s.unlM)
	mb := s.spmmA(ob, s.c)
	w2b := s.mulAT(f.hh, mb, s.n, s.h, s.c)
	hb := s.mulBT(mb, w2, s.n, s.c, s.h)
	s.factors(hb, ob, f, w2, slot)
	nb := s.spmmA(hb, s.h)
	return s.spmm64(s.xT, s.ws.xTv, nb, s.h), w2b, loss
}

// metaGrad returns the dense n×n gradient Ā of the attack loss with
// respect to Â (row-major float32, owned by the workspace).
func (s *surrogate) metaGrad(o Options) []float32 {
	s.ws.lf, s.ws.rf, s.rank = s.ws.lf[:0], s.ws.rf[:0], 0
	if o.Variant == Approx {
		s.approx(o)
		return s.assemble()
	}
	s.unrolled(o)
	return s.assembleLowRank()
}

// approx: MetaApprox, Adam on the training loss, Σ_t ∂L_attack/∂Â at W_t.
func (s *surrogate) approx(o Options) {
	w := [2][]float64{s.w1, s.w2}
	m := [2][]float64{s.buf(len(s.w1)), s.buf(len(s.w2))}
	v := [2][]float64{s.buf(len(s.w1)), s.buf(len(s.w2))}
	const b1, b2, eps = 0.9, 0.999, 1e-8
	for t := 1; t <= o.TrainIters; t++ {
		mk := s.ws.ar.mark() // this step's intermediates are freed at its end
		f := s.forward(w[0], w[1])
		tg := s.trainGrad(f, w[1])
		s.attackBackward(f, w[1], t)
		g := [2][]float64{tg.g1, tg.g2}
		c1, c2 := 1-math.Pow(b1, float64(t)), 1-math.Pow(b2, float64(t))
		for k := range w {
			for i := range w[k] {
				m[k][i] = b1*m[k][i] + (1-b1)*g[k][i]
				v[k][i] = b2*v[k][i] + (1-b2)*g[k][i]*g[k][i]
				w[k][i] -= o.LR * (m[k][i] / c1) / (math.Sqrt(v[k][i]/c2) + eps)
			}
		}
		s.ws.ar.release(mk)
	}
	if o.TrainIters == 0 {
		s.attackBackward(s.forward(w[0], w[1]), w[1], 0)
	}
}

// trainSGD runs the inner training (SGD with momentum) and returns the
// final W1, the W2 trajectory W2_0..W2_T, the forward intermediates of
// every step and C_0..C_T, the coordinates of W1_t = W1_0 + G·C_t with
// G = Xᵀ·Â²·E_T (every gradient of W1 is G·dO[T]·W2ᵀ, dO being zero off
// the training nodes), so that N_t = X·W1_t = X·W1_0 + (X·G)·C_t. Of each
// step's training gradient only dO and E are kept (the reverse pass needs
// no more): gW1, gW2 and their intermediates are freed after the update.
func (s *surrogate) trainSGD(o Options) (w1 []float64, w2s [][]float64, fs []*fwd, tgs []*tgrad, cs [][]float64) {
	w1 = s.buf(len(s.w1))
	copy(w1, s.w1)
	w2 := s.buf(len(s.w2))
	copy(w2, s.w2)
	v1, v2 := s.buf(len(w1)), s.buf(len(w2))
	nt, h, c := len(s.p.Train), s.h, s.c
	cc, vc := s.buf(nt*h), s.buf(nt*h)
	for range o.TrainIters {
		w2c := s.buf(len(w2))
		copy(w2c, w2)
		w2s = append(w2s, w2c) // W1_t is not needed by the reverse pass
		ct := s.buf(len(cc))
		copy(ct, cc)
		cs = append(cs, ct)
		f := s.forward(w1, w2)
		tg := s.trainErr(f)
		fs, tgs = append(fs, f), append(tgs, tg)
		mk := s.ws.ar.mark()
		s.paramGrads(f, tg, w2)
		for i := range w1 {
			v1[i] = o.Momentum*v1[i] + tg.g1[i]
			w1[i] -= o.LR * v1[i]
		}
		for i := range w2 {
			v2[i] = o.Momentum*v2[i] + tg.g2[i]
			w2[i] -= o.LR * v2[i]
		}
		s.ws.ar.release(mk)
		tg.g1, tg.g2, tg.dH = nil, nil, nil
		for ti, tr := range s.p.Train { // a = dO[T]·W2ᵀ (with the W2 of this step)
			d := tg.dO[tr*c : (tr+1)*c]
			for k := range h {
				var a float64
				for q := range c {
					a += d[q] * w2c[k*c+q]
				}
				vc[ti*h+k] = o.Momentum*vc[ti*h+k] + a
				cc[ti*h+k] -= o.LR * vc[ti*h+k]
			}
		}
	}
	return w1, append(w2s, w2), fs, tgs, append(cs, cc)
}

// attackLoss trains and returns the attack loss (for finite differences).
func (s *surrogate) attackLoss(o Options) float64 {
	w1, w2s, _, _, _ := s.trainSGD(o)
	f := s.forward(w1, w2s[len(w2s)-1])
	_, loss := s.ceGrad(f, s.self, s.unlM)
	return loss
}

// unrolled: Meta-Self, reverse mode through the SGD-with-momentum steps.
func (s *surrogate) unrolled(o Options) {
	w1, w2s, fs, tgs, cs := s.trainSGD(o)
	T := o.TrainIters
	var n0 []float64 // X·W1_0: the first step's forward pass has it
	if T > 0 {
		n0 = fs[0].nn
	}
	s.lr = newLowRank(s, cs, n0)
	wb1, wb2, _ := s.attackBackward(s.forward(w1, w2s[T]), w2s[T], T)
	c1, c2 := s.buf(len(wb1)), s.buf(len(wb2)) // μ·Ṽ_{t+2}
	nt := len(s.p.Train)
	v1, v2 := s.buf(len(wb1)), s.buf(len(wb2))
	for t := T - 1; t >= 0; t-- {
		mk := s.ws.ar.mark() // this step's temporaries are freed at its end
		w2 := w2s[t]
		for i := range v1 {
			v1[i] = -o.LR*wb1[i] + c1[i]
		}
		for i := range v2 {
			v2[i] = -o.LR*wb2[i] + c2[i]
		}
		// VJP of g(W1, W2, Â) = (gW1, gW2) with cotangent (v1, v2).
		f, tg := fs[t], tgs[t]                         // intermediates kept from the forward training
		fb := s.spmm64(s.p.Features, s.ws.xv, v1, s.h) // F̄ = X·Ṽ1
		q := s.mul(fb, w2, s.n, s.h, s.c)              // F̄·W2: Ā += (F̄W2)·dOᵀ·Â
		dhb := s.spmmA(fb, s.h)                        // dH̄ = Â·F̄
		eb := s.mul(dhb, w2, s.n, s.h, s.c)            // Ē = dH̄·W2
		addTo(wb2, s.mulAT(dhb, tg.e, s.n, s.h, s.c))  // W̄2 += dH̄ᵀ·E
		hb := s.mulBT(tg.e, v2, s.n, s.c, s.h)         // H̄ = E·Ṽ2ᵀ
		addTo(eb, s.mul(f.hh, v2, s.n, s.h, s.c))      // Ē += H·Ṽ2
		// Ā(:, T) += Ē·dO[T]ᵀ, kT += (F̄W2)·dO[T]ᵀ: stacked, one GEMM at the end.
		s.lr.recordT(s, eb, q, tg.dO, t)
		dob := s.spmmA(eb, s.c) // dŌ = Â·Ē
		cnt := float64(nt)
		ob := s.buf(s.n * s.c)
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
		mb := s.spmmA(ob, s.c)
		addTo(hb, s.mulBT(mb, w2, s.n, s.c, s.h))
		addTo(wb2, s.mulAT(f.hh, mb, s.n, s.h, s.c))
		s.factors(hb, ob, f, w2, t)
		nb := s.spmmA(hb, s.h)
		addTo(wb1, s.spmm64(s.xT, s.ws.xTv, nb, s.h))
		for i := range v1 {
			c1[i] = o.Momentum * v1[i]
		}
		for i := range v2 {
			c2[i] = o.Momentum * v2[i]
		}
		s.ws.ar.release(mk)
	}
}

// assemble returns Ā = Σ lf·rfᵀ (MetaApprox).
func (s *surrogate) assemble() []float32 {
	n := s.n
	abar := grow32(&s.ws.abar, n*n)
	switch {
	case s.rank == 0:
		clear(abar)
	case useTiled:
		tiledGemm(abar, s.ws.lf, s.ws.rf, n, s.rank)
	default:
		a := blas32.General{Rows: s.rank, Cols: n, Stride: n, Data: s.ws.lf}
		b := blas32.General{Rows: s.rank, Cols: n, Stride: n, Data: s.ws.rf}
		c := blas32.General{Rows: n, Cols: n, Stride: n, Data: abar}
		blas32.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, c)
	}
	return abar
}

// pairGrad chains Ā through Â = D^{-1/2}(A+I)D^{-1/2} (row degrees) and
// the symmetric parametrisation: g_ij = ∂L/∂A_ij + ∂L/∂A_ji for i ≠ j,
// returned as a dense n×n float32 (upper triangle filled; owned by the
// workspace).
func (s *surrogate) pairGrad(abar []float32) []float32 {
	n := s.n
	a := s.atil
	db := s.buf(n)
	for k := range n {
		var sb float64
		for p := a.Indptr[k]; p < a.Indptr[k+1]; p++ {
			l := int(a.Indices[p])
			sb += (float64(abar[k*n+l]) + float64(abar[l*n+k])) * float64(a.Values[p]) * s.sq[l]
		}
		db[k] = -0.5 * math.Pow(s.dg[k], -1.5) * sb
	}
	g := grow32(&s.ws.g, n*n)
	tensor.ParallelChunks(n, 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			gi, ai := g[i*n:(i+1)*n], abar[i*n:(i+1)*n]
			si, di := s.sq[i], db[i]
			for j := i + 1; j < n; j++ {
				gi[j] = float32(si*s.sq[j]*(float64(ai[j])+float64(abar[j*n+i])) + di + db[j])
			}
		}
	})
	return g
}

// tiledGemm computes out = lfᵀ·rf (lf, rf r×n row-major); see tiledGemmAT.
func tiledGemm(out, lf, rf []float32, n, r int) {
	at := make([]float32, n*r)
	for k := range r {
		for i := range n {
			at[i*r+k] = lf[k*n+i]
		}
	}
	tiledGemmAT(out, at, rf, n, r)
}

// tiledGemmAT computes out = at·rf (at n×r, rf r×n row-major) with
// tensor.GemmSmall on 32-row blocks × 128-column panels (packed once), in
// parallel over row blocks. With the AVX2 kernels this is about 3× faster
// than gonum's Sgemm on this machine (BenchmarkAssembleGEMM).
func tiledGemmAT(out, at, rf []float32, n, r int) {
	const w = 128
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

// gemmRows computes out = a·b (out m×w, a m×k, b k×w, row-major float32;
// w a multiple of 32 for the SIMD kernel) in parallel over 32-row blocks.
func gemmRows(out, a, b []float32, m, k, w int) {
	if k == 0 {
		clear(out[:m*w])
		return
	}
	const mb = 32
	tensor.ParallelChunks((m+mb-1)/mb, 1, func(lo, hi int) {
		for blk := lo; blk < hi; blk++ {
			i0 := blk * mb
			r := min(mb, m-i0)
			tensor.GemmSmall(out[i0*w:(i0+r)*w], a[i0*k:(i0+r)*k], b, r, k, w, false)
		}
	})
}

// grow32 returns (*buf)[:k], zeroed, reallocating only when it is too small.
func grow32(buf *[]float32, k int) []float32 {
	if cap(*buf) < k {
		*buf = make([]float32, k)
	}
	*buf = (*buf)[:k]
	clear(*buf)
	return *buf
}
