//go:build amd64 && !purego

package aggregate

import "golang.org/x/sys/cpu"

// The float64 steps of the softmax weights in four AVX lanes
// (vec64_amd64.s); each lane performs the scalar loop's operation on its
// element, so the bits are those of vec64_generic.go's loops.

var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func max64AVX(z *float64, n int) (m float64, nan bool)

//go:noescape
func sub64AVX(s, z *float64, n int, m float64)

//go:noescape
func div64AVX(s *float64, n int, d float64)

//go:noescape
func crit64AVX(crit *float64, c *float32, n int, invT float64)

//go:noescape
func mulDiv64AVX(dst, s *float64, w *float32, n int, z float64)

// shiftByMax writes s[i] = z[i] − max(z) (len(s) ≥ len(z)).
func shiftByMax(s, z []float64) {
	n := len(z)
	n4 := n &^ 3
	if !useAVX2 || n4 == 0 {
		shiftByMaxGeneric(s, z)
		return
	}
	_ = s[n-1]
	m, nan := max64AVX(&z[0], n4)
	if nan {
		shiftByMaxGeneric(s, z) // NaN as max propagates it
		return
	}
	for _, v := range z[n4:] {
		m = max(m, v)
	}
	// The sign of a zero maximum may differ from the scalar loop's; z − m
	// differs only for z = ±0 then, in the sign of a zero whose exponential
	// is 1 either way.
	sub64AVX(&s[0], &z[0], n4, m)
	for i := n4; i < n; i++ {
		s[i] = z[i] - m
	}
}

// divBy writes s[i] /= d.
func divBy(s []float64, d float64) {
	n4 := len(s) &^ 3
	if useAVX2 && n4 > 0 {
		div64AVX(&s[0], n4, d)
	} else {
		n4 = 0
	}
	divByGeneric(s[n4:], d)
}

// critFromSums writes crit[i] = −c·invT with c = float64(cw[i]), or
// MaxFloat32 where cw[i] is not finite (len(crit) ≥ len(cw)).
func critFromSums(crit []float64, cw []float32, invT float64) {
	n := len(cw)
	n4 := n &^ 3
	if useAVX2 && n4 > 0 {
		_ = crit[n-1]
		crit64AVX(&crit[0], &cw[0], n4, invT)
	} else {
		n4 = 0
	}
	critFromSumsGeneric(crit[n4:n], cw[n4:], invT)
}

// mulDiv writes dst[i] = s[i]·float64(w[i]) / z (len(dst), len(s) ≥ len(w)).
func mulDiv(dst, s []float64, w []float32, z float64) {
	n := len(w)
	n4 := n &^ 3
	if useAVX2 && n4 > 0 {
		_, _ = dst[n-1], s[n-1]
		mulDiv64AVX(&dst[0], &s[0], &w[0], n4, z)
	} else {
		n4 = 0
	}
	mulDivGeneric(dst[n4:n], s[n4:n], w[n4:], z)
}

//go:noescape
func corrGrads64AVX(gs, tv, s, e *float64, w *float32, n int, z, ebar float64)

//go:noescape
func softGrad64AVX(gc32 *float32, s, gs *float64, n int, sg, invT float64)

// corrGrads writes, with δ = e[i] − ebar, gs[i] = (float64(w[i])/z)·δ and
// tv[i] = (s[i]/z)·δ for i < len(w).
func corrGrads(gs, tv, s, e []float64, w []float32, z, ebar float64) {
	n := len(w)
	n4 := n &^ 3
	if useAVX2 && n4 > 0 {
		_, _, _, _ = gs[n-1], tv[n-1], s[n-1], e[n-1]
		corrGrads64AVX(&gs[0], &tv[0], &s[0], &e[0], &w[0], n4, z, ebar)
	} else {
		n4 = 0
	}
	corrGradsGeneric(gs[n4:n], tv[n4:n], s[n4:n], e[n4:n], w[n4:], z, ebar)
}

// softGrad writes gc32[i] = float32(−s[i]·(gs[i] − sg)·invT) for i <
// len(gc32).
func softGrad(gc32 []float32, s, gs []float64, sg, invT float64) {
	n := len(gc32)
	n4 := n &^ 3
	if useAVX2 && n4 > 0 {
		_, _ = s[n-1], gs[n-1]
		softGrad64AVX(&gc32[0], &s[0], &gs[0], n4, sg, invT)
	} else {
		n4 = 0
	}
	softGradGeneric(gc32[n4:], s[n4:n], gs[n4:n], sg, invT)
}
