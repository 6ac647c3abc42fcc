//go:build goexperiment.simd && amd64

package linalg

import "simd/archsimd"

// cgAVX selects the 4-wide float64 kernels (AVX2 machines; the arithmetic
// is the portable kernels' without fused multiply-adds, so the bits agree).
var cgAVX = archsimd.X86.AVX2()

// cgLanes is the number of 4-wide vectors per interleaved row; the
// unrolled kernels below assume 8.
const cgLanes = CGBlock / 4

var _ = [1]struct{}{}[cgLanes-8]

func ld(s []float64) archsimd.Float64x4 { return archsimd.LoadFloat64x4Slice(s) }

func cgMatVec(q, p [][CGBlock]float64, indptr []int, indices []int32, ct []float64, pq *[CGBlock]float64) {
	if !cgAVX {
		cgMatVecGeneric(q, p, indptr, indices, ct, pq)
		return
	}
	var s [cgLanes]archsimd.Float64x4
	for i := range q {
		pi := p[i][:]
		q0, q1, q2, q3 := ld(pi[0:]), ld(pi[4:]), ld(pi[8:]), ld(pi[12:])
		q4, q5, q6, q7 := ld(pi[16:]), ld(pi[20:]), ld(pi[24:]), ld(pi[28:])
		for e := indptr[i]; e < indptr[i+1]; e++ {
			c := archsimd.BroadcastFloat64x4(ct[e])
			pj := p[indices[e]][:]
			q0 = q0.Sub(c.Mul(ld(pj[0:])))
			q1 = q1.Sub(c.Mul(ld(pj[4:])))
			q2 = q2.Sub(c.Mul(ld(pj[8:])))
			q3 = q3.Sub(c.Mul(ld(pj[12:])))
			q4 = q4.Sub(c.Mul(ld(pj[16:])))
			q5 = q5.Sub(c.Mul(ld(pj[20:])))
			q6 = q6.Sub(c.Mul(ld(pj[24:])))
			q7 = q7.Sub(c.Mul(ld(pj[28:])))
		}
		qi := q[i][:]
		q0.StoreSlice(qi[0:])
		q1.StoreSlice(qi[4:])
		q2.StoreSlice(qi[8:])
		q3.StoreSlice(qi[12:])
		q4.StoreSlice(qi[16:])
		q5.StoreSlice(qi[20:])
		q6.StoreSlice(qi[24:])
		q7.StoreSlice(qi[28:])
		s[0] = s[0].Add(ld(pi[0:]).Mul(q0))
		s[1] = s[1].Add(ld(pi[4:]).Mul(q1))
		s[2] = s[2].Add(ld(pi[8:]).Mul(q2))
		s[3] = s[3].Add(ld(pi[12:]).Mul(q3))
		s[4] = s[4].Add(ld(pi[16:]).Mul(q4))
		s[5] = s[5].Add(ld(pi[20:]).Mul(q5))
		s[6] = s[6].Add(ld(pi[24:]).Mul(q6))
		s[7] = s[7].Add(ld(pi[28:]).Mul(q7))
	}
	for l := range cgLanes {
		s[l].StoreSlice(pq[4*l:])
	}
	archsimd.ClearAVXUpperBits()
}

func cgUpdate(x, r, p, q [][CGBlock]float64, a, rrn *[CGBlock]float64) {
	if !cgAVX {
		cgUpdateGeneric(x, r, p, q, a, rrn)
		return
	}
	var av, s [cgLanes]archsimd.Float64x4
	for l := range cgLanes {
		av[l] = ld(a[4*l:])
	}
	for i := range x {
		xi, ri, pi, qi := x[i][:], r[i][:], p[i][:], q[i][:]
		for l := range cgLanes {
			o := 4 * l
			ld(xi[o:]).Add(av[l].Mul(ld(pi[o:]))).StoreSlice(xi[o:])
			rv := ld(ri[o:]).Sub(av[l].Mul(ld(qi[o:])))
			rv.StoreSlice(ri[o:])
			s[l] = s[l].Add(rv.Mul(rv))
		}
	}
	for l := range cgLanes {
		s[l].StoreSlice(rrn[4*l:])
	}
	archsimd.ClearAVXUpperBits()
}

func cgDirection(p, r [][CGBlock]float64, beta *[CGBlock]float64) {
	if !cgAVX {
		cgDirectionGeneric(p, r, beta)
		return
	}
	var bv [cgLanes]archsimd.Float64x4
	for l := range cgLanes {
		bv[l] = ld(beta[4*l:])
	}
	for i := range p {
		pi, ri := p[i][:], r[i][:]
		for l := range cgLanes {
			o := 4 * l
			ld(ri[o:]).Add(bv[l].Mul(ld(pi[o:]))).StoreSlice(pi[o:])
		}
	}
	archsimd.ClearAVXUpperBits()
}

// cgMatVecChecked is cgMatVec (Go's own bounds checks make it safe).
func cgMatVecChecked(q, p [][CGBlock]float64, indptr []int, indices []int32, ct []float64, pq *[CGBlock]float64) {
	cgMatVec(q, p, indptr, indices, ct, pq)
}
