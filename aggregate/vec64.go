package aggregate

import "math"

// shiftByMaxGeneric is shiftByMax's scalar loop.
func shiftByMaxGeneric(s, z []float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	for i, v := range z {
		s[i] = v - m
	}
}

// divByGeneric is divBy's scalar loop.
func divByGeneric(s []float64, d float64) {
	for i := range s {
		s[i] /= d
	}
}

// mulDivGeneric is mulDiv's scalar loop.
func mulDivGeneric(dst, s []float64, w []float32, z float64) {
	for i, v := range w {
		dst[i] = s[i] * float64(v) / z
	}
}

// critFromSumsGeneric is critFromSums' scalar loop.
func critFromSumsGeneric(crit []float64, cw []float32, invT float64) {
	for i, v := range cw {
		c := float64(v)
		if math.IsNaN(c) || math.IsInf(c, 0) {
			c = math.MaxFloat32
		}
		crit[i] = -c * invT
	}
}

// corrGradsGeneric is corrGrads' scalar loop.
func corrGradsGeneric(gs, tv, s, e []float64, w []float32, z, ebar float64) {
	for i, wi := range w {
		gs[i] = float64(wi) / z * (e[i] - ebar)
		tv[i] = s[i] / z * (e[i] - ebar)
	}
}

// softGradGeneric is softGrad's scalar loop.
func softGradGeneric(gc32 []float32, s, gs []float64, sg, invT float64) {
	for i := range gc32 {
		gc32[i] = float32(-s[i] * (gs[i] - sg) * invT)
	}
}
