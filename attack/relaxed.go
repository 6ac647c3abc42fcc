package attack

import (
	"math"
	"slices"
)

// pairGrader asks an engine for the gradients of a set of pairs: one
// PairGrad call, or — when the set covers a large share of all pairs and the
// engine can stream all-pairs rows — one ScanPairs pass picking the set's
// entries row by row (the all-pairs product has better locality than
// random per-pair dot products). Memory stays O(n + set).
type pairGrader struct {
	e      Engine
	de     DenseEngine
	n      int
	all    int64
	start  []int
	order  []int32
	cols   []int32 // byRow: the column of each sorted pair
	counts []int   // byRow: rowChunks' counts
	// sorted, sortedOut: the pairs in row order and their gradients
	// (sortedPairGrad)
	sorted    []Flip
	sortedOut []float32
}

func newPairGrader(e Engine, n int, all int64) *pairGrader {
	pg := &pairGrader{e: e, n: n, all: all}
	pg.de, _ = e.(DenseEngine)
	return pg
}

func (pg *pairGrader) grad(pairs []Flip, out []float32) error {
	if pg.de == nil || int64(len(pairs))*8 < pg.all {
		if len(pairs) < sortedPairGradMin {
			return pg.e.PairGrad(pairs, out)
		}
		return pg.sortedPairGrad(pairs, out)
	}
	order, start := pg.byRow(pairs)
	cols := pg.cols
	if raw, ok := pg.de.(rawScanner); ok {
		// The per-node terms for the set's entries only (the same bits).
		raw.ScanPairsRaw(func(u int, s []float32, gu float32, gamma []float32) {
			for k := start[u]; k < start[u+1]; k++ {
				c := cols[k]
				out[order[k]] = s[int(c)-u-1] + (gu + gamma[c])
			}
		})
		return nil
	}
	pg.de.ScanPairs(func(u int, s []float32) {
		for k := start[u]; k < start[u+1]; k++ {
			out[order[k]] = s[int(cols[k])-u-1]
		}
	})
	return nil
}

// rawScanner is a DenseEngine that streams its all-pairs rows without the
// per-node terms (engine.GCN): the gradient of (u, v) is s[v−u−1] +
// (γ_u + γ_v), with ScanPairs' bits.
type rawScanner interface {
	ScanPairsRaw(fn func(u int, s []float32, gu float32, gamma []float32))
}

// sortedPairGradMin is the smallest set of pairs whose gradients are asked
// for in row order: a large block in random order reads two random rows of
// the engine's factors per pair; in row order the first is shared by the
// row's pairs (on an arXiv-sized graph with a block of 1e6, PairGrad's CPU
// time falls by about half). Every pair's gradient is computed on its own,
// so the order does not change any value.
const sortedPairGradMin = 1 << 16

// sortedPairGrad asks for the gradients of pairs sorted by row and writes
// them back in the pairs' order.
func (pg *pairGrader) sortedPairGrad(pairs []Flip, out []float32) error {
	order, _ := pg.byRow(pairs)
	if cap(pg.sorted) < len(pairs) {
		pg.sorted, pg.sortedOut = make([]Flip, len(pairs)), make([]float32, len(pairs))
	}
	sorted, sout := pg.sorted[:len(pairs)], pg.sortedOut[:len(pairs)]
	for k, i := range order {
		sorted[k] = pairs[i]
	}
	if err := pg.e.PairGrad(sorted, sout); err != nil {
		return err
	}
	for k, i := range order {
		out[i] = sout[k]
	}
	return nil
}

