package train

import (
	"math"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/tensor"
)

// Adam is torch.optim.Adam (amsgrad off) with L2 weight decay added to the
// gradient: g ← g + λ·p; m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²;
// p ← p − lr·(m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε).
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64

	params []*autograd.Param
	m, v   [][]float32
	step   int
}

// NewAdam returns Adam over params with torch's default betas and eps.
func NewAdam(params []*autograd.Param, lr, weightDecay float64) *Adam {
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: weightDecay, params: params}
	for _, p := range params {
		a.m = append(a.m, make([]float32, len(p.Value.Data)))
		a.v = append(a.v, make([]float32, len(p.Value.Data)))
	}
	return a
}

// Step applies one update from the parameters' gradients and clears them.
func (a *Adam) Step() {
	a.step++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.step))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.step))
	c := tensor.AdamCoeffs{Beta1: float32(a.Beta1), Beta2: float32(a.Beta2), WeightDecay: float32(a.WeightDecay),
		StepSize: float32(a.LR / bc1), SqrtBC2: float32(math.Sqrt(bc2)), Eps: float32(a.Eps)}
	for i, p := range a.params {
		tensor.AdamUpdate(p.Value.Data, p.Grad.Data, a.m[i], a.v[i], c)
	}
}
