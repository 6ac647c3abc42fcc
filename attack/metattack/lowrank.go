package metattack

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rgnn/rgnn/tensor"
)

// Low-rank assembly of Meta-Self's meta-gradient.
//
// Ā = Σ_t hb_t·N_tᵀ + ob_t·M_tᵀ + (column-T corrections) over the S = T+1
// recorded steps, with N_t = X·W1_t and M_t = Â·N_t·W2_t. Every SGD update
// of W1 is G·(dO[T]·W2ᵀ) with G = Xᵀ·Â²·E_T (the training loss only sees
// the |T| labelled rows), so N_t = B·β_t with the fixed basis
// B = [X·W1_0 | X·G] (n × (h+|T|)) and β_t = [I_h; C_t] (trainSGD tracks
// C_t), and M_t = (Â·B)·β_t·W2_t. Hence
//
//	Ā = (Σ_t hb_t·β_tᵀ)·Bᵀ + (Σ_t ob_t·W2_tᵀ·β_tᵀ)·(Â·B)ᵀ + corrections,
//
// one n×n GEMM of inner dimension 2·(h+|T|) (cora_ml: 312) instead of
// S·(h+C) (2323). The left sums are two GEMMs of the stacked per-step
// left factors (n × S·h) with the stacked β (S·h × (h+|T|)).
type lowRank struct {
	s          int       // recorded steps T+1
	wp         int       // h+|T| rounded up to a multiple of 32 (SIMD kernel)
	ho         []float32 // [2][S][n][h]: hb_t and ob_t·W2_tᵀ
	bt         []float32 // S·h × wp: row t·h+k = [e_k | C_t[:,k] | 0]
	basis      []float64 // B, n × (h+|T|)
	ntp        int       // |T| rounded up to 32
	eq, ds     []float32 // corrections: [Ē_t; F̄_t·W2_t] stacks (2n × T·C), dO_t[T] stacks (T·C × ntp)
	corrRounds int
}

func roundUp32(k int) int { return (k + 31) &^ 31 }

// newLowRank builds the basis and the stacked β from C_0..C_T; n0 is
// X·W1_0 if the caller has it (nil: computed here).
func newLowRank(s *surrogate, cs [][]float64, n0 []float64) *lowRank {
	n, h, nt, c := s.n, s.h, len(s.p.Train), s.c
	S := len(cs)
	T := S - 1
	l := &lowRank{s: S, wp: roundUp32(h + nt), ntp: roundUp32(nt), corrRounds: T}
	w := s.ws
	l.ho = grow32(&w.ho, 2*n*S*h)
	l.bt = grow32(&w.bt, S*h*l.wp)
	for t, ct := range cs {
		for k := range h {
			row := l.bt[(t*h+k)*l.wp:]
			row[k] = 1
			for j := range nt {
				row[h+j] = float32(ct[j*h+k])
			}
		}
	}
	l.eq = grow32(&w.eq, 2*n*T*c)
	l.ds = grow32(&w.ds, T*c*l.ntp)
	// B = [X·W1_0 | X·Xᵀ·Â²·E_T]
	e := s.buf(n * nt)
	for j, tr := range s.p.Train {
		e[tr*nt+j] = 1
	}
	z := s.spmmA(s.spmmA(e, nt), nt)
	xg := s.spmm64(s.p.Features, s.ws.xv, s.spmm64(s.xT, s.ws.xTv, z, nt), nt)
	if n0 == nil {
		n0 = s.spmm64(s.p.Features, s.ws.xv, s.w1, h)
	}
	k := h + nt
	l.basis = s.buf(n * k)
	for i := range n {
		copy(l.basis[i*k:], n0[i*h:(i+1)*h])
		copy(l.basis[i*k+h:], xg[i*nt:(i+1)*nt])
	}
	return l
}

// record stores hb (n×h) and ob·W2ᵀ (n×h) of step slot, each as a
// contiguous n×h block (ho: [2][S][n][h]).
func (l *lowRank) record(s *surrogate, hb, ob, w2 []float64, slot int) {
	n, h, c, S := s.n, s.h, s.c, l.s
	dh := l.ho[slot*n*h : (slot+1)*n*h]
	do := l.ho[(S+slot)*n*h : (S+slot+1)*n*h]
	for i, v := range hb[:n*h] {
		dh[i] = float32(v)
	}
	tensor.Parallel(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			oi := ob[i*c : (i+1)*c]
			for k := range h {
				wk := w2[k*c : (k+1)*c]
				var a float64
				for q, v := range oi {
					a += v * wk[q]
				}
				do[i*h+k] = float32(a)
			}
		}
	})
}

