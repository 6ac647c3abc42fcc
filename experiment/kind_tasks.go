package experiment

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/data/unittest"
	"github.com/rgnn/rgnn/task"
)

// trainKind trains a model with the reference protocol and stores its
// weights (artifact "weights"). Metrics: test_accuracy, val_accuracy,
// epochs, best_epoch, best_val_loss, ms_per_epoch, train_seconds.
func trainKind() *Kind {
	return specKind("train", "train a model (reference protocol), store the weights", nil, task.Train{}.Defaults,
		func(ctx context.Context, env *Env, s task.Train) (*Output, error) {
			p, err := env.Problem(ctx, s.Data, s.Seed)
			if err != nil {
				return nil, err
			}
			res, err := s.Run(ctx, p, task.Hooks{})
			if err != nil {
				return nil, err
			}
			defer res.Trained.Close()
			if s.Model.External() { // fitted in its process: no weights to store
				return &Output{Metrics: res.Metrics()}, nil
			}
			sha, err := env.Store.PutArtifact(res.Trained.SaveArtifact)
			if err != nil {
				return nil, err
			}
			return &Output{Metrics: res.Metrics(), Artifacts: map[string]string{"weights": sha}}, nil
		})
}

// evalKind evaluates trained weights (from the train run with the same
// parameters, trained if missing) on the clean graph or on a perturbed
// adjacency file (`graph`, the reference attack format). Metrics:
// test_accuracy, clean_accuracy, edges.
func evalKind() *Kind {
	return specKind("eval", "evaluate trained weights on the clean or a perturbed graph", []string{"train"},
		task.Eval{}.Defaults, func(ctx context.Context, env *Env, s task.Eval) (*Output, error) {
			t, p, tr, err := env.Trained(ctx, s.Train)
			if err != nil {
				return nil, err
			}
			defer t.Close()
			res, err := s.Run(ctx, p, t)
			if err != nil {
				return nil, err
			}
			return &Output{Metrics: map[string]any{"test_accuracy": res.TestAccuracy,
				"clean_accuracy": tr.Metrics["test_accuracy"], "edges": res.Edges}}, nil
		})
}

// certifyKind samples the votes of the smoothed classifier of a trained
// model (trained if the store has no train result with the same
// parameters), stores them (artifact "votes") and computes the sparse
// randomized-smoothing certificate over the test nodes (certifyOutputs has
// the metrics). Queued certify runs that draw the same samples (other
// models, same dataset, seed and flip probabilities) are claimed and run
// with it on shared samples (runCertify), with the same results.
func certifyKind() *Kind {
	return specKind("certify", "randomized-smoothing certificate of a trained model", []string{"train"},
		task.Certify{}.Defaults, runCertify)
}

