package nettack

import "math"

// DMin is the smallest degree included in the power-law fit (Nettack's d_min).
const DMin = 2

// DefaultLLCutoff is the χ²(1) cutoff of the likelihood ratio test (p ≈ 0.95).
const DefaultLLCutoff = 0.004

// powerLaw holds the sufficient statistics of a degree sequence for the
// power-law fit: n = #{d ≥ DMin} and sd = Σ_{d ≥ DMin} log d.
type powerLaw struct {
	n  float64
	sd float64
}

func newPowerLaw(deg []int) powerLaw {
	var p powerLaw
	for _, d := range deg {
		if d >= DMin {
			p.n++
			p.sd += math.Log(float64(d))
		}
	}
	return p
}

// alpha is the approximate MLE of the exponent (Nettack eq. 6):
// α = 1 + n / (S_d − n·log(d_min − ½)).
func (p powerLaw) alpha() float64 {
	return 1 + p.n/(p.sd-p.n*math.Log(DMin-0.5))
}

// logLik is the log-likelihood of the fit (Nettack eq. 7):
// n·log α + n·α·log d_min − (α+1)·S_d.
func (p powerLaw) logLik() float64 {
	a := p.alpha()
	return p.n*math.Log(a) + p.n*a*math.Log(DMin) - (a+1)*p.sd
}

// logLikRepo is the variant in the nettack repository's code
// (compute_log_likelihood), which adds (α+1)·S_d instead of subtracting it.
func (p powerLaw) logLikRepo() float64 {
	a := p.alpha()
	return p.n*math.Log(a) + p.n*a*math.Log(DMin) + (a+1)*p.sd
}

// update returns the statistics after the degrees of the two endpoints of a
// flip change from (da, db) by delta (±1): Nettack's update_Sx.
func (p powerLaw) update(da, db, delta int) powerLaw {
	for _, d := range [2]int{da, db} {
		if d >= DMin {
			p.n--
			p.sd -= math.Log(float64(d))
		}
		if e := d + delta; e >= DMin {
			p.n++
			p.sd += math.Log(float64(e))
		}
	}
	return p
}

// llRatio is the test statistic Λ = −2·l(D_comb) + 2·(l(D_new) + l(D_orig))
// of the perturbed sequence against the original, where D_comb pools both
// samples. The flip passes if Λ < cutoff.
func llRatio(orig, cur powerLaw) float64 {
	comb := powerLaw{n: orig.n + cur.n, sd: orig.sd + cur.sd}
	return -2*comb.logLik() + 2*(cur.logLik()+orig.logLik())
}

func llRatioRepo(orig, cur powerLaw) float64 {
	comb := powerLaw{n: orig.n + cur.n, sd: orig.sd + cur.sd}
	return -2*comb.logLikRepo() + 2*(cur.logLikRepo()+orig.logLikRepo())
}

func (o Options) ratio(orig, cur powerLaw) float64 {
	if o.RepoLogLikelihood {
		return llRatioRepo(orig, cur)
	}
	return llRatio(orig, cur)
}

// LikelihoodRatio returns Λ for two degree sequences of the same graph
// (original and perturbed); exported for tests and for other attacks.
func LikelihoodRatio(origDeg, newDeg []int) float64 {
	return llRatio(newPowerLaw(origDeg), newPowerLaw(newDeg))
}

// LikelihoodRatioRepo is LikelihoodRatio with the log-likelihood of the
// published Nettack and Metattack code (nettack repository before its 2022
// fix, gnn-meta-attack, DeepRobust's metattack utilities), which adds
// (α+1)·S_d instead of subtracting it. On small examples its statistic is
// about 2.6 times the paper's, so it rejects more flips.
func LikelihoodRatioRepo(origDeg, newDeg []int) float64 {
	return llRatioRepo(newPowerLaw(origDeg), newPowerLaw(newDeg))
}