// recordT stores Ē, F̄·W2 (n×C) and dO[T] of reverse step t for the
// column-T corrections Ā(:, T) += Ē·dO[T]ᵀ and kT += (F̄W2)·dO[T]ᵀ
// (kT·Â[T,:] is added to Ā).
func (l *lowRank) recordT(s *surrogate, eb, q, dO []float64, t int) {
	n, c, tc := s.n, s.c, l.corrRounds*s.c
	for i := range n {
		for k := range c {
			l.eq[i*tc+t*c+k] = float32(eb[i*c+k])
			l.eq[(n+i)*tc+t*c+k] = float32(q[i*c+k])
		}
	}
	for j, tr := range s.p.Train {
		for k := range c {
			l.ds[(t*c+k)*l.ntp+j] = float32(dO[tr*c+k])
		}
	}
}

// assembleLowRank returns Ā (n×n float32, owned by the workspace).
func (s *surrogate) assembleLowRank() []float32 {
	l, n, h, nt, w := s.lr, s.n, s.h, len(s.p.Train), s.ws
	k := h + nt
	// left sums P = [Σ hb_t β_tᵀ; Σ obW_t β_tᵀ]: 2n × wp
	p := grow32(&w.p, 2*n*l.wp)
	gemmSlots(p[:n*l.wp], l.ho[:l.s*n*h], l.bt, n, l.s, h, l.wp)
	gemmSlots(p[n*l.wp:], l.ho[l.s*n*h:], l.bt, n, l.s, h, l.wp)
	r := 2 * k
	at := grow32(&w.at, n*r)
	for i := range n {
		copy(at[i*r:i*r+k], p[i*l.wp:i*l.wp+k])
		copy(at[i*r+k:(i+1)*r], p[(n+i)*l.wp:(n+i)*l.wp+k])
	}
	ab := s.spmmA(l.basis, k)
	rf := grow32(&w.rf, r*n)
	for i := range n {
		for q := range k {
			rf[q*n+i] = float32(l.basis[i*k+q])
			rf[(k+q)*n+i] = float32(ab[i*k+q])
		}
	}
	abar := grow32(&w.abar, n*n)
	if useTiled {
		tiledGemmAT(abar, at, rf, n, r)
	} else {
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, blas32.General{Rows: n, Cols: r, Stride: r, Data: at},
			blas32.General{Rows: r, Cols: n, Stride: n, Data: rf}, 0, blas32.General{Rows: n, Cols: n, Stride: n, Data: abar})
	}
	if l.corrRounds == 0 {
		return abar
	}
	corr := grow32(&w.corr, 2*n*l.ntp)
	gemmRows(corr, l.eq, l.ds, 2*n, l.corrRounds*s.c, l.ntp)
	a := s.atil
	tensor.Parallel(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := abar[i*n : (i+1)*n]
			ci, ki := corr[i*l.ntp:], corr[(n+i)*l.ntp:]
			for ti, tr := range s.p.Train {
				row[tr] += ci[ti]
				kv := float64(ki[ti])
				if kv == 0 {
					continue
				}
				for p := a.Indptr[tr]; p < a.Indptr[tr+1]; p++ {
					row[a.Indices[p]] += float32(kv * s.ahat[p])
				}
			}
		}
	})
	return abar
}

// gemmSlots computes out = Σ_t a_t·b_t (out n×w; a_t the t-th n×h block
// of a, b_t rows t·h..t·h+h−1 of b, k×w row-major) in parallel over 32-row
// blocks of out, which stay in cache across the S slots.
func gemmSlots(out, a, b []float32, n, S, h, w int) {
	const mb = 32
	tensor.ParallelChunks((n+mb-1)/mb, 1, func(lo, hi int) {
		for blk := lo; blk < hi; blk++ {
			i0 := blk * mb
			r := min(mb, n-i0)
			o := out[i0*w : (i0+r)*w]
			clear(o)
			for t := range S {
				tensor.GemmSmall(o, a[(t*n+i0)*h:(t*n+i0+r)*h], b[t*h*w:(t+1)*h*w], r, h, w, true)
			}
		}
	})
}
