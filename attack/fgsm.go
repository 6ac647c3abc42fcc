package attack

import (
	"context"
	"fmt"
	"math"
)

var fgsmSpec = Spec{
	Name: "fgsm",
	Description: "FGSM / greedy gradient attack (reference rgnn/fgsm.py): flip the single pair with the " +
		"largest signed gradient, repeat; incremental across budgets; CE loss",
	Incremental: true, Gradient: true, DenseGradient: true, DefaultLoss: "ce",
	New: func(Options) (Attack, error) { return &FGSM{}, nil },
}

// FGSM flips, one at a time, the pair whose weight gradient (signed: +
// for insertions, − for deletions) is the largest, never flipping a pair
// twice. Each step needs the gradient for all n(n−1)/2 pairs
// (DenseEngine.ScanPairs), of which only the per-row maxima are kept.
type FGSM struct{}

// Perturb implements Attack.
func (a *FGSM) Perturb(ctx context.Context, env *Env, prev []Flip, budget int) ([]Flip, error) {
	de, ok := env.Engine.(DenseEngine)
	if !ok {
		return nil, fmt.Errorf("fgsm: the attacked model does not provide all-pairs gradients (use the gcn surrogate)")
	}
	orig := env.Problem.Adj
	n := orig.Rows
	flips := append([]Flip(nil), prev...)
	cur, err := ApplyFlips(orig, flips)
	if err != nil {
		return nil, err
	}
	flippedRow := make([][]int32, n)
	for _, f := range flips {
		flippedRow[f.U] = append(flippedRow[f.U], f.V)
	}
	bestV := make([]int32, n)
	bestS := make([]float32, n)
	for len(flips) < budget {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := de.Evaluate(cur, env.Loss, env.Targets, env.Problem.Labels, true); err != nil {
			return nil, fmt.Errorf("fgsm step %d: %w", len(flips), err)
		}
		de.ScanPairs(func(u int, s []float32) {
			base := u + 1
			for k := cur.Indptr[u]; k < cur.Indptr[u+1]; k++ {
				if v := int(cur.Indices[k]); v > u && cur.Values[k] != 0 {
					s[v-base] = -s[v-base]
				}
			}
			for _, v := range flippedRow[u] {
				s[int(v)-base] = float32(math.Inf(-1))
			}
			bi, bs := -1, float32(math.Inf(-1))
			for j, x := range s {
				if x > bs {
					bi, bs = j, x
				}
			}
			bestV[u], bestS[u] = int32(bi+base), bs
			if bi < 0 {
				bestV[u] = -1
			}
		})
		bu := -1
		for u := 0; u < n-1; u++ {
			if bestV[u] >= 0 && (bu < 0 || bestS[u] > bestS[bu]) {
				bu = u
			}
		}
		if bu < 0 {
			return nil, fmt.Errorf("fgsm: no pair left to flip after %d flips", len(flips))
		}
		f := Flip{int32(bu), bestV[bu]}
		flips = append(flips, f)
		flippedRow[f.U] = append(flippedRow[f.U], f.V)
		if cur, err = ApplyFlips(cur, []Flip{f}); err != nil {
			return nil, err
		}
		env.progress(len(flips), budget)
		if env.Flips != nil {
			env.Flips(flips)
		}
	}
	return flips, nil
}
