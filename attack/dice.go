package attack

import (
	"context"
	"fmt"
)

var diceSpec = Spec{
	Name: "dice",
	Description: "DICE: delete random edges between same-label nodes, insert random edges between " +
		"different-label nodes (60% of the budget inserts)",
	New: func(o Options) (Attack, error) {
		r := 0.6
		if o.AddRatio > 0 {
			r = o.AddRatio
		}
		if r > 1 {
			return nil, fmt.Errorf("dice: add ratio %v > 1", r)
		}
		return &DICE{AddRatio: r}, nil
	},
}

// DICE is the heuristic attack "delete internally, connect externally"
// (at-scale attacks/dice.py): int(AddRatio·budget) insertions between
// different labels, the rest deletions between equal labels; all labels
// (test included) are known to the attacker.
type DICE struct{ AddRatio float64 }

// Perturb implements Attack.
func (a *DICE) Perturb(ctx context.Context, env *Env, _ []Flip, budget int) ([]Flip, error) {
	adj, labels := env.Problem.Adj, env.Problem.Labels
	n := adj.Rows
	rng := newRNG(env.Seed, 3)
	nAdd := int(a.AddRatio * float64(budget))
	nDel := budget - nAdd
	var same []Flip
	for u := 0; u < n; u++ {
		for k := adj.Indptr[u]; k < adj.Indptr[u+1]; k++ {
			if v := int(adj.Indices[k]); v > u && adj.Values[k] != 0 && labels[u] == labels[v] {
				same = append(same, Flip{int32(u), int32(v)})
			}
		}
	}
	if nDel > len(same) {
		return nil, fmt.Errorf("dice: %d deletions but only %d same-label edges", nDel, len(same))
	}
	// partial Fisher–Yates: the first nDel of a random permutation
	for i := 0; i < nDel; i++ {
		j := i + rng.IntN(len(same)-i)
		same[i], same[j] = same[j], same[i]
	}
	flips := append([]Flip(nil), same[:nDel]...)
	chosen := make(map[Flip]struct{}, nAdd)
	for tries := 0; len(chosen) < nAdd; tries++ {
		if tries > 1000*(nAdd+10) {
			return nil, fmt.Errorf("dice: could not find %d different-label non-edges", nAdd)
		}
		if tries%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		u, v := rng.IntN(n), rng.IntN(n)
		if u == v || labels[u] == labels[v] || hasEdge(adj, u, v) {
			continue
		}
		f := Flip{int32(min(u, v)), int32(max(u, v))}
		if _, dup := chosen[f]; dup {
			continue
		}
		chosen[f] = struct{}{}
		flips = append(flips, f)
	}
	sortFlips(flips)
	env.progress(budget, budget)
	return flips, nil
}
