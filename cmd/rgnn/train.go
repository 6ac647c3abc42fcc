package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/internal/outfile"
	"github.com/rgnn/rgnn/task"
)

// trainReport is the JSON output of `rgnn train`.
type trainReport struct {
	task.TrainResult
	Weights      string `json:"weights,omitempty"`
	Graph        string `json:"graph,omitempty"`
	FeatureFlips int    `json:"feature_flips,omitempty"`
}

func newTrainCmd() *cobra.Command {
	spec, gf := task.Train{}.Defaults(), task.GraphFile{}
	var out string
	var quiet bool
	c := &cobra.Command{
		Use:   "train",
		Short: "Train a model and report its test accuracy",
		Long: `Train a model on a dataset with the reference protocol (Adam lr 0.01, L2 1e-3 on
all parameters, up to 3000 epochs, early stopping with patience 300 on the
validation loss, best weights restored) and report its test accuracy.

The split has 20 training and 20 validation nodes per class (numpy-compatible,
seeded by --split-seed, default: --seed); the rest are test nodes.

With --graph the model is trained and evaluated on a perturbed adjacency in the
reference attack format (e.g. a graph saved by 'rgnn attack --out'): poisoning
evaluation of a saved attack. Feature flips in the file (feature_flips, saved by
'rgnn attack --perturb features|both') are applied to the features, which must
be binary (--binary-attr).`,
		Example: `  rgnn train --dataset cora_ml --model gcn --seed 0 --out gcn_s0.npz
  rgnn train --dataset citeseer --model sm_gdc --temperature 0.5 --json
  rgnn train --dataset cora_ml --model gcn --seed 0 --graph cora_ml_metattack_s0_eps0.1.npz --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if out == outfile.Stdout && wantJSON(c) {
				return usageError{err: fmt.Errorf("--out -: stdout carries the --json report; give a file"), field: "--out"}
			}
			if err := spec.Validate(); err != nil {
				return specErr(&spec, err)
			}
			if err := checkGiven(c, &spec, spec.Model, spec.Model.Model); err != nil {
				return err
			}
			p, err := loadProblem(c, &spec, spec.Data, spec.EffectiveSplitSeed())
			if err != nil {
				return err
			}
			g, err := task.OnGraph(p, gf.Graph)
			if err != nil {
				return specErr(&gf, err)
			}
			ctx, stop := interruptible(c)
			defer stop()
			h, done := epochPrinter(quiet)
			if out != "" && spec.Model.External() {
				return usagef("--out: model %s keeps its weights in its own process", spec.Model.Model)
			}
			res, err := spec.Run(ctx, g.Problem, h)
			if err == nil {
				defer res.Trained.Close()
			}
			done()
			if err != nil && res != nil && res.Fit.Interrupted {
				return savedOnInterrupt(res, out, err)
			}
			if err != nil {
				return specErr(&spec, err)
			}
			rep := trainReport{TrainResult: *res, Graph: g.Path, FeatureFlips: g.FeatureFlips}
			if out != "" {
				if err := res.Trained.Save(out); err != nil {
					return err
				}
				rep.Weights = out
			}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), rep)
			}
			where := ""
			if g.Path != "" {
				where = ", graph " + g.Label()
			}
			w := c.OutOrStdout()
			if out == outfile.Stdout {
				w = c.ErrOrStderr() // stdout carries the weights
			}
			fmt.Fprintf(w, "%s on %s (seed %d%s): test accuracy %.4f (%d test nodes), val accuracy %.4f\n",
				rep.Model, rep.Dataset, rep.Seed, where, rep.TestAccuracy, rep.NTest, rep.ValAccuracy)
			fmt.Fprintf(w, "%d epochs (best %d, val loss %.4f), %.2f ms/epoch\n",
				res.Fit.Epochs, res.Fit.BestEpoch, res.Fit.BestValLoss, res.Fit.MsPerEpoch)
			if rep.Weights != "" {
				fmt.Fprintf(w, "weights saved to %s\n", rep.Weights)
			}
			return nil
		},
	}
	bind(c, &spec)
	bind(c, &gf)
	c.Flags().StringVar(&out, "out", "", "save the trained weights here (.npz, reference layout; '-' for stdout); "+
		"on Ctrl-C or SIGTERM the best weights so far are saved")
	c.Flags().BoolVar(&quiet, "quiet", false, "no progress output")
	addJSONFlag(c)
	return c
}

// savedOnInterrupt ends a training stopped by Ctrl-C or SIGTERM (err: the
// context's): with --out the best weights so far are saved and the message
// says so; the returned error exits with code 130.
func savedOnInterrupt(res *task.TrainResult, out string, err error) error {
	f := res.Fit
	what := fmt.Sprintf("training interrupted after %d epochs (best epoch %d, val loss %.4f, test accuracy %.4f)",
		f.Epochs, f.BestEpoch, f.BestValLoss, res.TestAccuracy)
	if out == "" {
		return fmt.Errorf("%s; nothing saved (give --out to keep the best weights of an interrupted run): %w", what, err)
	}
	if serr := res.Trained.Save(out); serr != nil {
		return fmt.Errorf("%s; saving the best weights failed: %v: %w", what, serr, err)
	}
	fmt.Fprintf(lineWriter{}, "%s; best weights so far saved to %s\n", what, out)
	return fmt.Errorf("%s: best weights saved to %s: %w", what, out, err)
}
