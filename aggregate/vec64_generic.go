//go:build !amd64 || purego

package aggregate

// The float64 steps of the softmax weights, portable loops (the amd64
// build has four-lane kernels with the same bits: vec64_amd64.go).

func shiftByMax(s, z []float64) { shiftByMaxGeneric(s, z) }

func divBy(s []float64, d float64) { divByGeneric(s, d) }

func critFromSums(crit []float64, cw []float32, invT float64) {
	critFromSumsGeneric(crit[:len(cw)], cw, invT)
}

func mulDiv(dst, s []float64, w []float32, z float64) { mulDivGeneric(dst, s, w, z) }

func corrGrads(gs, tv, s, e []float64, w []float32, z, ebar float64) {
	corrGradsGeneric(gs, tv, s, e, w, z, ebar)
}

func softGrad(gc32 []float32, s, gs []float64, sg, invT float64) {
	softGradGeneric(gc32, s, gs, sg, invT)
}
