package certify

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// This file computes Clopper–Pearson bounds, i.e. quantiles of Beta(x, n−x+1)
// and Beta(x+1, n−x), to a few ulps. gonum's mathext.InvRegIncBeta (a cephes
// port) is only good to ~1e-11 relative for these parameters (e.g. x = 1,
// n = 10,000), so it merely provides the starting point: the quantile is
// then polished by safeguarded Newton steps on the binomial tail
// P(Bin(n, p) ≥ x) = I_p(x, n−x+1), which for integer parameters is a short
// sum of binomial probabilities, each computed with Loader's saddle-point
// form (stirlerr + bd0, as in R's dbinom) to near machine precision.

// stirlerrSmall[k] = log(k!) − log(√(2πk)·(k/e)^k) for k = 0..15 (k = 0: 0).
var stirlerrSmall = [16]float64{
	0,
	0.08106146679532725821967,
	0.04134069595540929409382,
	0.02767792568499833914879,
	0.02079067210376509311152,
	0.01664469118982119216319,
	0.01387612882307074799875,
	0.01189670994589177009506,
	0.01041126526197209649748,
	0.009255462182712732917729,
	0.008330563433362871256469,
	0.007573675487951840794972,
	0.006942840107209529865664,
	0.00640899418800420706844,
	0.005951370112758847735624,
	0.005554733551962801371039,
}

// stirlerr is the error of Stirling's formula for log(n!), n ≥ 0 integer.
func stirlerr(n float64) float64 {
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	if n <= 15 {
		return stirlerrSmall[int(n)]
	}
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 = x·log(x/np) + np − x, computed without cancellation for x ≈ np.
func bd0(x, np float64) float64 {
	if math.Abs(x-np) < 0.1*(x+np) {
		v := (x - np) / (x + np)
		s := (x - np) * v
		if math.Abs(s) < math.SmallestNonzeroFloat64 {
			return s
		}
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
	}
	return x*math.Log(x/np) + np - x
}

// dbinom is the binomial probability P(Bin(n, p) = k) with relative
// accuracy near machine precision (Loader 2000).
func dbinom(k, n int, p float64) float64 {
	switch {
	case k < 0 || k > n:
		return 0
	case p == 0:
		if k == 0 {
			return 1
		}
		return 0
	case p == 1:
		if k == n {
			return 1
		}
		return 0
	case k == 0:
		return math.Exp(float64(n) * math.Log1p(-p))
	case k == n:
		return math.Exp(float64(n) * math.Log(p))
	}
	q := 1 - p
	x, nf := float64(k), float64(n)
	lc := stirlerr(nf) - stirlerr(x) - stirlerr(nf-x) - bd0(x, nf*p) - bd0(nf-x, nf*q)
	lf := math.Log(2*math.Pi) + math.Log(x) + math.Log1p(-x/nf)
	return math.Exp(lc - 0.5*lf)
}

// binomTailGE returns P(Bin(n, p) ≥ x) = I_p(x, n−x+1), summing upward from
// x until the terms stop mattering.
func binomTailGE(x, n int, p float64) float64 {
	if x <= 0 {
		return 1
	}
	if x > n {
		return 0
	}
	t := dbinom(x, n, p)
	s := t
	r := p / (1 - p)
	for k := x; k < n; k++ {
		t *= float64(n-k) / float64(k+1) * r
		s += t
		if t <= s*1e-18 && float64(n-k)*p < float64(k+1)*(1-p) {
			break
		}
	}
	return s
}

// binomTailLE returns P(Bin(n, p) ≤ x) = 1 − I_p(x+1, n−x), summing downward
// from x.
func binomTailLE(x, n int, p float64) float64 {
	if x < 0 {
		return 0
	}
	if x >= n {
		return 1
	}
	t := dbinom(x, n, p)
	s := t
	r := (1 - p) / p
	for k := x; k > 0; k-- {
		t *= float64(k) / float64(n-k+1) * r
		s += t
		if t <= s*1e-18 && float64(k)*(1-p) < float64(n-k+1)*p {
			break
		}
	}
	return s
}

// betaQuantileLower returns the q-quantile of Beta(x, n−x+1), i.e. p with
// P(Bin(n, p) ≥ x) = q, for 1 ≤ x ≤ n and 0 < q < 1.
func betaQuantileLower(x, n int, q float64) float64 {
	if x == n {
		// p^n = q.
		return math.Exp(math.Log(q) / float64(n))
	}
	f := func(p float64) float64 { return binomTailGE(x, n, p) - q } // increasing in p
	df := func(p float64) float64 { return float64(n) * dbinom(x-1, n-1, p) }
	return newtonPolish(mathext.InvRegIncBeta(float64(x), float64(n-x+1), q), f, df)
}

// betaQuantileUpperTail returns p with P(Bin(n, p) ≤ x) = q, i.e. the
// (1−q)-quantile of Beta(x+1, n−x) computed from its upper tail (scipy's
// beta.isf), for 0 ≤ x < n and 0 < q < 1.
func betaQuantileUpperTail(x, n int, q float64) float64 {
	if x == 0 {
		// (1−p)^n = q.
		return -math.Expm1(math.Log(q) / float64(n))
	}
	// f increasing in p: q − P(Bin ≤ x).
	f := func(p float64) float64 { return q - binomTailLE(x, n, p) }
	df := func(p float64) float64 { return float64(n) * dbinom(x, n-1, p) }
	return newtonPolish(mathext.InvRegIncBeta(float64(x+1), float64(n-x), 1-q), f, df)
}

// newtonPolish finds the root of the increasing function f on (0, 1) from
// the starting point p0 by Newton steps, safeguarded by bisection on the
// bracket the evaluations establish.
func newtonPolish(p0 float64, f, df func(float64) float64) float64 {
	lo, hi := 0.0, 1.0
	p := p0
	if !(p > 0 && p < 1) {
		p = 0.5
	}
	for it := 0; it < 100; it++ {
		v := f(p)
		if v == 0 {
			return p
		}
		if v < 0 {
			lo = p
		} else {
			hi = p
		}
		next := p - v/df(p)
		if math.Abs(next-p) <= 1e-17*p {
			return next
		}
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
			if next == lo || next == hi {
				return p
			}
		}
		p = next
	}
	return p
}

// ClopperPearson returns the two-sided exact binomial confidence interval
// for x successes in n trials at level 1−alpha, exactly as statsmodels'
// proportion_confint(x, n, alpha, method="beta"): lower =
// Beta⁻¹(alpha/2; x, n−x+1) (0 if x = 0), upper = Beta⁻¹(1−alpha/2; x+1, n−x)
// (1 if x = n), the latter from the upper tail like scipy's beta.isf.
func ClopperPearson(x, n int, alpha float64) (lower, upper float64, err error) {
	if n <= 0 || x < 0 || x > n {
		return 0, 0, fmt.Errorf("clopper-pearson: %d successes in %d trials", x, n)
	}
	if !(alpha > 0 && alpha < 1) {
		return 0, 0, fmt.Errorf("clopper-pearson: alpha %v outside (0, 1)", alpha)
	}
	a2 := 0.5 * alpha
	return cpLower(x, n, a2), cpUpper(x, n, a2), nil
}

// cpLower is the one-sided lower bound at level 1−q (0 for x = 0).
func cpLower(x, n int, q float64) float64 {
	if x == 0 {
		return 0
	}
	return betaQuantileLower(x, n, q)
}

// cpUpper is the one-sided upper bound at level 1−q (1 for x = n).
func cpUpper(x, n int, q float64) float64 {
	if x == n {
		return 1
	}
	return betaQuantileUpperTail(x, n, q)
}
