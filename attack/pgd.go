package attack

import (
	"context"
	"fmt"
	"math"
)

var pgdSpec = Spec{
	Name: "pgd",
	Description: "PGD (Xu et al. 2019, reference rgnn/pgd.py): relaxed flips on all pairs, 200 epochs of " +
		"gradient ascent (lr 200/√(t+1)), projection by bisection, K = 20 Bernoulli samples within budget; CE loss",
	Gradient: true, DenseGradient: true, DefaultLoss: "ce",
	New: func(o Options) (Attack, error) {
		a := &PGD{Epochs: 200, LR: 200, Samples: 20}
		override(&a.Epochs, o.Epochs)
		override(&a.LR, o.LRFactor)
		override(&a.Samples, o.Samples)
		return a, nil
	},
}

// PGD is projected gradient descent on relaxed flip weights p ∈ [0, 1] for
// every pair, restarted from the clean graph at every budget. Memory is
// O(n²/2) float32 for p (cora_ml: 16 MB) plus O(n·(C+h)) for the gradient.
type PGD struct {
	Epochs  int
	LR      float64
	Samples int
}

// Perturb implements Attack.
func (a *PGD) Perturb(ctx context.Context, env *Env, _ []Flip, budget int) ([]Flip, error) {
	de, ok := env.Engine.(DenseEngine)
	if !ok {
		return nil, fmt.Errorf("pgd: the attacked model does not provide all-pairs gradients (use the gcn surrogate)")
	}
	if budget == 0 {
		return nil, nil
	}
	adj := env.Problem.Adj
	n := adj.Rows
	if !denseOK(n) {
		return nil, fmt.Errorf("pgd: %d nodes are too many for dense relaxed weights; use prbcd", n)
	}
	p := make([]float32, numPairs(n))
	rowOff := func(u int) int64 { return pairToLinear(n, Flip{int32(u), int32(u + 1)}) }
	for t := 0; t < a.Epochs; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pairs, vals := nonzeroPairs(n, p)
		w, err := Perturbed(adj, pairs, vals, 0)
		if err != nil {
			return nil, err
		}
		if _, err := de.Evaluate(w, env.Loss, env.Targets, env.Problem.Labels, true); err != nil {
			return nil, fmt.Errorf("pgd epoch %d: %w", t, err)
		}
		lr := float32(a.LR / math.Sqrt(float64(t+1)))
		de.ScanPairs(func(u int, s []float32) {
			row := p[rowOff(u) : rowOff(u)+int64(len(s))]
			for k := adj.Indptr[u]; k < adj.Indptr[u+1]; k++ {
				if v := int(adj.Indices[k]); v > u && adj.Values[k] != 0 {
					s[v-u-1] = -s[v-u-1]
				}
			}
			for j, g := range s {
				row[j] += lr * g
			}
		})
		ProjectBudget(p, float64(budget), 0)
		env.progress(t+1, a.Epochs)
	}
	pairs, vals := nonzeroPairs(n, p)
	rng := newRNG(env.Seed, 4)
	for round := 0; round < 100; round++ {
		flips, _, err := sampleFinal(env, pairs, vals, budget, a.Samples, rng, true, false)
		if err != nil {
			return nil, err
		}
		if flips != nil || len(pairs) == 0 {
			return flips, nil
		}
	}
	return nil, fmt.Errorf("pgd: no Bernoulli sample within the budget %d in 100 rounds", budget)
}

// nonzeroPairs lists the pairs with p > 0 of a dense triangle vector.
func nonzeroPairs(n int, p []float32) ([]Flip, []float32) {
	var pairs []Flip
	var vals []float32
	lin := 0
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if p[lin] > 0 {
				pairs = append(pairs, Flip{int32(u), int32(v)})
				vals = append(vals, p[lin])
			}
			lin++
		}
	}
	return pairs, vals
}