// byRow returns the indices of pairs sorted by row (stably: a counting
// sort, on every worker for large sets — rowChunks) and the start of every
// row's run in them; pg.cols[k] is the column of pairs[order[k]].
func (pg *pairGrader) byRow(pairs []Flip) (order []int32, start []int) {
	n := pg.n
	if cap(pg.order) < len(pairs) {
		pg.order, pg.cols = make([]int32, len(pairs)), make([]int32, len(pairs))
	}
	order, cols := pg.order[:len(pairs)], pg.cols[:len(pairs)]
	pg.cols = cols
	rc := newRowChunks(len(pairs), n, pg.counts)
	pg.counts = rc.counts
	if cap(pg.start) < n+1 {
		pg.start = make([]int, n+1)
	}
	start = pg.start[:n+1]
	rc.each(func(_, lo, hi int, cnt []int) {
		for _, f := range pairs[lo:hi] {
			cnt[f.U]++
		}
	})
	rc.slots(start)
	rc.each(func(_, lo, hi int, next []int) {
		for j, f := range pairs[lo:hi] {
			k := next[f.U]
			order[k], cols[k] = int32(lo+j), f.V
			next[f.U] = k + 1
		}
	})
	return order, start
}

// sampleFinal turns relaxed weights into at most budget flips: first the
// top-budget weights (if topFirst), then up to samples Bernoulli(p) draws with at most
// budget flips; it keeps the draw with the lowest target accuracy of the
// attacked model (byLoss: the highest loss, as PGD) and returns it with its
// evaluation (the zero Eval if no draw was within the budget).
func sampleFinal(env *Env, pairs []Flip, p []float32, budget, samples int, rng interface{ Float64() float64 },
	byLoss, topFirst bool) ([]Flip, Eval, error) {
	eval := func(flips []Flip) (Eval, error) {
		adj, err := ApplyFlips(env.Problem.Adj, flips)
		if err != nil {
			return Eval{}, err
		}
		return env.Engine.Evaluate(adj, env.Loss, env.Targets, env.Problem.Labels, false)
	}
	return sampleFinalWith(eval, pairs, p, budget, samples, rng, byLoss, topFirst)
}

// sampleFinalWith is sampleFinal with the evaluation of a set of flips
// (sorted row-major) given.
func sampleFinalWith(eval func(flips []Flip) (Eval, error), pairs []Flip, p []float32, budget, samples int,
	rng interface{ Float64() float64 }, byLoss, topFirst bool) ([]Flip, Eval, error) {
	q := slices.Clone(p)
	for i, v := range q {
		if v <= pEps {
			q[i] = 0
		}
	}
	var bestFlips []Flip
	var bestEv Eval
	bestScore := math.Inf(1)
	first := 1
	if topFirst {
		first = 0
	}
	for s := first; s <= samples; s++ {
		var flips []Flip
		if s == 0 {
			idx := make([]int, 0, len(q))
			for i, v := range q {
				if v > 0 {
					idx = append(idx, i)
				}
			}
			sortByValue(idx, q, true)
			for _, i := range idx[:min(budget, len(idx))] {
				flips = append(flips, pairs[i])
			}
		} else {
			for i, v := range q {
				if v > 0 && rng.Float64() < float64(v) {
					flips = append(flips, pairs[i])
				}
			}
			if len(flips) > budget {
				continue
			}
		}
		sortFlips(flips)
		ev, err := eval(flips)
		if err != nil {
			return nil, Eval{}, err
		}
		score := ev.Accuracy
		if byLoss {
			score = -ev.Loss
		}
		if bestFlips == nil || score < bestScore {
			bestScore, bestFlips, bestEv = score, flips, ev
		}
	}
	return bestFlips, bestEv, nil
}

// sortByValue orders the indices idx by v[i], descending or ascending,
// stably (ties keep their order).
func sortByValue(idx []int, v []float32, desc bool) {
	slices.SortStableFunc(idx, func(x, y int) int {
		c := 0
		switch {
		case v[x] > v[y]:
			c = -1
		case v[x] < v[y]:
			c = 1
		}
		if !desc {
			c = -c
		}
		return c
	})
}

// denseOK reports whether an n-node graph's relaxed weights fit in memory
// as one slice (PGD).
func denseOK(n int) bool { return numPairs(n) <= 1<<28 }
