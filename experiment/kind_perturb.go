package experiment

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
)

// perturbKind computes a transfer (or model-free) global attack on the clean
// graph: the surrogate GCN is trained on the clean graph with the run's split
// seed, the perturbation computed on it, and the perturbed graph stored as the
// artifact "perturbed_graph" (reference attack format). It does not depend on
// any victim, so every attack run of the same (dataset, seed, attack, ε)
// reuses it through Env.Require. Metrics: budget, flips, added, removed,
// attack_seconds, surrogate_clean_acc, surrogate_perturbed_acc, mode.
func perturbKind() *Kind {
	return &Kind{
		Name:   "perturb",
		Doc:    "compute a transfer/model-free global attack on the clean graph, store the perturbed graph",
		Params: perturbParams(),
		Run:    runPerturb,
	}
}

func perturbParams() []Param {
	return []Param{
		{"dataset", "cora_ml", "dataset name (or path to a dataset .npz)"},
		{"binary_attr", false, "binarise the features"},
		{"seed", 0, "seed of the split, the initialisation and dropout"},
		{"attack", "fgsm", "attack: dice, fgsm, pgd, prbcd, grbcd"},
		{"epsilon", 0.1, "budget as a fraction of the clean graph's edges"},
		{"attack_seed", 0, "seed of the attack's randomness (and of its surrogate)"},
		{"loss", "", "attack loss (ce, mce, margin, tanh_margin, cw); empty: the attack's default"},
		{"attack_epochs", 0, "PGD/PR-BCD/GR-BCD epochs; 0: the reference's"},
		{"block_size", 0, "PR-BCD/GR-BCD block size; 0: the reference's (1e6)"},
	}
}

// attackProblem is the attack package's view of a loaded problem.
func attackProblem(pb *Problem) *data.Problem {
	g := pb.Graph
	return &data.Problem{Name: g.Name, Adj: g.Adj, Features: g.Features, X: pb.X, Labels: g.Labels,
		NumClasses: g.NumClasses, Train: pb.Train, Val: pb.Val, Test: pb.Test}
}

// attackConfig is the protocol.Config of a run's parameters (no victims).
func attackConfig(env *Env, p store.Params) protocol.Config {
	name, eps := pStr(p, "attack"), pFloat(p, "epsilon")
	return protocol.Config{
		Attack: name, Epsilons: []float64{eps}, Seed: uint64(pInt(p, "attack_seed")), Loss: pStr(p, "loss"),
		Options: attack.Options{Epochs: pInt(p, "attack_epochs"), BlockSize: pInt(p, "block_size")},
		Progress: func(stage string, done, total int) {
			if done == total {
				env.logf("  %s ε=%v: %s done", name, eps, stage)
			}
		},
	}
}

func runPerturb(ctx context.Context, env *Env, p store.Params) (*Output, error) {
	pb, err := env.Problem(ctx, p)
	if err != nil {
		return nil, err
	}
	res, err := protocol.Run(ctx, attackConfig(env, p), attackProblem(pb))
	if err != nil {
		return nil, err
	}
	return budgetOutput(env, res)
}

// budgetOutput stores the perturbed graph of res's only budget and returns
// the attack's metrics.
func budgetOutput(env *Env, res *protocol.Result) (*Output, error) {
	if len(res.Budgets) != 1 {
		return nil, fmt.Errorf("attack %s: %d budgets, want 1", res.Attack, len(res.Budgets))
	}
	b := res.Budgets[0]
	sha, err := env.Store.PutArtifact(func(path string) error { return data.SavePerturbedAdj(path, b.Adj) })
	if err != nil {
		return nil, err
	}
	return &Output{Metrics: map[string]any{
		"budget": b.Budget, "flips": b.NumFlips, "added": b.Added, "removed": b.Removed,
		"attack_seconds": b.Seconds, "mode": res.Mode,
		"surrogate_clean_acc": res.AttackedClean, "surrogate_perturbed_acc": b.AttackedAccuracy},
		Artifacts: map[string]string{"perturbed_graph": sha}}, nil
}
