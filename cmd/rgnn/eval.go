package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/task"
)

// evalReport is the JSON output of `rgnn eval`.
type evalReport struct {
	Weights string `json:"weights"`
	task.EvalResult
}

func newEvalCmd() *cobra.Command {
	spec := task.Eval{}.Defaults()
	var quiet bool
	c := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate weights on the clean or a perturbed graph",
		Long: `Evaluate a model's weights (ours, or the reference's layout as in
shared/reference/pretrained) on the test nodes of a split; without --weights the
model is trained first (the train command's protocol and flags). With --graph
the model runs on a perturbed adjacency in the reference attack format
(edge_index, edge_weight, shape); preprocessing such as GDC is recomputed on it.
If the file also holds feature flips (feature_flips, saved by 'rgnn attack
--perturb features|both'), they are applied to the features, which must be
binary (--binary-attr).`,
		Example: `  rgnn eval --dataset cora_ml --model gcn --weights cora_ml_Vanilla_GCN_s0_bin0.npz --split-seed 0
  rgnn eval --dataset cora_ml --model gcn --weights W.npz --split-seed 0 --graph cora_ml_fgsm_s0_eps0.1.npz --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := spec.Validate(); err != nil {
				return specErr(&spec, err)
			}
			if err := checkGiven(c, &spec, spec.Model, spec.Model.Model); err != nil {
				return err
			}
			p, err := loadProblem(c, &spec, spec.Data, spec.Train.EffectiveSplitSeed())
			if err != nil {
				return err
			}
			ctx, stop := interruptible(c)
			defer stop()
			h, done := epochPrinter(quiet || spec.Weights != "")
			t, err := spec.Train.LoadOrTrain(ctx, p, spec.Weights, h)
			done()
			if err != nil {
				return specErr(&spec, err)
			}
			defer t.Close()
			res, err := spec.Run(ctx, p, t)
			if err != nil {
				return specErr(&spec, err)
			}
			rep := evalReport{Weights: spec.Weights, EvalResult: *res}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), rep)
			}
			where := "clean graph"
			if res.Graph != "" {
				where = task.Graph{Path: res.Graph, FeatureFlips: res.FeatureFlips}.Label()
			}
			fmt.Fprintf(c.OutOrStdout(), "%s on %s (%s, split seed %d): test accuracy %.4f (%d/%d)\n",
				rep.Model, rep.Dataset, where, rep.SplitSeed, res.TestAccuracy, rep.NCorrect, rep.NTest)
			if res.NaNLogits != "" {
				fmt.Fprintf(c.OutOrStdout(), "  NaN logits: %s\n", res.NaNLogits)
			}
			return nil
		},
	}
	bind(c, &spec)
	c.Flags().BoolVar(&quiet, "quiet", false, "no progress output (when training)")
	addJSONFlag(c)
	return c
}
