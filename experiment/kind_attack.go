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
// The attack package (DICE, FGSM, PGD, PR-BCD, GR-BCD; roughly
// attack.Run(ctx, cfg, problem) (Result, error)) is not on this branch yet.
// To wire it, replace the body of runAttack with:
//
//	m, pb, tr, err := env.Trained(ctx, p)
//	res, err := attack.Run(ctx, attack.Config{Name: pStr(p, "attack"),
//	        Epsilon: pFloat(p, "epsilon"), Seed: pInt(p, "attack_seed"), ...}, problem{m, pb})
//	sha, err := env.Store.PutArtifact(func(path string) error {
//	        return data.SavePerturbedAdj(path, res.Adj) })
//	g, _ := m.Preprocess(res.Adj, pb.Graph.Features)
//	acc := train.Accuracy(train.Predict(m, g, pb.X), pb.Graph.Labels, pb.Test)
//	return &Output{Metrics: map[string]any{"clean_acc": tr.Metrics["test_accuracy"],
//	        "perturbed_acc": acc, ...}, Artifacts: map[string]string{"perturbed_graph": sha}}, nil
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
			Param{"attack_seed", 0, "seed of the attack's randomness"},
		),
		Run: runAttack,
	}
}

func runAttack(ctx context.Context, env *Env, p store.Params) (*Output, error) {
	return nil, fmt.Errorf("%w (the attack package is not wired into the experiment runner yet)", ErrUnavailable)
}
