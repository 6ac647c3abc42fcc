package attack

import "math"

// ProjectBudget projects p in place onto {p ∈ [eps, 1−eps], Σ p ≤ budget}
// as the reference does: if Σ clamp(p, 0, 1) > budget, find μ by bisection
// with Σ clamp(p − μ, 0, 1) = budget (tolerance 1e-5 on μ) and shift; then
// clamp to [eps, 1 − eps]. Sums are accumulated in float64; entries whose
// clamp no longer depends on μ inside the bracket are retired from the sum,
// so an iteration costs O(entries still in play).
func ProjectBudget(p []float32, budget float64, eps float32) {
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
		// entries ≤ lo can never contribute: keep only the others
		var active []float64
		ones := 0.0 // retired entries with clamp = 1 for every μ in [lo, hi]
		f := func(mu float64) float64 { return clampSum(active, mu, ones) - budget }
		// f(0) = total − budget > 0, so μ* > 0; most entries usually sit at
		// the floor eps, and if f(2·eps) > 0 they can be retired at once
		// (f over all of p, before any entry is retired: the same sum in the
		// same order, without a float64 copy of p).
		lo = math.Max(lo, 0)
		if e2 := 2 * float64(eps); eps > 0 && e2 < hi && clampSum(p, e2, 0)-budget > 0 {
			lo = e2
		}
		k := 0
		for _, v := range p {
			if float64(v) > lo {
				k++
			}
		}
		active = make([]float64, 0, k)
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
			// v ≤ lo: clamp(v−μ) = 0 for all μ ≥ lo; v ≥ hi+1: always 1.
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

// clampSum returns start + Σ clamp(v − μ, 0, 1) over vals, in order.
func clampSum[T float32 | float64](vals []T, mu, start float64) float64 {
	s := start
	for _, v := range vals {
		switch x := float64(v) - mu; {
		case x >= 1:
			s++
		case x > 0:
			s += x
		}
	}
	return s
}
