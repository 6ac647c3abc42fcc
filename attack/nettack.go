package attack

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack/nettack"
)

var nettackSpec = Spec{
	Name: "nettack",
	Description: "Nettack (Zügner et al. 2018), targeted: greedy direct structure (and, with perturb features|both, " +
		"binary feature) flips on a linearised GCN surrogate (hidden 16) trained on the clean graph, degree " +
		"log-likelihood test, feature co-occurrence test; transfer to every victim",
	Targeted: true,
	New:      errTargeted("nettack"),
	NewTargeted: func(o Options) (TargetedAttack, error) {
		repo, cutoff, err := degreeTest(o.DegreeTest)
		if err != nil {
			return nil, fmt.Errorf("nettack: %w", err)
		}
		perturb, err := nettack.ParsePerturb(o.Perturb)
		if err != nil {
			return nil, fmt.Errorf("nettack: %w", err)
		}
		return nettackAttack{repo: repo, cutoff: cutoff, perturb: perturb, influencers: o.Influencers}, nil
	},
}

// nettackAttack adapts package nettack to TargetedAttack: the linearised
// surrogate is trained once per call (seed env.Seed) and every job is
// attacked independently in parallel.
type nettackAttack struct {
	repo    bool    // the published code's log-likelihood sign
	cutoff  float64 // 0: default; negative: no degree test
	perturb nettack.Perturb
	// influencers > 0: the influencer attack through that many neighbours.
	influencers int
}

func (a nettackAttack) PerturbTargets(ctx context.Context, env *TargetEnv, jobs []TargetBudget) ([][]Flip, error) {
	f, ff, err := a.PerturbTargetsFeatures(ctx, env, jobs)
	if err != nil {
		return nil, err
	}
	for i := range ff {
		if len(ff[i]) > 0 {
			return nil, fmt.Errorf("nettack: target %d has feature flips; use PerturbTargetsFeatures", jobs[i].Node)
		}
	}
	return f, nil
}

func (a nettackAttack) PerturbTargetsFeatures(ctx context.Context, env *TargetEnv, jobs []TargetBudget) ([][]Flip, [][]FeatureFlip, error) {
	p := env.Problem
	sur, err := nettack.TrainSurrogate(ctx, p.Adj, p.Features, p.Labels, p.NumClasses, p.Train, p.Val,
		nettack.SurrogateOptions{Seed: env.Seed})
	if err != nil {
		return nil, nil, err
	}
	targets := make([]nettack.Target, len(jobs))
	for i, j := range jobs {
		targets[i] = nettack.Target{Node: j.Node, Budget: j.Budget}
	}
	res, err := nettack.Attack(ctx, p.Adj, sur, p.Labels, targets,
		nettack.Options{Workers: env.Workers, RepoLogLikelihood: a.repo, LLCutoff: a.cutoff, Perturb: a.perturb,
			Influencers: a.influencers},
		nettack.Progress(env.Progress))
	if err != nil {
		return nil, nil, err
	}
	out := make([][]Flip, len(res))
	feats := make([][]FeatureFlip, len(res))
	for i, r := range res {
		fl := make([]Flip, len(r.Flips))
		for k, f := range r.Flips {
			fl[k] = Flip{int32(min(f[0], f[1])), int32(max(f[0], f[1]))}
		}
		sortFlips(fl)
		out[i] = fl
		for _, f := range r.FeatureFlips {
			feats[i] = append(feats[i], FeatureFlip{int32(f[0]), int32(f[1])})
		}
	}
	return out, feats, nil
}