// perturbKind computes a transfer (or model-free) global attack on the
// clean graph: the surrogate GCN is trained on the clean graph with the
// run's split seed, the perturbation computed on it, and the perturbed graph
// stored as the artifact "perturbed_graph" (reference attack format). It
// does not depend on any victim, so every attack run of the same (dataset,
// seed, attack, ε) reuses it. An incremental attack (FGSM, Metattack)
// continues from the stored run of the largest smaller ε, if there is one
// (Env.smallerBudget): the same graph for the remaining work only. Metrics:
// budget, flips, added, removed, attack_seconds (of the whole budget, the
// continued-from run's included), surrogate_clean_acc,
// surrogate_perturbed_acc, mode; continued_from (its ε) when continued.
// Its flips so far are checkpointed (flipCheckpoint): a stopped run
// resumes from them (resumed_flips; continued_from and attack_seconds as the
// saved flips record them).
func perturbKind() *Kind {
	return withOneBudget(specKind("perturb", "compute a transfer/model-free global attack on the clean graph, store the perturbed graph",
		nil, task.Perturb{}.Defaults, func(ctx context.Context, env *Env, s task.Perturb) (*Output, error) {
			if err := s.OneBudget(); err != nil {
				return nil, err
			}
			p, err := env.Problem(ctx, s.Data, s.Seed)
			if err != nil {
				return nil, err
			}
			hooks := env.attackHooks(s.AttackParams)
			var (
				prev           []attack.Flip
				from, prevSecs float64
				cont           bool
				cp             *flipCheckpoint
				resumed        int
			)
			if s.Incremental() {
				key, _, err := env.Kinds.Dependency("perturb", ParamsOf(&s))
				if err != nil {
					return nil, err
				}
				if prev, from, prevSecs, cont, err = env.smallerBudget(ctx, s, key, p); err != nil {
					return nil, err
				}
				if cp = newFlipCheckpoint(env, key); cp != nil {
					budget := attack.Budget(s.Epsilons[0], p.Adj.Nnz()/2)
					if saved, sFrom, sSecs := cp.load(key, p.Adj.Rows, budget); len(saved) > len(prev) {
						prev, cont, resumed = saved, false, len(saved)
						from, prevSecs = sFrom, sSecs
					}
					cp.origin(from, prevSecs) // zeros unless continued or resumed
					hooks.Flips = cp.save(key)
				}
			}
			switch {
			case resumed > 0:
				env.logf("  %s ε=%v: resuming from the saved flips (%d)", s.Attack, task.Format(s.Epsilons), resumed)
			case cont:
				env.logf("  %s ε=%v: continuing from the stored ε=%v (%d flips)", s.Attack, task.Format(s.Epsilons), from, len(prev))
			}
			res, err := s.Continue(ctx, p, prev, hooks)
			if err != nil {
				return nil, err
			}
			out, err := budgetOutput(env, res)
			if err != nil {
				return nil, err
			}
			cp.remove() // the runner stores the result next
			// A resumed run records what its saved flips say of where they
			// began (files of earlier versions say nothing), as an
			// uninterrupted one would.
			if resumed > 0 {
				out.Metrics["resumed_flips"] = resumed
			}
			if from > 0 {
				out.Metrics["continued_from"] = from
			}
			if prevSecs > 0 {
				out.Metrics["attack_seconds"] = prevSecs + res.Budgets[0].Seconds
			}
			return out, nil
		}))
}

// attackKind is the global evasion attack on a trained model (trained if
// missing). Transfer (the paper's protocol, default): the perturbed graph of
// the `perturb` run with the same dataset, seed, attack and ε — computed
// once on a surrogate GCN and shared by every victim — is applied to the
// victim, whose preprocessing is recomputed; for a poisoning attack
// (metattack) the victim is trained from scratch on the perturbed graph
// with its training parameters. Adaptive (`adaptive: true`):
// the attack differentiates the victim itself. Metrics read by the report's
// global-attack table and accuracy-over-budget figure: clean_acc,
// perturbed_acc; plus budget, flips, added, removed, attack_seconds, mode,
// and perturbed_nan_logits when the victim's logits on the perturbed graph
// are NaN as the reference's are (svd_gcn's negative row sum:
// protocol.Evaluation). Artifact: perturbed_graph.
func attackKind() *Kind {
	return withOneBudget(specKind("attack", "global evasion attack (transfer from a surrogate GCN, or adaptive) on a trained model",
		[]string{"train", "perturb"}, task.Attack{}.Defaults, runAttack))
}

// withOneBudget makes k's check of a run (a dry run's included) refuse
// more than one ε, as running it would (task.AttackParams.OneBudget).
func withOneBudget(k *Kind) *Kind {
	v := k.validate
	k.validate = func(spec any) error {
		if err := v(spec); err != nil {
			return err
		}
		switch s := spec.(type) {
		case *task.Perturb:
			return s.OneBudget()
		case *task.Attack:
			return s.OneBudget()
		}
		return nil
	}
	return k
}

