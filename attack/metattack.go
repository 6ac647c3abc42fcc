package attack

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack/metattack"
	"github.com/rgnn/rgnn/data"
)

var metattackSpec = Spec{
	Name: "metattack",
	Description: "Metattack (poisoning): greedy flips by meta-gradients through the training of a linear " +
		"GCN surrogate (variant self: Meta-Self, exact; approx: MetaApprox); victims are retrained on the perturbed graph",
	Incremental: true,
	Poisoning:   true,
	New: func(o Options) (Attack, error) {
		repo, cutoff, err := degreeTest(o.DegreeTest)
		if err != nil {
			return nil, fmt.Errorf("metattack: %w", err)
		}
		mo := metattack.Options{TrainIters: o.Epochs, RepoLogLikelihood: repo, LLCutoff: cutoff}
		switch o.Variant {
		case "", "self":
			mo.Variant = metattack.Self
		case "approx":
			mo.Variant = metattack.Approx
		default:
			return nil, fmt.Errorf("metattack: unknown variant %q (self, approx)", o.Variant)
		}
		return &Metattack{Options: mo}, nil
	},
}

// Metattack adapts package metattack to the registry: the attacker knows
// the training labels, its loss is on val ∪ test with Meta-Self's
// self-training labels (a linearised GCN trained on the clean graph with
// the run's seed), the inner surrogates are seeded with the run's seed.
type Metattack struct {
	Options metattack.Options
	self    []int32 // self-training labels, computed on the first Perturb
	selfFor *data.Problem
}

// Perturb implements Attack; prev (the flips of a smaller budget) is
// continued.
func (a *Metattack) Perturb(ctx context.Context, env *Env, prev []Flip, budget int) ([]Flip, error) {
	p := env.Problem
	if a.self == nil || a.selfFor != p {
		self, err := metattack.SelfTrainingLabels(ctx, p, env.Seed)
		if err != nil {
			return nil, err
		}
		a.self, a.selfFor = self, p
	}
	o := a.Options
	o.Seed, o.SelfLabels = env.Seed, a.self // the loss on the default unlabelled nodes, val ∪ test
	if env.Flips != nil {
		var buf []Flip
		o.OnFlip = func(pairs [][2]int) {
			buf = buf[:0]
			for _, f := range pairs {
				buf = append(buf, Flip{U: int32(f[0]), V: int32(f[1])})
			}
			env.Flips(buf)
		}
	}
	pairs := make([][2]int, len(prev))
	for i, f := range prev {
		pairs[i] = [2]int{int(f.U), int(f.V)}
	}
	res, err := metattack.Continue(ctx, p, pairs, budget, o, env.progress)
	if err != nil {
		return nil, err
	}
	out := make([]Flip, len(res.Flips))
	for i, f := range res.Flips {
		out[i] = Flip{U: int32(f[0]), V: int32(f[1])}
	}
	return out, nil
}
