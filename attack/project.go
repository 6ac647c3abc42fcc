package attack

import (
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// ProjectBudget projects p in place onto {p ∈ [eps, 1−eps], Σ p ≤ budget}
// as the reference does: if Σ clamp(p, 0, 1) > budget, find μ by bisection
// with Σ clamp(p − μ, 0, 1) = budget (tolerance 1e-5 on μ) and shift; then
// clamp to [eps, 1 − eps]. Entries whose clamp no longer depends on μ
// inside the bracket are retired from the sum, so an iteration costs
// O(entries still in play).
//
// The result is that of summing in float64 in the order of p (the
// reference's arithmetic), but the sums are only ever compared with the
// budget, so they are computed in any order, in parallel, with a bound on
// how far that order can move them; only a sum within that bound of the
// budget is summed again in order (signOf). NaN entries take no part in the
// sums and stay NaN.
func ProjectBudget(p []float32, budget float64, eps float32) {
	e2 := 2 * float64(eps)
	st := firstPass(p, e2)
	// Σ clamp(x − 0, 0, 1) in order is the reference's total.
	if len(p) == 0 || st.total.sign(budget, func() float64 { return clampSumFast(p, 0, 0) }) <= 0 {
		parallelRange(len(p), func(a, b int) {
			for i, v := range p[a:b] {
				p[a+i] = min(max(v, eps), 1-eps)
			}
		})
		return
	}
	// Entries ≤ lo can never contribute: keep only the others. f(0) =
	// total − budget > 0, so μ* > 0; most entries usually sit at the floor
	// eps, and if f(2·eps) > 0 they are retired at once.
	lo, hi := math.Max(st.lo, 0), st.hi
	slo := 0 // the sign of f(lo), known from the first pass where lo is 0 or 2·eps
	known := lo == 0
	if known {
		slo = 1 // Σ clamp(x − 0, 0, 1) over the entries > 0, in order: total
	}
	if eps > 0 && e2 < hi && st.above2.sign(budget, func() float64 { return clampSumFast(p, e2, 0) }) > 0 {
		lo, slo, known = e2, 1, true
	}
	active := activeAbove(p, lo)
	amin, amax, _ := minMaxNaN(active)
	ones := 0.0 // retired entries with clamp = 1 for every μ in [lo, hi]
	if !known {
		slo = signOf(active, lo, ones, budget)
	}
	mu := lo
	for it := 0; it < 100000; it++ {
		mu = (lo + hi) / 2
		sm := signOf(active, mu, ones, budget)
		if sm == 0 {
			break
		}
		if sm*slo < 0 {
			hi = mu
		} else {
			lo, slo = mu, sm
		}
		if hi-lo <= 1e-5 {
			break
		}
		// v ≤ lo: clamp(v−μ) = 0 for all μ ≥ lo; v ≥ hi+1: always 1.
		// Nothing retires while lo stays below every active entry and
		// hi+1 above them (the first iterations usually lower hi only):
		// the pass is skipped.
		if lo >= amin || hi+1 <= amax {
			var n1 int
			active, n1 = retire(active, lo, hi+1)
			ones += float64(n1) // a count: exact in any order
			amin, amax, _ = minMaxNaN(active)
		}
	}
	m := float32(mu)
	parallelRange(len(p), func(a, b int) {
		for i, v := range p[a:b] {
			p[a+i] = min(max(v-m, eps), 1-eps)
		}
	})
}

// Why the order of a sum does not change the projection: the reference
// compares f(μ) = start + Σ clamp(v − μ, 0, 1) − budget with 0 (its sign
// picks the half of the bracket; f = 0 ends the search) and never uses
// its value otherwise. The terms t_i are the same rounded numbers in any
// order, and any order of summing m terms ≥ 0 lands within γ·Σt of their
// exact sum (γ = m·u/(1 − m·u), u = 2⁻⁵³; Higham, Accuracy and Stability
// of Numerical Algorithms, §4.2), so two orders differ by at most 2γ·Σt. A
// sum s further than that from the budget has the sign of the ordered
// sum's difference (a rounded difference keeps the sign of the exact one).
// The bound below is twice that, for the rounding of s ± e itself.

// approxSum is a sum of m terms ≥ 0 in some order; m = 0 marks a sum in
// the reference's order.
type approxSum struct {
	s float64
	m int
}

// sign returns the sign of (the ordered sum) − budget: decided by s where
// the bound allows, else by ordered(), the sum in order.
func (a approxSum) sign(budget float64, ordered func() float64) int {
	if a.m > 0 {
		e := 4 * float64(a.m+1) * 0x1p-53 * a.s
		switch {
		case a.s-e > budget:
			return 1
		case a.s+e < budget:
			return -1
		}
		a.s = ordered()
	}
	switch f := a.s - budget; {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

// signOf returns the sign of f(μ) = start + Σ clamp(v − μ, 0, 1) − budget
// summed in the order of vals (vals not NaN): from any-order partial sums
// where they decide it, else from the ordered sum.
func signOf(vals []float32, mu, start, budget float64) int {
	return approxSum{s: start + clampSumAnyOrder(vals, mu), m: len(vals) + 1}.sign(budget,
		func() float64 { return clampSumFast(vals, mu, start) })
}

// parallelRange runs fn over chunks of [0, n), in parallel from
// projectGrain entries on.
func parallelRange(n int, fn func(lo, hi int)) {
	if n < 2*projectGrain {
		fn(0, n)
		return
	}
	tensor.ParallelChunks(n, projectGrain, fn)
}

// projectGrain is the smallest chunk of the projection's parallel loops.
const projectGrain = 1 << 16

// chunkResults runs fn over chunks of [0, n) (in parallel above the grain)
// and returns each chunk's result in chunk order.
func chunkResults[T any](n int, fn func(lo, hi int) T) []T {
	if n < 2*projectGrain {
		return []T{fn(0, n)}
	}
	chunks := (n + projectGrain - 1) / projectGrain
	out := make([]T, chunks)
	tensor.ParallelChunks(chunks, 1, func(a, b int) {
		for c := a; c < b; c++ {
			out[c] = fn(c*projectGrain, min((c+1)*projectGrain, n))
		}
	})
	return out
}

// budgetStats is what ProjectBudget's first pass learns about p: total =
// Σ clamp(x, 0, 1), above2 = Σ clamp(x − 2·eps, 0, 1), lo = min(x) − 1 and
// hi = max(x) (±Inf for an empty p).
type budgetStats struct {
	total, above2 approxSum
	lo, hi        float64
}

// firstPass computes p's budgetStats in parallel. With NaN entries (which
// the branch-free sums would let in) it falls back to sums in order that
// skip them, whose values are exact (m = 0).
func firstPass(p []float32, e2 float64) budgetStats {
	type part struct {
		total, above2, lo, hi float64
		nan                   bool
	}
	parts := chunkResults(len(p), func(a, b int) part {
		q := p[a:b]
		lo, hi, nan := minMaxNaN(q)
		if nan {
			return part{nan: true}
		}
		return part{clampSumBlock(q, 0), clampSumBlock(q, e2), lo, hi, false}
	})
	st := budgetStats{lo: math.Inf(1), hi: math.Inf(-1)}
	for _, pt := range parts {
		if pt.nan {
			return firstPassNaN(p, e2)
		}
		st.total.s += pt.total
		st.above2.s += pt.above2
		st.lo, st.hi = min(st.lo, pt.lo), max(st.hi, pt.hi)
	}
	st.total.m, st.above2.m = len(p), len(p)
	// min(x) − 1 = min(x − 1): the rounding of x − 1 is monotone.
	st.lo--
	return st
}

// firstPassNaN is firstPass for a p with NaN entries, which take no part
// (every comparison with NaN is false): ordered sums, decided exactly.
func firstPassNaN(p []float32, e2 float64) budgetStats {
	st := budgetStats{total: approxSum{s: clampSum(p, 0, 0)}, above2: approxSum{s: clampSum(p, e2, 0)}, // m = 0: in order
		lo: math.Inf(1), hi: math.Inf(-1)}
	for _, v := range p {
		x := float64(v)
		if x-1 < st.lo {
			st.lo = x - 1
		}
		if x > st.hi {
			st.hi = x
		}
	}
	return st
}

// minMax returns the least and the largest of vals (+Inf, −Inf if empty;
// entries not NaN), with four independent pairs of running extremes.
func minMax(vals []float32) (lo, hi float64) {
	inf := float32(math.Inf(1))
	l0, l1, l2, l3 := inf, inf, inf, inf
	h0, h1, h2, h3 := -inf, -inf, -inf, -inf
	i := 0
	for ; i+4 <= len(vals); i += 4 {
		v := vals[i : i+4 : i+4]
		l0, h0 = min(l0, v[0]), max(h0, v[0])
		l1, h1 = min(l1, v[1]), max(h1, v[1])
		l2, h2 = min(l2, v[2]), max(h2, v[2])
		l3, h3 = min(l3, v[3]), max(h3, v[3])
	}
	for _, v := range vals[i:] {
		l0, h0 = min(l0, v), max(h0, v)
	}
	return float64(min(l0, l1, l2, l3)), float64(max(h0, h1, h2, h3))
}

// activeAbove returns the entries of p above lo, in order (never NaN).
func activeAbove(p []float32, lo float64) []float32 {
	counts := chunkResults(len(p), func(a, b int) int {
		k := 0
		for _, v := range p[a:b] {
			k += b2i(float64(v) > lo)
		}
		return k
	})
	total := 0
	for _, k := range counts {
		total += k
	}
	active := make([]float32, total)
	offsets := make([]int, len(counts))
	for c := 1; c < len(counts); c++ {
		offsets[c] = offsets[c-1] + counts[c-1]
	}
	chunkResults(len(p), func(a, b int) struct{} {
		c := a / projectGrain // chunk c starts at c·projectGrain (a single chunk at 0)
		out := active[offsets[c] : offsets[c]+counts[c]]
		k := 0
		for _, v := range p[a:b] {
			if k == len(out) {
				break
			}
			// Written to the next free slot, kept if above lo.
			out[k] = v
			k += b2i(float64(v) > lo)
		}
		return struct{}{}
	})
	return active
}

// retire keeps the entries of active strictly between lo and top (in
// order, in place) and counts those ≥ top.
func retire(active []float32, lo, top float64) ([]float32, int) {
	k, ones := 0, 0
	for _, v := range active {
		x := float64(v)
		active[k] = v
		k += b2i(x > lo) & b2i(x < top)
		ones += b2i(x >= top)
	}
	return active[:k], ones
}

// clampSumAnyOrder is Σ clamp(v − μ, 0, 1) over vals (not NaN) in some
// order: chunks in parallel (clampSumBlock each).
func clampSumAnyOrder(vals []float32, mu float64) float64 {
	parts := chunkResults(len(vals), func(a, b int) float64 { return clampSumBlock(vals[a:b], mu) })
	s := 0.0
	for _, x := range parts {
		s += x
	}
	return s
}

// clampSumGo is the portable clampSumBlock: four running sums.
func clampSumGo(vals []float32, mu float64) float64 {
	var s [4]float64
	i := 0
	for ; i+4 <= len(vals); i += 4 {
		v := vals[i : i+4 : i+4]
		s[0] += min(max(float64(v[0])-mu, 0), 1)
		s[1] += min(max(float64(v[1])-mu, 0), 1)
		s[2] += min(max(float64(v[2])-mu, 0), 1)
		s[3] += min(max(float64(v[3])-mu, 0), 1)
	}
	for _, v := range vals[i:] {
		s[0] += min(max(float64(v)-mu, 0), 1)
	}
	return s[0] + s[1] + s[2] + s[3]
}

// minMaxNaNGo is the portable minMaxNaN.
func minMaxNaNGo(vals []float32) (lo, hi float64, nan bool) {
	for _, v := range vals {
		nan = nan || v != v
	}
	if nan {
		return 0, 0, true
	}
	lo, hi = minMax(vals)
	return lo, hi, false
}

// clampSumFast is clampSum without branches, for entries that are not NaN
// (the same values added in the same order: a clamp to 0 adds +0, which
// leaves a sum ≥ 0 unchanged).
func clampSumFast(vals []float32, mu, start float64) float64 {
	s := start
	for _, v := range vals {
		s += min(max(float64(v)-mu, 0), 1)
	}
	return s
}

// clampSum returns start + Σ clamp(v − μ, 0, 1) over vals, in order; NaN
// entries add nothing.
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

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
