package autograd

import (
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// GATAttention is multi-head graph attention (PyG GATConv's message
// passing) over the rows of s as one op. h is n×(H·F), head k owning
// columns [kF, (k+1)F); attSrc[k] and attDst[k] are F×1. For head k, row r
// aggregates its neighbours c (the entries of row r of s, values ignored):
//
//	e_rc = h_r·attDst_k + h_c·attSrc_k,  l = LeakyReLU_slope(e),
//	α_r· = softmax over the row of l,   α' = Dropout(α, p, seeds[k]),
//	out[r, head k] = Σ_c α'_rc h[c, head k].
//
// It computes what EdgeAdd → LeakyReLU → SegmentSoftmax → Dropout → SpMM per
// head computes (the dropout masks are Dropout's for the same seeds), without
// the per-head n×F, n×1 and nnz×1 temporaries and their separate passes;
// the backward gathers column sums through s's cached transpose, so it is
// deterministic for any GOMAXPROCS. p = 0 skips the dropout.
func (t *Tape) GATAttention(s *Sparse, h *Var, attSrc, attDst []*Var, slope float32, p float64, seeds []uint64) *Var {
	a := s.A
	nh := len(attSrc)
	if nh == 0 || len(attDst) != nh || h.Value.Cols%nh != 0 || a.Rows != h.Value.Rows || a.Cols != h.Value.Rows {
		panic(fmt.Sprintf("autograd.GATAttention: %d/%d attention vectors, h %s, graph %d×%d",
			len(attSrc), len(attDst), h.Value.Shape(), a.Rows, a.Cols))
	}
	hf := h.Value.Cols
	nf := hf / nh
	for k := range nh {
		if attSrc[k].Value.Rows*attSrc[k].Value.Cols != nf || attDst[k].Value.Rows*attDst[k].Value.Cols != nf {
			panic(fmt.Sprintf("autograd.GATAttention: head %d: attention vectors %s, %s for %d features",
				k, attSrc[k].Value.Shape(), attDst[k].Value.Shape(), nf))
		}
	}
	if p < 0 || p >= 1 || (p > 0 && len(seeds) != nh) {
		panic(fmt.Sprintf("autograd.GATAttention: dropout %v with %d seeds for %d heads", p, len(seeds), nh))
	}
	n, nnz := a.Rows, a.Nnz()
	hd := h.Value.Data

	// Per-node scores: as[i·H+k] = h_i·attSrc_k, ad likewise.
	as, ad := t.alloc(n, nh), t.alloc(n, nh)
	tensor.Parallel(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k := range nh {
				hr := hd[i*hf+k*nf : i*hf+(k+1)*nf]
				ws, wd := attSrc[k].Value.Data, attDst[k].Value.Data
				var ss, sd float32
				for f, v := range hr {
					ss += v * ws[f]
					sd += v * wd[f]
				}
				as.Data[i*nh+k], ad.Data[i*nh+k] = ss, sd
			}
		}
	})

	alpha := t.alloc(nnz, nh) // softmax weights before dropout
	var mask *tensor.Dense    // dropout factors (0 or 1/(1−p))
	if p > 0 {
		mask = t.alloc(nnz, nh)
	}
	scale := float32(1 / (1 - p))
	thr := int32(math.Round(p * 65536))
	out := t.newVar(n, hf)
	od := out.Value.Data
	tensor.Parallel(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			k0, k1 := a.Indptr[r], a.Indptr[r+1]
			o := od[r*hf : (r+1)*hf]
			clear(o)
			if k0 == k1 {
				continue
			}
			for k := range nh {
				// Row softmax as softmaxInto: max, float64 sum of the
				// float32-rounded exponentials, subnormals flushed.
				dr := ad.Data[r*nh+k]
				mx := float32(math.Inf(-1))
				for q := k0; q < k1; q++ {
					e := dr + as.Data[int(a.Indices[q])*nh+k]
					if !(e > 0) {
						e *= slope
					}
					alpha.Data[q*nh+k] = e
					mx = max(mx, e)
				}
				var sum float64
				tensor.ClearUpper() // math.Exp is SSE code
				for q := k0; q < k1; q++ {
					ex := expF32Range(float64(alpha.Data[q*nh+k] - mx))
					alpha.Data[q*nh+k] = flushF32(ex)
					sum += ex
				}
				for q := k0; q < k1; q++ {
					alpha.Data[q*nh+k] = flushF32(float64(alpha.Data[q*nh+k]) / sum)
				}
				if mask != nil {
					// Dropout's coin for element q of an nnz×1 vector.
					for q := k0; q < k1; q++ {
						hs := tensor.DropHash(seeds[k], q/4) >> (16 * uint(q%4))
						mask.Data[q*nh+k] = tensor.DropKeep(hs, thr, scale)
					}
				}
			}
			for q := k0; q < k1; q++ {
				c := int(a.Indices[q])
				hr := hd[c*hf : (c+1)*hf]
				for k := range nh {
					w := alpha.Data[q*nh+k]
					if mask != nil {
						w *= mask.Data[q*nh+k]
					}
					if w == 0 {
						continue
					}
					ok, hk := o[k*nf:(k+1)*nf], hr[k*nf:(k+1)*nf]
					for f, v := range hk {
						ok[f] += w * v
					}
				}
			}
		}
	})

	inputs := append([]*Var{h}, attSrc...)
	inputs = append(inputs, attDst...)
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		gd := g.Data
		// 1. Per entry and head: dl = ∂L/∂(pre-softmax logit after
		//    LeakyReLU's derivative), row sums into gad.
		de := t.alloc(nnz, nh)
		gad, gas := t.alloc(n, nh), t.alloc(n, nh)
		tensor.Parallel(n, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				k0, k1 := a.Indptr[r], a.Indptr[r+1]
				gr := gd[r*hf : (r+1)*hf]
				for q := k0; q < k1; q++ {
					c := int(a.Indices[q])
					hr := hd[c*hf : (c+1)*hf]
					for k := range nh {
						var s float32
						gk, hk := gr[k*nf:(k+1)*nf], hr[k*nf:(k+1)*nf]
						for f, v := range gk {
							s += v * hk[f]
						}
						if mask != nil {
							s *= mask.Data[q*nh+k]
						}
						de.Data[q*nh+k] = s
					}
				}
				for k := range nh {
					var d float64
					for q := k0; q < k1; q++ {
						d += float64(de.Data[q*nh+k]) * float64(alpha.Data[q*nh+k])
					}
					dr := ad.Data[r*nh+k]
					var sum float32
					for q := k0; q < k1; q++ {
						dl := alpha.Data[q*nh+k] * (de.Data[q*nh+k] - float32(d))
						if e := dr + as.Data[int(a.Indices[q])*nh+k]; !(e > 0) {
							dl *= slope
						}
						de.Data[q*nh+k] = dl
						sum += dl
					}
					gad.Data[r*nh+k] = sum
				}
			}
		})
		// 2. Column gathers through the transpose: gas (source scores) and
		//    the message part of ∂L/∂h, then the score part of ∂L/∂h.
		at, perm := s.T()
		var gh []float32
		if h.needsGrad {
			gh = t.gradOf(h).Data
		}
		tensor.Parallel(n, func(lo, hi int) {
			var acc [64]float32
			for c := lo; c < hi; c++ {
				var ghc []float32
				if gh != nil {
					ghc = gh[c*hf : (c+1)*hf]
				}
				sc := acc[:nh]
				if nh > len(acc) {
					sc = make([]float32, nh)
				}
				clear(sc)
				for e := at.Indptr[c]; e < at.Indptr[c+1]; e++ {
					q, r := perm[e], int(at.Indices[e])
					gr := gd[r*hf : (r+1)*hf]
					for k := range nh {
						sc[k] += de.Data[q*nh+k]
						if ghc == nil {
							continue
						}
						w := alpha.Data[q*nh+k]
						if mask != nil {
							w *= mask.Data[q*nh+k]
						}
						if w == 0 {
							continue
						}
						gk, ok := gr[k*nf:(k+1)*nf], ghc[k*nf:(k+1)*nf]
						for f, v := range gk {
							ok[f] += w * v
						}
					}
				}
				copy(gas.Data[c*nh:(c+1)*nh], sc)
				if ghc == nil {
					continue
				}
				for k := range nh {
					gs, gdst := gas.Data[c*nh+k], gad.Data[c*nh+k]
					ws, wd := attSrc[k].Value.Data, attDst[k].Value.Data
					ok := ghc[k*nf : (k+1)*nf]
					for f := range ok {
						ok[f] += gdst*wd[f] + gs*ws[f]
					}
				}
			}
		})
		// 3. Attention vectors: Σ_i gad[i,k]·h[i, head k] (and gas), float64
		//    partial sums over fixed row blocks added in block order.
		blocks := min(reduceBlocks, n)
		size := (n + blocks - 1) / blocks
		part := make([]float64, blocks*2*hf)
		tensor.ParallelChunks(blocks, 1, func(lo, hi int) {
			for bl := lo; bl < hi; bl++ {
				ps, pd := part[bl*2*hf:bl*2*hf+hf], part[bl*2*hf+hf:(bl+1)*2*hf]
				for i := bl * size; i < min((bl+1)*size, n); i++ {
					hr := hd[i*hf : (i+1)*hf]
					for k := range nh {
						gs, gdst := float64(gas.Data[i*nh+k]), float64(gad.Data[i*nh+k])
						for f := k * nf; f < (k+1)*nf; f++ {
							ps[f] += gs * float64(hr[f])
							pd[f] += gdst * float64(hr[f])
						}
					}
				}
			}
		})
		for k := range nh {
			for which, vs := range [][]*Var{attSrc, attDst} {
				if !vs[k].needsGrad {
					continue
				}
				gv := t.gradOf(vs[k]).Data
				for f := range nf {
					var sum float64
					for bl := range blocks {
						sum += part[bl*2*hf+which*hf+k*nf+f]
					}
					gv[f] += float32(sum)
				}
			}
		}
	}, inputs...)
	return out
}

// expF32Range is expNormal for a softmax whose terms are stored as float32
// and whose sum is at least 1 (the maximum's term): below −88, exp(x) <
// 2⁻¹²⁶ would be flushed to zero and cannot change the float64 sum, so it is
// returned as 0 without calling math.Exp.
func expF32Range(x float64) float64 {
	if x < -88 {
		return 0
	}
	return expNormal(x)
}
