package data

import (
	"fmt"

	"github.com/rgnn/rgnn/npz"
)

// FeatureFlip toggles one binary feature of one node.
type FeatureFlip struct{ Node, Feature int32 }

// LoadFeatureFlips reads the optional feature_flips entry of a
// perturbed-graph file (int64 [k, 2]: node, feature; written by a targeted
// attack that flips features) for an n×d feature matrix. It returns nil
// when the file has no such entry. Every flip must lie inside the features
// and none may repeat.
func LoadFeatureFlips(path string, n, d int) ([]FeatureFlip, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	if !a.Has("feature_flips") {
		return nil, nil
	}
	v, shape, err := a.Int64("feature_flips")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[1] != 2 {
		return nil, fmt.Errorf("%s: feature_flips has shape %v, want [k, 2] (node, feature)", path, shape)
	}
	ff := make([]FeatureFlip, shape[0])
	seen := make(map[FeatureFlip]int, len(ff))
	for i := range ff {
		u, f := v[2*i], v[2*i+1]
		if u < 0 || u >= int64(n) || f < 0 || f >= int64(d) {
			return nil, fmt.Errorf("%s: feature flip %d (%d, %d) outside the %d×%d features", path, i, u, f, n, d)
		}
		ff[i] = FeatureFlip{Node: int32(u), Feature: int32(f)}
		if j, dup := seen[ff[i]]; dup {
			return nil, fmt.Errorf("%s: feature flip (%d, %d) repeated (entries %d and %d)", path, u, f, j, i)
		}
		seen[ff[i]] = i
	}
	return ff, nil
}
