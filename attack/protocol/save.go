package protocol

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/npz"
)

// FileName is the reference-style name of a perturbed graph.
func FileName(dataset, attack string, seed uint64, eps float64) string {
	return fmt.Sprintf("%s_%s_s%d_eps%s.npz", dataset, attack, seed, strconv.FormatFloat(eps, 'g', -1, 64))
}

// Save writes every perturbed graph of res into dir in the reference attack
// format and returns the paths.
func (res *Result) Save(dir string) ([]string, error) {
	var paths []string
	for _, b := range res.Budgets {
		path, err := res.SaveBudget(dir, b)
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// SaveBudget writes b's perturbed graph into dir (as Save) and returns the
// path.
func (res *Result) SaveBudget(dir string, b BudgetResult) (string, error) {
	path := filepath.Join(dir, FileName(res.Dataset, res.Attack, res.Seed, b.Epsilon))
	if res.CleanAdj == nil {
		return path, data.SavePerturbedAdj(path, b.Adj)
	}
	return path, data.SavePerturbedGraph(path, res.CleanAdj, b.Adj)
}

// TargetFileName is the name of one target's perturbed graph.
func TargetFileName(dataset, attack string, seed uint64, target, budget int, victim string) string {
	s := fmt.Sprintf("%s_%s_s%d_node%d_budget%d", dataset, attack, seed, target, budget)
	if victim != "" {
		s += "_" + victim
	}
	return s + ".npz"
}

// Save writes every target's perturbed graph into dir in the reference
// attack format (per victim in direct mode) and returns the paths, each
// once (rows of two ε with the same budget share one file). A target with
// feature flips also gets them as feature_flips (k×2 int64: node, feature;
// toggles of the binary features the attack saw).
func (res *TargetedResult) Save(dir string, p *data.Problem) ([]string, error) {
	var paths []string
	saved := map[string]bool{}
	for _, r := range res.Rows {
		for i, v := range r.Victims {
			victim := ""
			if res.Mode == "direct" {
				victim = v.Name
			} else if i > 0 {
				break // transfer: the same flips for every victim
			}
			path := filepath.Join(dir, TargetFileName(res.Dataset, res.Attack, res.Seed, r.Target, r.Budget, victim))
			if saved[path] {
				continue
			}
			saved[path] = true
			fl := make([]attack.Flip, len(v.Flips))
			for k, f := range v.Flips {
				fl[k] = attack.Flip{U: int32(f[0]), V: int32(f[1])}
			}
			adj, err := attack.ApplyFlips(p.Adj, fl)
			if err != nil {
				return paths, err
			}
			var extra []npz.Entry
			if ff := v.FeatureFlips; len(ff) > 0 {
				// the target's feature flips, k×2 int64 (node, feature)
				fl := make([]int64, 0, 2*len(ff))
				for _, f := range ff {
					fl = append(fl, int64(f[0]), int64(f[1]))
				}
				extra = append(extra, npz.I64("feature_flips", []int{len(ff), 2}, fl))
			}
			if err := data.SavePerturbedGraph(path, p.Adj, adj, extra...); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}
