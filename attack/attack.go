package attack

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/data"
)

// Env is what an attack sees: the clean problem, the gradient engine of the
// attacked model (nil for attacks that need none), the targets and loss.
type Env struct {
	Problem *data.Problem
	Engine  Engine
	Targets []int
	Loss    Loss
	Seed    uint64
	// Progress, if set, reports work done out of total for the current budget.
	Progress func(done, total int)
	// Flips, if set, is called by incremental attacks (Spec.Incremental)
	// after every flip with all flips so far, so that a long run can be
	// checkpointed and continued from them; the slice is only valid during
	// the call.
	Flips func(flips []Flip)
}

func (e *Env) progress(done, total int) {
	if e.Progress != nil {
		e.Progress(done, total)
	}
}

// Attack computes a perturbation of the clean graph.
type Attack interface {
	// Perturb returns at most budget flips of env.Problem.Adj. prev holds
	// the flips of the previous (smaller) budget for incremental attacks
	// (Spec.Incremental); the result then extends prev.
	Perturb(ctx context.Context, env *Env, prev []Flip, budget int) ([]Flip, error)
}

// Options are the attack hyper-parameters; zero values mean the reference
// defaults of each attack.
type Options struct {
	// Epochs: PGD 200, PR-BCD/GR-BCD 500 (PR-BCD's include its fine-tuning),
	// local PR-BCD 500 (its fine-tuning follows them); Metattack's number of
	// inner training steps (100).
	Epochs         int
	FineTuneEpochs int     // PR-BCD 100, local PR-BCD 100
	BlockSize      int     // PR-BCD/GR-BCD 1e6 (capped at n(n−1)/2)
	LRFactor       float64 // PR-BCD 100; PGD base lr 200
	AddRatio       float64 // DICE 0.6
	Samples        int     // final Bernoulli samples (PGD K = 20, PR-BCD 20)
	Refine         int     // PR-BCD: greedy swap rounds after sampling (0: none, the reference); GCN/GDC engines only
	// Variant selects an attack's variant (metattack: "self" or "approx").
	Variant string
	// DegreeTest selects Nettack's and Metattack's degree-distribution
	// likelihood-ratio test (DegreeTests): "" or "paper", "repo", "off".
	DegreeTest string
	// Perturb selects what a targeted attack that implements
	// FeatureTargetedAttack may flip (Perturbs): "" or "structure", "features"
	// (binary features only) or "both" (nettack).
	Perturb string
	// Influencers selects Nettack's influencer (indirect) attack through
	// that many neighbours of the target; 0, the default, is the direct
	// attack.
	Influencers int
	// EnginePPREps is the push error of an adaptive attack's forward pass
	// through a push-PPR victim (engine.PushPPR): 0, the default, is the
	// victim's own preprocessing; a larger eps approximates it at a
	// fraction of the cost (the victim is evaluated with its own).
	EnginePPREps float64
}

// DegreeTests are the values of Options.DegreeTest: "paper" is the
// power-law log-likelihood of Zügner et al. (eq. 7), "repo" the one the
// published Nettack/Metattack code computes (+(α+1)·S_d, usually the
// stricter test), "off" no degree test (DeepRobust's Metattack example
// runs with ll_constraint=False).
var DegreeTests = []string{"paper", "repo", "off"}

// degreeTest maps Options.DegreeTest to (repo sign, cutoff) for the
// attacks that take the test: cutoff 0 = the default χ² cutoff, negative =
// off.
func degreeTest(s string) (repo bool, cutoff float64, err error) {
	switch s {
	case "", "paper":
		return false, 0, nil
	case "repo":
		return true, 0, nil
	case "off":
		return false, -1, nil
	}
	return false, 0, fmt.Errorf("unknown degree test %q (paper, repo, off)", s)
}

// override sets *dst to v if v is set (positive): an Options field that
// replaces an attack's default.
func override[T int | float64](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}
