package protocol

import (
	"github.com/rgnn/rgnn/internal/stats"
)

// summarizeTargets aggregates the rows per victim and budget rule: mean
// margins ± s.e., failure rate, flips and attack seconds per target.
func summarizeTargets(rows []TargetRow, victims []Victim, eps []float64, secs []float64, jobs int) []TargetSummary {
	keys := []float64{0}
	if len(eps) > 0 {
		keys = eps
	}
	var out []TargetSummary
	for i, v := range victims {
		for _, e := range keys {
			var ms, cm []float64
			fail, cleanOK, ne, nf := 0, 0, 0, 0
			for _, r := range rows {
				if r.Epsilon != e {
					continue
				}
				tv := r.Victims[i]
				ms = append(ms, tv.Margin)
				ne += len(tv.Flips)
				nf += len(tv.FeatureFlips)
				cm = append(cm, tv.CleanMargin)
				if tv.Correct {
					fail++
				}
				if tv.CleanCorrect {
					cleanOK++
				}
			}
			if len(ms) == 0 {
				continue
			}
			mean, se := stats.MeanSE(ms)
			cmean, _ := stats.MeanSE(cm)
			k := float64(len(ms))
			out = append(out, TargetSummary{Victim: v.Name, Epsilon: e, Targets: len(ms), CleanMargin: cmean,
				CleanAccuracy: float64(cleanOK) / k, MeanMargin: mean, MarginSE: se, FailureRate: float64(fail) / k,
				SecondsPerTarget: secs[i] / float64(jobs), MeanEdgeFlips: float64(ne) / k, MeanFeatureFlips: float64(nf) / k})
		}
	}
	return out
}
