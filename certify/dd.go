package certify

import "math"

// dd is a double-double number hi + lo with |lo| ≤ ulp(hi)/2, used to carry
// the 1000-bit region values through the per-node worst-case computation
// with ~104 bits, so that the one final rounding to float64 agrees with the
// reference's (which computes at 1000 bits and converts at the end).
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func (a dd) add(b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	r := quickTwoSum(s, e)
	r.lo += f
	return quickTwoSum(r.hi, r.lo)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) sub(b dd) dd { return a.add(b.neg()) }

func (a dd) mul(b dd) dd {
	p := a.hi * b.hi
	if p == 0 || math.IsInf(p, 0) || math.IsNaN(p) {
		return dd{p, 0}
	}
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p, e)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	if q1 == 0 || math.IsInf(q1, 0) || math.IsNaN(q1) {
		return dd{q1, 0}
	}
	r := a.sub(b.mul(dd{q1, 0}))
	q2 := r.hi / b.hi
	r = r.sub(b.mul(dd{q2, 0}))
	q3 := r.hi / b.hi
	return quickTwoSum(q1, q2).add(dd{q3, 0})
}

// geq reports whether the exact value hi+lo is ≥ the double p.
func (a dd) geq(p float64) bool { return a.hi > p || a.hi == p && a.lo >= 0 }
