package certify

import (
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// Params are the parameters of a certificate.
type Params struct {
	PPlus  float64 // p₊: probability the votes' sampler added an absent edge
	PMinus float64 // p₋: probability it deleted an existing edge
	Alpha  float64 // significance level (the paper: 0.05)
	// NumSamples is n₁, the number of samples behind each row of votes; 0
	// infers it from the votes, whose rows must then all have the same sum.
	NumSamples int
}

// Certificate is the multi-class certificate of every node over the grid of
// radii r_a ∈ [0, MaxRA+1] (additions) × r_d ∈ [0, MaxRD+1] (deletions).
type Certificate struct {
	Params     // NumSamples resolved
	Nodes      int
	NumClasses int
	// MaxRA, MaxRD: largest radii certifiable at all for the best node
	// (binary certificate of the largest PEmp, as the reference sizes its
	// grid; at least 1 each).
	MaxRA, MaxRD int
	Pred         []int     // smoothed prediction: argmax of the votes (first maximum)
	Top          []int     // top class from the pre-votes (ties: highest index)
	RunnerUp     []int     // runner-up class from the pre-votes
	PLower       []float64 // Clopper–Pearson lower bound of p(Top), Bonferroni α/C
	PUpper       []float64 // Clopper–Pearson upper bound of p(RunnerUp), Bonferroni α/C
	PEmp         []float64 // one-sided lower bound of p(argmax pre-votes) at α (binary certificate)

	nra, nrd     int
	lower, upper []float64 // [node][ra][rd] worst-case bounds
}

// GridShape returns the number of addition and deletion radii in the grid
// (MaxRA+2, MaxRD+2).
func (c *Certificate) GridShape() (nra, nrd int) { return c.nra, c.nrd }

// Bounds returns the worst-case lower bound on the top class's probability
// and upper bound on the runner-up's at radius (ra, rd); both are 1 at (0, 0).
func (c *Certificate) Bounds(node, ra, rd int) (lower, upper float64) {
	k := (node*c.nra+ra)*c.nrd + rd
	return c.lower[k], c.upper[k]
}

// Certified reports whether node's smoothed prediction is certified robust
// to any ra edge additions and rd deletions: lower > upper. Never at (0, 0).
// Radii outside the grid are not certified.
func (c *Certificate) Certified(node, ra, rd int) bool {
	if ra < 0 || rd < 0 || ra >= c.nra || rd >= c.nrd {
		return false
	}
	lo, up := c.Bounds(node, ra, rd)
	return lo > up
}

// Radius returns the largest certified addition radius (with no deletions)
// and deletion radius (with no additions) of node; 0 if none.
func (c *Certificate) Radius(node int) (ra, rd int) {
	for r := c.nra - 1; r > 0; r-- {
		if c.Certified(node, r, 0) {
			ra = r
			break
		}
	}
	for r := c.nrd - 1; r > 0; r-- {
		if c.Certified(node, 0, r) {
			rd = r
			break
		}
	}
	return ra, rd
}

// Compute computes the certificate of every node from its votes (n₁
// samples) and pre-votes (n₀ samples, which choose the top and runner-up
// classes), like sparse_smoothing's binary_certificate (multi-class part):
//
//  1. top, runner-up: stable argsort of the pre-votes (ties → higher index);
//  2. p_lower = Beta⁻¹(α/C; x_top, n−x_top+1), p_upper = Beta⁻¹(1−α/C;
//     x_ru+1, n−x_ru) (Clopper–Pearson with Bonferroni over C classes);
//  3. grid size from the binary certificate: MaxRA/MaxRD = MaxRadius of the
//     largest one-sided lower bound Beta⁻¹(α; x, n−x+1) of the pre-votes'
//     argmax class over all nodes;
//  4. for every (ra, rd) ≠ (0, 0): lower = Rho(p_lower), upper =
//     Rho(p_upper, reverse); certified iff lower > upper.
//
// The regions are taken from cache (nil: a private one). Nodes are
// processed in parallel; the result does not depend on GOMAXPROCS.
func Compute(votes, preVotes *Counts, p Params, cache *RegionCache) (*Certificate, error) {
	if err := votes.Validate(); err != nil {
		return nil, err
	}
	if err := preVotes.Validate(); err != nil {
		return nil, fmt.Errorf("pre-%w", err)
	}
	if votes.Nodes != preVotes.Nodes || votes.Classes != preVotes.Classes {
		return nil, fmt.Errorf("certify: votes are %d×%d but pre-votes %d×%d",
			votes.Nodes, votes.Classes, preVotes.Nodes, preVotes.Classes)
	}
	if votes.Classes < 2 {
		return nil, fmt.Errorf("certify: %d classes; need at least 2", votes.Classes)
	}
	if err := checkProbs(p.PPlus, p.PMinus); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	if !(p.Alpha > 0 && p.Alpha < 0.5) {
		return nil, fmt.Errorf("certify: significance level alpha=%v outside (0, 0.5)", p.Alpha)
	}
	n := int64(p.NumSamples)
	if n == 0 {
		t, err := votes.rowTotal()
		if err != nil {
			return nil, fmt.Errorf("certify: cannot infer the number of samples: %w", err)
		}
		n = t
	}
	if n <= 0 {
		return nil, fmt.Errorf("certify: %d samples", n)
	}
	for i, x := range votes.Data {
		if x > n {
			return nil, fmt.Errorf("certify: node %d has %d votes for class %d but there were only %d samples",
				i/votes.Classes, x, i%votes.Classes, n)
		}
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("certify: %d samples is too many", n)
	}
	p.NumSamples = int(n)
	if cache == nil {
		cache = new(RegionCache)
	}
	nn, nc := votes.Nodes, votes.Classes
	c := &Certificate{Params: p, Nodes: nn, NumClasses: nc,
		Pred: make([]int, nn), Top: make([]int, nn), RunnerUp: make([]int, nn),
		PLower: make([]float64, nn), PUpper: make([]float64, nn), PEmp: make([]float64, nn)}

	// Confidence bounds; the levels are formed with the reference's float
	// operations (proportion_confint's alpha/2 of alpha = 2·α and 2·α/C).
	aBin := 0.5 * (2 * p.Alpha)
	aMulti := 0.5 * (2 * p.Alpha / float64(nc))
	xEmp := make([]int, nn)
	xTop := make([]int, nn)
	xRu := make([]int, nn)
	for i := range nn {
		c.Pred[i] = votes.Argmax(i)
		c.Top[i], c.RunnerUp[i] = preVotes.TopTwo(i)
		row := votes.Row(i)
		xEmp[i] = int(row[preVotes.Argmax(i)])
		xTop[i] = int(row[c.Top[i]])
		xRu[i] = int(row[c.RunnerUp[i]])
	}
	ni := int(n)
	boundsByCount(c.PEmp, xEmp, func(x int) float64 { return cpLower(x, ni, aBin) })
	boundsByCount(c.PLower, xTop, func(x int) float64 { return cpLower(x, ni, aMulti) })
	boundsByCount(c.PUpper, xRu, func(x int) float64 { return cpUpper(x, ni, aMulti) })

	maxPEmp := 0.0
	for _, v := range c.PEmp {
		maxPEmp = max(maxPEmp, v)
	}
	var err error
	if c.MaxRA, err = maxRadius(p.PPlus, p.PMinus, maxPEmp, true, 100, cache); err != nil {
		return nil, err
	}
	if c.MaxRD, err = maxRadius(p.PPlus, p.PMinus, maxPEmp, false, 100, cache); err != nil {
		return nil, err
	}
	c.nra, c.nrd = c.MaxRA+2, c.MaxRD+2

	// Regions of every cell (in parallel: the large radii take a while at
	// 1000 bits), then the per-node bounds.
	cells := c.nra * c.nrd
	regs := make([]*Regions, cells)
	errs := make([]error, cells)
	tensor.ParallelChunks(cells, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			if k == 0 {
				continue
			}
			regs[k], errs[k] = cache.get(k/c.nrd, k%c.nrd, p.PPlus, p.PMinus)
		}
	})
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	c.lower = make([]float64, nn*cells)
	c.upper = make([]float64, nn*cells)
	tensor.ParallelChunks(nn, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lw, up := c.lower[i*cells:(i+1)*cells], c.upper[i*cells:(i+1)*cells]
			lw[0], up[0] = 1, 1
			for k := 1; k < cells; k++ {
				lw[k] = regs[k].Rho(c.PLower[i], false)
				up[k] = regs[k].Rho(c.PUpper[i], true)
			}
		}
	})
	return c, nil
}

// boundsByCount fills out[i] = f(x[i]), evaluating f once per distinct
// count (many nodes share their counts), in parallel.
func boundsByCount(out []float64, x []int, f func(int) float64) {
	var distinct []int
	seen := map[int]int{}
	for _, v := range x {
		if _, ok := seen[v]; !ok {
			seen[v] = len(distinct)
			distinct = append(distinct, v)
		}
	}
	vals := make([]float64, len(distinct))
	tensor.ParallelChunks(len(distinct), 16, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			vals[k] = f(distinct[k])
		}
	})
	for i, v := range x {
		out[i] = vals[seen[v]]
	}
}
