package experiment

import (
	"context"
	"encoding/json"

	"github.com/rgnn/rgnn/internal/outfile"
	"github.com/rgnn/rgnn/task"
)

// targetedKind is a targeted attack (Nettack, local PR-BCD) on one trained
// model, in the setup of the original Nettack paper: by default the model's
// own 40 targets and a budget of degree + 2 per target (task.Targeted).
// Metrics read by the report's Nettack table: mean_margin, margin_se and
// failure_rate (the fraction of targets still classified correctly), plus
// clean_mean_margin, clean_target_acc, targets, mean_edge_flips,
// attack_seconds_per_target and clean_acc (the model's test accuracy).
// Artifact: targeted_result (the JSON of every target's flips and margins).
func targetedKind() *Kind {
	return specKind("targeted", "targeted attack (Nettack: each model's own 40 targets, budget degree+2) on a trained model",
		[]string{"train"}, task.Targeted{}.Defaults, runTargeted)
}

func runTargeted(ctx context.Context, env *Env, s task.Targeted) (*Output, error) {
	t, p, tr, err := env.Trained(ctx, s.Train)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var chooser *task.Trained
	if !s.OwnTargets() {
		if chooser, _, _, err = env.Trained(ctx, s.Chooser()); err != nil {
			return nil, err
		}
		defer chooser.Close()
	}
	res, err := s.Run(ctx, p, t, chooser, env.attackHooks(s.AttackParams))
	if err != nil {
		return nil, err
	}
	sha, err := env.Store.PutArtifact(func(path string) error {
		b, err := json.Marshal(res.TargetedResult)
		if err != nil {
			return err
		}
		return outfile.WriteFile(path, b)
	})
	if err != nil {
		return nil, err
	}
	sum := res.Summary
	return &Output{Metrics: map[string]any{
		"mean_margin": sum.MeanMargin, "margin_se": sum.MarginSE, "failure_rate": sum.FailureRate,
		"clean_mean_margin": sum.CleanMargin, "clean_target_acc": sum.CleanAccuracy, "targets": sum.Targets,
		"mean_edge_flips": sum.MeanEdgeFlips, "attack_seconds_per_target": sum.SecondsPerTarget,
		"budget": res.Budget, "clean_acc": tr.Metrics["test_accuracy"]},
		Artifacts: map[string]string{"targeted_result": sha}}, nil
}

// biasKind computes the bias curves B(ε) of the location estimators (the
// paper's Figure 2; package bias). Metrics read by the report's bias
// figure: epsilon [...] and curves [{estimator, label, temperature, norm,
// bias [...], sd [...]}].
func biasKind() *Kind {
	return specKind("bias", "bias curves of the location estimators under point-mass perturbations (Figure 2)",
		nil, task.Bias{}.Defaults, func(ctx context.Context, env *Env, s task.Bias) (*Output, error) {
			res, err := s.Run(ctx)
			if err != nil {
				return nil, err
			}
			rep := res.Report(nil)
			curves := make([]map[string]any, len(rep.Curves))
			for i, c := range rep.Curves {
				curves[i] = map[string]any{"estimator": c.Estimator, "label": c.Label, "temperature": c.Temperature,
					"norm": c.Norm, "bias": c.Bias, "sd": c.SD}
			}
			return &Output{Metrics: map[string]any{"epsilon": rep.Eps, "perturbed": rep.Perturbed, "curves": curves}}, nil
		})
}

// messagesKind draws the paper's Figure 1 (task.Messages): a trained
// model's output-layer messages at one target before and after Nettack.
// Metrics read by the report's Figure 1: figure (the messages.Figure as
// JSON: target, degree, explained variance, clean estimates, panels).
func messagesKind() *Kind {
	return specKind("messages", "the output-layer messages of a target before and after Nettack, by PCA (Figure 1)",
		[]string{"train"}, task.Messages{}.Defaults, func(ctx context.Context, env *Env, s task.Messages) (*Output, error) {
			t, p, _, err := env.Trained(ctx, s.Train)
			if err != nil {
				return nil, err
			}
			defer t.Close()
			f, err := s.Run(ctx, p, t)
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(f)
			if err != nil {
				return nil, err
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, err
			}
			return &Output{Metrics: map[string]any{"figure": m, "target": f.Target, "degree": f.Degree}}, nil
		})
}
