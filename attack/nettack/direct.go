package nettack

import "math"

// directStep scores every admissible direct flip (u, b) on the current
// graph in O(C + deg(b)) each and returns the best b (−1 if none) and its
// surrogate margin. Ties keep the smallest b.
//
// With d_k = deg(k)+1, G_k = XW_k/√d_k and S as in the package doc, the
// flip (u, b) with δ = ±1 changes d_u, d_b by δ and
//
//	√d'_u·z'_u = S'_u/d'_u + Σ_{k∈N(u)∖{b}} S'_k/d_k + [δ>0]·S'_b/d'_b
//	S'_u = S_u + ΔG_u + [δ<0]·ΔG_b + δ·G'_b
//	S'_k = S_k + ΔG_u + A_kb·ΔG_b                      (k ∈ N(u)∖{b})
//	S'_b = S_b + ΔG_b + δ·G'_u                          (δ > 0)
//
// so the middle sum is P − [δ<0]S_b/d_b + ΔG_u·(q − [δ<0]/d_b) + ΔG_b·r_b
// with P = Σ_{N(u)} S_k/d_k and q = Σ_{N(u)} 1/d_k (once per step) and
// r_b = Σ_{k∈N(u)∩N(b)} 1/d_k (a walk over b's neighbours).
func (st *state) directStep(u, y int, o Options, sc *scratch) (int, float64) {
	cutoff := o.LLCutoff
	c, n := st.c, st.n
	inN := make([]bool, n)
	p := make([]float64, c)
	var q float64
	st.neighbours(u, func(k int) {
		inN[k] = true
		w := 1 / float64(st.deg[k]+1)
		q += w
		for i := range c {
			p[i] += st.s[k*c+i] * w
		}
	})
	// likelihood-ratio verdicts depend only on (deg b, δ): memoise per step
	llCache := map[[2]int]bool{}
	du := float64(st.deg[u] + 1)
	xu := st.xw[u*c : (u+1)*c]
	su := st.s[u*c : (u+1)*c]
	dGu, gu := make([]float64, c), make([]float64, c)
	z := sc.z
	best, bestScore := -1, math.Inf(1)
	for b := 0; b < n; b++ {
		if b == u || st.flipped[key(u, b)] {
			continue
		}
		rem := inN[b]
		delta := 1
		if rem {
			delta = -1
			if st.deg[u] <= 1 || st.deg[b] <= 1 {
				continue
			}
		}
		if cutoff >= 0 {
			k := [2]int{st.deg[b], delta}
			ok, seen := llCache[k]
			if !seen {
				ok = o.ratio(st.base.pl, st.pl.update(st.deg[u], st.deg[b], delta)) < cutoff
				llCache[k] = ok
			}
			if !ok {
				continue
			}
		}
		fd := float64(delta)
		db := float64(st.deg[b] + 1)
		du2, db2 := du+fd, db+fd
		iu, ib := 1/math.Sqrt(du2), 1/math.Sqrt(db2)
		fu, fb := iu-1/math.Sqrt(du), ib-1/math.Sqrt(db)
		// r_b
		var r float64
		st.neighbours(b, func(k int) {
			if inN[k] {
				r += 1 / float64(st.deg[k]+1)
			}
		})
		xb := st.xw[b*c : (b+1)*c]
		sb := st.s[b*c : (b+1)*c]
		qq := q
		if rem {
			qq -= 1 / db
		}
		for i := range c {
			dGu[i], gu[i] = xu[i]*fu, xu[i]*iu
			dgb, gb := xb[i]*fb, xb[i]*ib
			sU := su[i] + dGu[i] + fd*gb
			if rem {
				sU += dgb
			}
			mid := p[i] + dGu[i]*qq + dgb*r
			if rem {
				mid -= sb[i] / db
			}
			v := sU/du2 + mid
			if !rem {
				v += (sb[i] + dgb + fd*gu[i]) / db2
			}
			z[i] = v * iu
		}
		if s := margin(z, y); s < bestScore {
			best, bestScore = b, s
		}
	}
	return best, bestScore
}
