package tensor

import "math"

// AdamCoeffs are the per-step constants of an Adam update.
type AdamCoeffs struct {
	Beta1, Beta2 float32 // moment decay rates
	WeightDecay  float32 // L2 coefficient added to the gradient
	StepSize     float32 // lr / (1 − β₁ᵗ)
	SqrtBC2      float32 // √(1 − β₂ᵗ)
	Eps          float32
}

// AdamUpdate applies one Adam step to w in place (torch semantics) and
// clears g:
//
//	g' = g + λw; m = β₁m + (1−β₁)g'; v = β₂v + (1−β₂)g'²; w −= s·m/(√v/√bc₂ + ε)
//
// Elementwise, so any split over goroutines gives the same bits.
func AdamUpdate(w, g, m, v []float32, c AdamCoeffs) {
	ParallelChunks(len(w), 8192, func(lo, hi int) {
		done := adamVec(w[lo:hi], g[lo:hi], m[lo:hi], v[lo:hi], c)
		adamScalar(w[lo+done:hi], g[lo+done:hi], m[lo+done:hi], v[lo+done:hi], c)
	})
}

func adamScalar(w, g, m, v []float32, c AdamCoeffs) {
	for j := range w {
		gj := g[j] + c.WeightDecay*w[j]
		mj := c.Beta1*m[j] + (1-c.Beta1)*gj
		vj := c.Beta2*v[j] + (1-c.Beta2)*gj*gj
		m[j], v[j] = mj, vj
		denom := float32(math.Sqrt(float64(vj)))/c.SqrtBC2 + c.Eps
		w[j] -= c.StepSize * mj / denom
		g[j] = 0
	}
}
