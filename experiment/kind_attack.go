package experiment

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/experiment/store"
)

// attackKind is the global-attack task: attack a trained model (trained if
// missing) with `attack` at budget `epsilon` (fraction of the clean graph's
// edges), store the perturbed graph (artifact "perturbed_graph", written with
// data.SavePerturbedAdj) and record the metrics the report's global-attack
// table and accuracy-over-budget figure read:
//
//	clean_acc      test accuracy on the clean graph
//	perturbed_acc  test accuracy on the perturbed graph
//	(optional) flips, attack_seconds
//
// ─── ADAPTER STUB ────────────────────────────────────────────────────────
// The attack package (DICE, FGSM, PGD, PR-BCD, GR-BCD) is not on this
// branch. Its API on the attack branch is attack.Run(ctx, attack.Config,
// *attack.Problem) (*attack.Result, error). To wire it, import
// "github.com/rgnn/rgnn/attack" and "github.com/rgnn/rgnn/data" and
// replace the body of runAttack with:
//
//	m, pb, tr, err := env.Trained(ctx, p)
//	if err != nil {
//		return nil, err
//	}
//	g := pb.Graph
//	prob := &attack.Problem{Name: g.Name, Adj: g.Adj, Features: g.Features, X: pb.X, Labels: g.Labels,
//		NumClasses: g.NumClasses, Train: pb.Train, Val: pb.Val, Test: pb.Test}
//	res, err := attack.Run(ctx, attack.Config{Attack: pStr(p, "attack"),
//		Epsilons: []float64{pFloat(p, "epsilon")}, Seed: uint64(pInt(p, "attack_seed")),
//		Adaptive: pBool(p, "adaptive"), Victims: []attack.Victim{{Name: pStr(p, "model"), Model: m}}}, prob)
//	if err != nil {
//		return nil, err
//	}
//	b := res.Budgets[0]
//	sha, err := env.Store.PutArtifact(func(path string) error { return data.SavePerturbedAdj(path, b.Adj) })
//	if err != nil {
//		return nil, err
//	}
//	return &Output{Metrics: map[string]any{
//		"clean_acc": tr.Metrics["test_accuracy"], "perturbed_acc": b.Victims[0].Accuracy,
//		"budget": b.Budget, "flips": b.NumFlips, "added": b.Added, "removed": b.Removed,
//		"attack_seconds": b.Seconds, "mode": res.Mode},
//		Artifacts: map[string]string{"perturbed_graph": sha}}, nil
//
// A transfer attack's perturbed graph depends only on (dataset, seed,
// attack, epsilon, attack_seed), not on the victim: a `perturb` kind
// (one file, returning the perturbed graph as an artifact) required with
// env.Require(ctx, "perturb", p) would compute it once for all victims, the
// same way certify requires "train".
//
// Until then runs of this kind return ErrUnavailable: the runner skips them
// (no result, no failure row) and says so, and they run on a later
// `rgnn run` of the same file once wired.
// ─────────────────────────────────────────────────────────────────────────
func attackKind() *Kind {
	return &Kind{
		Name: "attack",
		Doc:  "global evasion attack on a trained model (adapter stub: attack package not wired yet)",
		Params: append(trainParams(),
			Param{"attack", "fgsm", "attack: dice, fgsm, pgd, prbcd, grbcd"},
			Param{"epsilon", 0.1, "budget as a fraction of the clean graph's edges"},
			Param{"attack_seed", 0, "seed of the attack's randomness (and of its surrogate)"},
			Param{"adaptive", false, "attack the victim itself instead of a surrogate GCN"},
		),
		Run: runAttack,
	}
}

func runAttack(ctx context.Context, env *Env, p store.Params) (*Output, error) {
	return nil, fmt.Errorf("%w (the attack package is not wired into the experiment runner yet)", ErrUnavailable)
}
