package attack

import (
	"context"
	"fmt"
	"slices"

	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/tensor"
)

// FeatureFlip toggles the binary feature X[Node, Feature]: a nonzero entry
// becomes 0, a zero one becomes 1.
type FeatureFlip struct{ Node, Feature int32 }

// FeatureTargetedAttack is a TargetedAttack that may also flip features
// (Options.Perturb "features" or "both"; nettack).
type FeatureTargetedAttack interface {
	TargetedAttack
	// PerturbTargetsFeatures returns, for each job, the edge flips and the
	// feature flips, together at most job.Budget.
	PerturbTargetsFeatures(ctx context.Context, env *TargetEnv, jobs []TargetBudget) ([][]Flip, [][]FeatureFlip, error)
}

// Perturbs are the values of Options.Perturb for attacks that implement
// FeatureTargetedAttack ("" means "structure"): nettack's PerturbNames.
var Perturbs = nettack.PerturbNames

// CheckFeatureFlips verifies feature flips of an n×d feature matrix: in
// range, no feature flipped twice, at most budget (budget < 0: no bound).
func CheckFeatureFlips(ff []FeatureFlip, n, d, budget int) error {
	if budget >= 0 && len(ff) > budget {
		return fmt.Errorf("attack: %d feature flips exceed the remaining budget %d", len(ff), budget)
	}
	seen := make(map[FeatureFlip]struct{}, len(ff))
	for i, f := range ff {
		if f.Node < 0 || int(f.Node) >= n || f.Feature < 0 || int(f.Feature) >= d {
			return fmt.Errorf("attack: feature flip %d (%d, %d) outside %d×%d features", i, f.Node, f.Feature, n, d)
		}
		if _, dup := seen[f]; dup {
			return fmt.Errorf("attack: feature flip (%d, %d) repeated", f.Node, f.Feature)
		}
		seen[f] = struct{}{}
	}
	return nil
}

// ApplyFeatureFlips returns a copy of x with the flips applied (a stored
// nonzero is removed, a missing entry becomes 1); x itself is unchanged.
func ApplyFeatureFlips(x *tensor.CSR, ff []FeatureFlip) (*tensor.CSR, error) {
	if err := CheckFeatureFlips(ff, x.Rows, x.Cols, -1); err != nil {
		return nil, err
	}
	if len(ff) == 0 {
		return x, nil
	}
	byRow := map[int32][]int32{}
	for _, f := range ff {
		byRow[f.Node] = append(byRow[f.Node], f.Feature)
	}
	out := &tensor.CSR{Rows: x.Rows, Cols: x.Cols, Indptr: make([]int, x.Rows+1)}
	out.Indices = make([]int32, 0, len(x.Indices)+len(ff))
	out.Values = make([]float32, 0, len(x.Values)+len(ff))
	for r := 0; r < x.Rows; r++ {
		fs := byRow[int32(r)]
		if len(fs) == 0 {
			out.Indices = append(out.Indices, x.Indices[x.Indptr[r]:x.Indptr[r+1]]...)
			out.Values = append(out.Values, x.Values[x.Indptr[r]:x.Indptr[r+1]]...)
			out.Indptr[r+1] = len(out.Indices)
			continue
		}
		slices.Sort(fs)
		k, e := x.Indptr[r], x.Indptr[r+1]
		for _, f := range fs {
			for k < e && x.Indices[k] < f {
				out.Indices, out.Values = append(out.Indices, x.Indices[k]), append(out.Values, x.Values[k])
				k++
			}
			if k < e && x.Indices[k] == f {
				k++ // remove
			} else {
				out.Indices, out.Values = append(out.Indices, f), append(out.Values, 1)
			}
		}
		out.Indices = append(out.Indices, x.Indices[k:e]...)
		out.Values = append(out.Values, x.Values[k:e]...)
		out.Indptr[r+1] = len(out.Indices)
	}
	return out, nil
}
