package protocol

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/train"
)

// binaryProblem is smallProblem with binarised features.
func binaryProblem(t *testing.T, n int, seed uint64) *data.Problem {
	p := attacktest.SmallProblem(t, n, seed)
	x := p.Features.Clone()
	for i := range x.Values {
		x.Values[i] = 1
	}
	p.Features, p.X = x, autograd.NewSparse(x)
	return p
}

// Nettack with feature flips through RunTargeted: the budget holds, every
// victim (also Jaccard, whose preprocessing reads the features) is
// evaluated on the perturbed graph AND the perturbed features, the
// structure mode makes no feature flip, and other attacks refuse feature
// perturbations.
func TestRunTargetedNettackFeatures(t *testing.T) {
	p := binaryProblem(t, 40, 7)
	victims := []Victim{{Name: "gcn", Model: trainedSmall(t, p, "gcn", 1)}, {Name: "jaccard", Model: trainedSmall(t, p, "jaccard_gcn", 1)}}
	targets := p.Test[:5]
	ctx := context.Background()
	for _, perturb := range []string{"structure", "features", "both"} {
		res, err := RunTargeted(ctx, TargetedConfig{Attack: "nettack", Targets: targets, Budget: TargetedBudget{Plus: 2}, Seed: 2,
			Options: attack.Options{Perturb: perturb}, Victims: victims}, p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Perturb != perturb {
			t.Errorf("perturb %q reported as %q", perturb, res.Perturb)
		}
		nf := 0
		for _, r := range res.Rows {
			for _, v := range r.Victims {
				if len(v.Flips)+len(v.FeatureFlips) > r.Budget {
					t.Errorf("%s target %d: %d+%d flips, budget %d", perturb, r.Target, len(v.Flips), len(v.FeatureFlips), r.Budget)
				}
				if perturb == "features" && len(v.Flips) > 0 || perturb == "structure" && len(v.FeatureFlips) > 0 {
					t.Errorf("%s target %d: edge flips %v, feature flips %v", perturb, r.Target, v.Flips, v.FeatureFlips)
				}
				for _, f := range v.FeatureFlips {
					if f[0] != r.Target {
						t.Errorf("%s target %d: feature flip %v of another node", perturb, r.Target, f)
					}
				}
			}
			nf += len(r.Victims[0].FeatureFlips)
			// recompute the victims' margins by hand
			fl := make([]attack.Flip, len(r.Victims[0].Flips))
			for k, f := range r.Victims[0].Flips {
				fl[k] = attack.Flip{U: int32(f[0]), V: int32(f[1])}
			}
			var ff []attack.FeatureFlip
			for _, f := range r.Victims[0].FeatureFlips {
				ff = append(ff, attack.FeatureFlip{Node: int32(f[0]), Feature: int32(f[1])})
			}
			adj, err := attack.ApplyFlips(p.Adj, fl)
			if err != nil {
				t.Fatal(err)
			}
			x, err := attack.ApplyFeatureFlips(p.Features, ff)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range victims {
				g, err := v.Model.Preprocess(adj, x)
				if err != nil {
					t.Fatal(err)
				}
				m := nettack.ProbMargins(train.Predict(v.Model, g, autograd.NewSparse(x)), p.Labels)[r.Target]
				if math.Abs(m-r.Victims[i].Margin) > 1e-6 {
					t.Errorf("%s target %d victim %s: margin %v, recomputed %v", perturb, r.Target, v.Name, r.Victims[i].Margin, m)
				}
			}
		}
		if perturb != "structure" && nf == 0 {
			t.Errorf("%s: no feature flip", perturb)
		}
		for _, s := range res.Summary {
			if perturb == "structure" && s.MeanFeatureFlips != 0 || perturb == "features" && s.MeanEdgeFlips != 0 {
				t.Errorf("%s: summary %+v", perturb, s)
			}
		}
		if perturb == "both" {
			dir := t.TempDir()
			paths, err := res.Save(dir, p)
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range res.Rows {
				a, err := npz.Open(filepath.Join(dir, TargetFileName(p.Name, "nettack", 2, r.Target, r.Budget, "")))
				if err != nil {
					t.Fatal(err)
				}
				ff := r.Victims[0].FeatureFlips
				if !a.Has("feature_flips") {
					if len(ff) > 0 {
						t.Errorf("%s: no feature_flips", paths[k])
					}
					continue
				}
				v, shape, err := a.Int64("feature_flips")
				if err != nil {
					t.Fatal(err)
				}
				got := make([][2]int, len(ff))
				for i := range got {
					got[i] = [2]int{int(v[2*i]), int(v[2*i+1])}
				}
				if !reflect.DeepEqual(shape, []int{len(ff), 2}) || !reflect.DeepEqual(got, ff) {
					t.Errorf("%s: feature_flips %v %v, want %v", paths[k], shape, v, ff)
				}
			}
		}
	}
	// errors
	q := attacktest.SmallProblem(t, 40, 7) // real-valued features
	if _, err := RunTargeted(ctx, TargetedConfig{Attack: "nettack", Targets: targets, Options: attack.Options{Perturb: "both"}, Victims: victims}, q); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("non-binary features: %v", err)
	}
	if _, err := RunTargeted(ctx, TargetedConfig{Attack: "local_prbcd", Targets: targets, Options: attack.Options{Perturb: "features"}, Victims: victims}, p); err == nil || !strings.Contains(err.Error(), "edges only") {
		t.Errorf("local_prbcd with features: %v", err)
	}
	if _, err := RunTargeted(ctx, TargetedConfig{Attack: "nettack", Targets: targets, Options: attack.Options{Perturb: "edges"}, Victims: victims}, p); err == nil {
		t.Error("unknown perturbation accepted")
	}
}

// Nettack's own error on non-binary features is passed on with its
// "nettack:" prefix once, not twice.
func TestRunTargetedNettackNonBinaryError(t *testing.T) {
	p := attacktest.SmallProblem(t, 30, 3)
	victims := []Victim{{Name: "gcn", Model: trainedSmall(t, p, "gcn", 1)}}
	_, err := RunTargeted(context.Background(), TargetedConfig{Attack: "nettack", Targets: p.Test[:2], Budget: TargetedBudget{Plus: 1},
		Seed: 1, Options: attack.Options{Perturb: "features"}, Victims: victims}, p)
	if err == nil || !strings.HasPrefix(err.Error(), "nettack: ") || strings.Contains(err.Error(), "nettack: nettack:") ||
		!strings.Contains(err.Error(), "binary") {
		t.Fatalf("non-binary features: %v", err)
	}
}
