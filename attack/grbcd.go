package attack

import (
	"context"
	"fmt"
	"slices"
)

var grbcdSpec = Spec{
	Name: "grbcd",
	Description: "GR-BCD (Geisler et al. 2021): greedy randomized block coordinate descent, the budget in " +
		"500 equal steps, each flipping the top gradients of a fresh random block; MCE loss",
	Gradient: true, DefaultLoss: "mce",
	New: func(o Options) (Attack, error) {
		a := &GRBCD{Epochs: 500, BlockSize: 1_000_000}
		override(&a.Epochs, o.Epochs)
		override(&a.BlockSize, o.BlockSize)
		return a, nil
	},
}

// GRBCD is the greedy block attack: memory O(edges + block size).
type GRBCD struct {
	Epochs, BlockSize int
	// pairLimit, if positive, replaces bitmapMaxPairs (tests: the hash set
	// on a small graph).
	pairLimit int64
}

// Perturb implements Attack.
func (a *GRBCD) Perturb(ctx context.Context, env *Env, _ []Flip, budget int) ([]Flip, error) {
	adj := env.Problem.Adj
	n := adj.Rows
	steps := make([]int, 0, a.Epochs)
	if q := budget / a.Epochs; q > 0 {
		for i := 0; i < a.Epochs; i++ {
			steps = append(steps, q)
		}
		for i := 0; i < budget%a.Epochs; i++ {
			steps[i]++
		}
	} else {
		for i := 0; i < budget; i++ {
			steps = append(steps, 1)
		}
	}
	rng := newPairDraws(env.Seed, 5)
	floor := float32(-1)
	if env.Engine.AnyPair() {
		floor = 2 * pEps
	}
	var flips []Flip
	cur := adj
	limit := int64(bitmapMaxPairs)
	if a.pairLimit > 0 {
		limit = a.pairLimit
	}
	size := int(min(int64(a.BlockSize), numPairs(n)))
	done := newPairSet(numPairs(n), budget, limit) // flipped pairs are never drawn again
	pg := newPairGrader(env.Engine, n, numPairs(n))
	var grad []float32
	for si, k := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := &block{n: n, adj: cur, set: done.clone(size)}
		b.fill(rng, a.BlockSize)
		w, err := perturbedSigned(cur, b.pairs, b.p, b.sign, floor)
		if err != nil {
			return nil, err
		}
		if _, err := env.Engine.Evaluate(w, env.Loss, env.Targets, env.Problem.Labels, true); err != nil {
			return nil, fmt.Errorf("grbcd step %d: %w", si, err)
		}
		grad = slices.Grow(grad[:0], len(b.pairs))[:len(b.pairs)]
		if err := pg.grad(b.pairs, grad); err != nil {
			return nil, err
		}
		for i := range grad {
			grad[i] *= b.sign[i]
		}
		idx := topK(grad, k)
		step := make([]Flip, 0, k)
		for _, i := range idx {
			step = append(step, b.pairs[i])
			done.add(pairToLinear(n, b.pairs[i]))
		}
		flips = append(flips, step...)
		if cur, err = ApplyFlips(cur, step); err != nil {
			return nil, err
		}
		env.progress(si+1, len(steps))
	}
	sortFlips(flips)
	return flips, nil
}

// topK returns the indices of the k largest values, largest first (ties:
// lower index first), in O(k·len(x)) for the small steps of GR-BCD.
func topK(x []float32, k int) []int {
	if k > 64 {
		idx := make([]int, len(x))
		for i := range idx {
			idx[i] = i
		}
		sortByValue(idx, x, true)
		return idx[:min(k, len(idx))]
	}
	var out []int
	taken := map[int]bool{}
	for len(out) < min(k, len(x)) {
		bi := -1
		for i, v := range x {
			if !taken[i] && (bi < 0 || v > x[bi]) {
				bi = i
			}
		}
		taken[bi] = true
		out = append(out, bi)
	}
	return out
}
