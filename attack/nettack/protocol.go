package nettack

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// BudgetDegreePlus2 is the Nettack paper's budget deg(u) + 2.
func BudgetDegreePlus2(deg int) int { return deg + 2 }

// BudgetFraction is the at-scale protocol's budget round(ε·deg(u)) (round
// half to even, as Python's round).
func BudgetFraction(deg int, eps float64) int { return int(math.RoundToEven(eps * float64(deg))) }

// MinDegreeFor returns the at-scale minimum target degree int(1/min ε) for
// a list of budget fractions (1 for an empty list).
func MinDegreeFor(eps []float64) int {
	if len(eps) == 0 {
		return 1
	}
	return max(1, int(1/slices.Min(eps)))
}

// SelectOptions configure SelectTargets; zero values mean the protocol's.
type SelectOptions struct {
	Top, Bottom, Random int // 10, 10, 20
	MinDegree           int // 1
	Seed                uint64
}

// ProbMargins returns, per node, the probability margin
// P(y) − max_{c≠y} P(c) of softmax(logits) (log-probabilities give the
// same result).
func ProbMargins(logits *tensor.Dense, labels []int32) []float64 {
	out := make([]float64, logits.Rows)
	p := make([]float64, logits.Cols)
	for r := range logits.Rows {
		row := logits.Row(r)
		m := math.Inf(-1)
		for _, v := range row {
			m = max(m, float64(v))
		}
		var z float64
		for c, v := range row {
			p[c] = math.Exp(float64(v) - m)
			z += p[c]
		}
		for c := range p {
			p[c] /= z
		}
		out[r] = margin(p, int(labels[r]))
	}
	return out
}

// SelectTargets implements the Nettack protocol's target choice among the
// test nodes idx with degree ≥ MinDegree that the model classifies
// correctly (margin > 0): the Top nodes with the highest margin, the Bottom
// nodes with the lowest, and Random more drawn uniformly (seeded) from the
// rest. Ties are broken by node index. The result is sorted by group, then
// as listed above.
func SelectTargets(adj *tensor.CSR, margins []float64, idx []int, o SelectOptions) ([]int, error) {
	if o.Top == 0 && o.Bottom == 0 && o.Random == 0 {
		o.Top, o.Bottom, o.Random = 10, 10, 20
	}
	if o.MinDegree == 0 {
		o.MinDegree = 1
	}
	if len(margins) != adj.Rows {
		return nil, fmt.Errorf("nettack targets: %d margins for %d nodes", len(margins), adj.Rows)
	}
	deg := graph.Degrees(adj)
	var cand []int
	for _, v := range idx {
		if v < 0 || v >= adj.Rows {
			return nil, fmt.Errorf("nettack targets: node %d outside [0, %d)", v, adj.Rows)
		}
		if deg[v] >= o.MinDegree && margins[v] > 0 {
			cand = append(cand, v)
		}
	}
	if need := o.Top + o.Bottom + o.Random; len(cand) < need {
		return nil, fmt.Errorf("nettack targets: only %d eligible test nodes (degree ≥ %d, correct), need %d", len(cand), o.MinDegree, need)
	}
	slices.SortFunc(cand, func(a, b int) int {
		if c := cmp.Compare(margins[b], margins[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := slices.Clone(cand[:o.Top])
	out = append(out, cand[len(cand)-o.Bottom:]...)
	rest := slices.Clone(cand[o.Top : len(cand)-o.Bottom])
	slices.Sort(rest)
	rng := rand.New(rand.NewPCG(o.Seed, 0x74617267))
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	return append(out, rest[:o.Random]...), nil
}

// Perturbed returns the clean graph with one target's flips applied.
func Perturbed(adj *tensor.CSR, r Result) (*tensor.CSR, error) {
	return graph.FlipEdges(adj, r.Flips)
}

// Summary aggregates per-target evaluation margins.
type Summary struct {
	Targets     int     `json:"targets"`
	MeanMargin  float64 `json:"mean_margin"`
	FailureRate float64 `json:"failure_rate"` // fraction still correctly classified (margin > 0)
}

// Summarize returns the mean margin and the attack's failure rate.
func Summarize(margins []float64) Summary {
	s := Summary{Targets: len(margins)}
	if len(margins) == 0 {
		s.MeanMargin, s.FailureRate = math.NaN(), math.NaN()
		return s
	}
	fail := 0
	for _, m := range margins {
		s.MeanMargin += m
		if m > 0 {
			fail++
		}
	}
	s.MeanMargin /= float64(len(margins))
	s.FailureRate = float64(fail) / float64(len(margins))
	return s
}
