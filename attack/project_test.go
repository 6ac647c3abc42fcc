package attack

import (
	"math"
	"math/rand/v2"
	"testing"
)

// projectBudgetBranchy is ProjectBudget as it was written first (one
// branching pass at a time, sequential), kept as the reference that the
// branch-free and parallel version must match bit for bit.
func projectBudgetBranchy(p []float32, budget float64, eps float32) {
	total := 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range p {
		x := float64(v)
		switch {
		case x >= 1:
			total++
		case x > 0:
			total += x
		}
		if x-1 < lo {
			lo = x - 1
		}
		if x > hi {
			hi = x
		}
	}
	if len(p) > 0 && total > budget {
		var active []float64
		ones := 0.0
		f := func(mu float64) float64 { return clampSum(active, mu, ones) - budget }
		lo = math.Max(lo, 0)
		if e2 := 2 * float64(eps); eps > 0 && e2 < hi && clampSum(p, e2, 0)-budget > 0 {
			lo = e2
		}
		for _, v := range p {
			if x := float64(v); x > lo {
				active = append(active, x)
			}
		}
		flo := f(lo)
		mu := lo
		for it := 0; it < 100000; it++ {
			mu = (lo + hi) / 2
			fm := f(mu)
			if fm == 0 {
				break
			}
			if fm*flo < 0 {
				hi = mu
			} else {
				lo, flo = mu, fm
			}
			if hi-lo <= 1e-5 {
				break
			}
			k := 0
			for _, v := range active {
				switch {
				case v <= lo:
				case v >= hi+1:
					ones++
				default:
					active[k] = v
					k++
				}
			}
			active = active[:k]
		}
		m := float32(mu)
		for i := range p {
			p[i] -= m
		}
	}
	for i, v := range p {
		p[i] = min(max(v, eps), 1-eps)
	}
}

// The projection gives the bits of the branching reference on PR-BCD-like
// blocks (most entries at the floor, a tail of larger weights, some above 1
// after a gradient step) and on odd inputs (zeros of both signs, negative
// and infinite entries, NaN), sizes on both sides of the parallel grain.
func TestProjectBudgetSameBitsAsBranchy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		n := []int{1, 7, 1000, 3 * projectGrain, 300_001}[trial%5]
		p := make([]float32, n)
		for i := range p {
			switch r := rng.Float64(); {
			case r < 0.5:
				p[i] = pEps
			case r < 0.9:
				p[i] = float32(rng.Float64() * 0.2)
			case r < 0.97:
				p[i] = float32(rng.Float64() * 1.5)
			default:
				odd := []float32{0, float32(math.Copysign(0, -1)), -0.3, 1, 2 * pEps, float32(math.NaN()),
					float32(math.Inf(-1)), float32(math.Inf(1))}
				if n > 1000 {
					odd = odd[:7] // +Inf keeps the bisection at its 100,000 iterations (both versions)
				}
				p[i] = odd[rng.IntN(len(odd))]
			}
		}
		if trial%3 == 0 { // no NaN: the branch-free path end to end
			for i, v := range p {
				if v != v {
					p[i] = 0.5
				}
			}
		}
		eps := []float32{pEps, 0, 1e-4}[trial%3]
		budget := rng.Float64() * 0.3 * float64(n)
		want := append([]float32(nil), p...)
		projectBudgetBranchy(want, budget, eps)
		ProjectBudget(p, budget, eps)
		for i := range p {
			if math.Float32bits(p[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d (n %d, eps %g, budget %g): p[%d] = %v, the branching projection gives %v",
					trial, n, eps, budget, i, p[i], want[i])
			}
		}
	}
}

// Sums that land exactly on the budget (where no any-order sum can decide
// the sign and the ordered sum is taken): a total equal to the budget (no
// shift), a bisection midpoint with f(μ) = 0 (the search stops there), on
// small and on parallel-sized inputs.
func TestProjectBudgetExactTies(t *testing.T) {
	big := make([]float32, 3*projectGrain+5)
	for i := range big {
		big[i] = []float32{0.25, 0.5, 0.125, pEps}[i%4]
	}
	cases := []struct {
		p      []float32
		budget float64
	}{
		{[]float32{0.25, 0.25, 0.5}, 1},
		{[]float32{0.75, 0.25}, 0.375},
		{[]float32{0.75, 0.25, 0, 0.25}, 0.375},
		{big, clampSumFast(big, 0, 0)},
		{big, clampSumFast(big, 0.25, 0)},
	}
	for i, c := range cases {
		for _, eps := range []float32{0, pEps} {
			p, want := append([]float32(nil), c.p...), append([]float32(nil), c.p...)
			projectBudgetBranchy(want, c.budget, eps)
			ProjectBudget(p, c.budget, eps)
			for j := range p {
				if math.Float32bits(p[j]) != math.Float32bits(want[j]) {
					t.Fatalf("case %d eps %g: p[%d] = %v, the branching projection gives %v", i, eps, j, p[j], want[j])
				}
			}
		}
	}
}

func BenchmarkProjectBudget(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	p0 := make([]float32, 883_000) // cora_ml's PR-BCD block: ~30% above the floor
	for i := range p0 {
		if rng.Float64() < 0.3 {
			p0[i] = float32(rng.Float64() * 0.05)
		} else {
			p0[i] = pEps
		}
	}
	p := make([]float32, len(p0))
	for _, impl := range []struct {
		name string
		fn   func([]float32, float64, float32)
	}{{"branchy", projectBudgetBranchy}, {"fast", ProjectBudget}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				copy(p, p0)
				impl.fn(p, 798, pEps)
			}
		})
	}
}
