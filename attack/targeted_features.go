package attack

import (
	"context"
	"fmt"
	"slices"

	"github.com/rgnn/rgnn/npz"
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
// FeatureTargetedAttack ("" means "structure").
var Perturbs = []string{"structure", "features", "both"}

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

// savePerturbed writes one target's perturbed graph in the reference
// attack format (edge_index, edge_weight, shape) and, if there are any,
// its feature flips as feature_flips (k×2 int64: node, feature).
func savePerturbed(path string, adj *tensor.CSR, ff [][2]int) error {
	e := adj.Nnz()
	ei := make([]int64, 2*e)
	w := make([]float32, e)
	for r := 0; r < adj.Rows; r++ {
		for k := adj.Indptr[r]; k < adj.Indptr[r+1]; k++ {
			ei[k], ei[e+k], w[k] = int64(r), int64(adj.Indices[k]), adj.Values[k]
		}
	}
	fl := make([]int64, 0, 2*len(ff))
	for _, f := range ff {
		fl = append(fl, int64(f[0]), int64(f[1]))
	}
	return npz.WriteFile(path, npz.I64("edge_index", []int{2, e}, ei), npz.F32("edge_weight", []int{e}, w),
		npz.I64("shape", []int{2}, []int64{int64(adj.Rows), int64(adj.Cols)}),
		npz.I64("feature_flips", []int{len(ff), 2}, fl))
}
