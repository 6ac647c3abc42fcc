// Package stats holds the small summary statistics that several packages
// report (attack summaries, report tables and figures), so they compute
// them the same way.
package stats

import "math"

// MeanSE returns the mean of v and the standard error of the mean (sample
// standard deviation / √k, 0 for a single value); NaN, NaN for no values.
// Both are plain two-pass sums in index order.
func MeanSE(v []float64) (mean, se float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(v)-1)) / math.Sqrt(float64(len(v)))
}
