package experiment

import (
	"context"

	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
)

// attackKind is the global evasion attack on a trained model (trained if
// missing). Transfer (the paper's protocol, default): the perturbed graph of
// the `perturb` run with the same dataset, seed, attack and ε — computed once
// on a surrogate GCN and shared by every victim — is applied to the victim,
// whose preprocessing is recomputed. Adaptive (`adaptive: true`): the attack
// differentiates the victim itself (models whose preprocessing is gcn_norm).
// Metrics read by the report's global-attack table and accuracy-over-budget
// figure: clean_acc, perturbed_acc; plus budget, flips, added, removed,
// attack_seconds, mode. Artifact: perturbed_graph.
func attackKind() *Kind {
	params := append(trainParams(), perturbParams()[3:]...) // attack, epsilon, attack_seed, loss, epochs, block
	return &Kind{
		Name: "attack",
		Doc:  "global evasion attack (transfer from a surrogate GCN, or adaptive) on a trained model",
		Params: append(params,
			Param{"adaptive", false, "attack the victim itself instead of a surrogate GCN"}),
		Run: runAttack,
	}
}

func runAttack(ctx context.Context, env *Env, p store.Params) (*Output, error) {
	m, pb, tr, err := env.Trained(ctx, p)
	if err != nil {
		return nil, err
	}
	var out *Output
	if pBool(p, "adaptive") {
		cfg := attackConfig(env, p)
		cfg.Adaptive = true
		cfg.Victims = []protocol.Victim{{Name: pStr(p, "model"), Model: m}}
		res, err := protocol.Run(ctx, cfg, attackProblem(pb))
		if err != nil {
			return nil, err
		}
		if out, err = budgetOutput(env, res); err != nil {
			return nil, err
		}
		out.Metrics["perturbed_acc"] = res.Budgets[0].Victims[0].Accuracy
	} else {
		pr, err := env.Require(ctx, "perturb", p)
		if err != nil {
			return nil, err
		}
		path, err := env.Store.OpenArtifact(pr.Artifacts["perturbed_graph"])
		if err != nil {
			return nil, err
		}
		adj, err := data.LoadPerturbedAdj(path, pb.Graph.Adj.Rows)
		if err != nil {
			return nil, err
		}
		acc, err := protocol.EvaluateVictim(m, attackProblem(pb), adj)
		if err != nil {
			return nil, err
		}
		out = &Output{Metrics: map[string]any{"perturbed_acc": acc}, Artifacts: pr.Artifacts}
		for _, k := range []string{"budget", "flips", "added", "removed", "attack_seconds", "mode"} {
			out.Metrics[k] = pr.Metrics[k]
		}
	}
	out.Metrics["clean_acc"] = tr.Metrics["test_accuracy"]
	return out, nil
}