func runAttack(ctx context.Context, env *Env, s task.Attack) (*Output, error) {
	if err := s.OneBudget(); err != nil {
		return nil, err
	}
	if s.Targeted() {
		return nil, fmt.Errorf("attack %s: targeted attacks are runs of kind targeted", s.Attack)
	}
	if s.Poisoning() && s.Adaptive {
		return nil, fmt.Errorf("attack %s: a poisoning attack is computed once on its surrogate; adaptive does not apply", s.Attack)
	}
	t, p, tr, err := env.Trained(ctx, s.Train)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var out *Output
	if s.Adaptive {
		res, err := s.Run(ctx, p, []*task.Trained{t}, nil, env.attackHooks(s.AttackParams), nil)
		if err != nil {
			return nil, err
		}
		if out, err = budgetOutput(env, res.Global); err != nil {
			return nil, err
		}
		out.Metrics["perturbed_acc"] = res.Global.Budgets[0].Victims[0].Accuracy
	} else {
		pr, err := env.Require(ctx, "perturb", ParamsOf(&s))
		if err != nil {
			return nil, err
		}
		path, err := env.artifact(ctx, pr, "perturbed_graph")
		if err != nil {
			return nil, err
		}
		adj, err := data.LoadPerturbedGraph(path, p.Adj)
		if err != nil {
			return nil, err
		}
		var acc float64
		var nanWhy string
		if s.Poisoning() {
			// The victim is trained from scratch on the perturbed graph.
			res, err := s.Train.Run(ctx, p.WithAdj(adj), task.Hooks{})
			if err != nil {
				return nil, fmt.Errorf("retraining %s on the perturbed graph: %w", s.Model.Model, err)
			}
			acc = res.TestAccuracy
		} else {
			ev, err := task.Evaluate(t, p.WithAdj(adj))
			if err != nil {
				return nil, err
			}
			acc, nanWhy = ev.Accuracy, ev.NaN
		}
		out = &Output{Metrics: map[string]any{"perturbed_acc": acc}, Artifacts: pr.Artifacts}
		if nanWhy != "" {
			// As the reference: NaN logits, every node class 0 (model.Graph.ReferenceNaN).
			out.Metrics["perturbed_nan_logits"] = nanWhy
		}
		for _, k := range []string{"budget", "flips", "added", "removed", "attack_seconds", "mode"} {
			out.Metrics[k] = pr.Metrics[k]
		}
	}
	out.Metrics["clean_acc"] = tr.Metrics["test_accuracy"]
	return out, nil
}

// attackHooks logs the end of each stage of an attack.
func (e *Env) attackHooks(a task.AttackParams) task.Hooks {
	return task.Hooks{Progress: func(stage string, done, total int) {
		if done == total {
			e.logf("  %s ε=%v: %s done", a.Attack, task.Format(a.Epsilons), stage)
		}
	}}
}

// budgetOutput stores the perturbed graph of res's only budget and returns
// the attack's metrics.
func budgetOutput(env *Env, res *task.GlobalResult) (*Output, error) {
	if len(res.Budgets) != 1 {
		return nil, fmt.Errorf("attack %s: %d budgets, want 1", res.Attack, len(res.Budgets))
	}
	b := res.Budgets[0]
	sha, err := env.Store.PutArtifact(func(path string) error { return data.SavePerturbedGraph(path, res.CleanAdj, b.Adj) })
	if err != nil {
		return nil, err
	}
	return &Output{Metrics: map[string]any{
		"budget": b.Budget, "flips": b.NumFlips, "added": b.Added, "removed": b.Removed,
		"attack_seconds": b.Seconds, "mode": res.Mode,
		"surrogate_clean_acc": res.AttackedClean, "surrogate_perturbed_acc": b.AttackedAccuracy},
		Artifacts: map[string]string{"perturbed_graph": sha}}, nil
}

// unitTestKind evaluates a model on the black-box robustness unit test
// (task.UnitTest): its file is the parameter unit_test. Metrics: rows
// (dataset, split, source_model, budget, flips, accuracy, clean_accuracy),
// summary (the same over the splits, mean and s.e.), min_accuracy,
// scenario.
func unitTestKind() *Kind {
	return specKind("unittest", "evaluate a model on the black-box robustness unit test (Mujkanovic et al. 2022)", nil,
		task.UnitTest{}.Defaults, func(ctx context.Context, env *Env, s task.UnitTest) (*Output, error) {
			f, err := unittest.Open(s.File)
			if err != nil {
				return nil, err
			}
			res, err := s.Run(ctx, f, task.Hooks{})
			if err != nil {
				return nil, err
			}
			return &Output{Metrics: res.Metrics()}, nil
		})
}
