package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/data/unittest"
	"github.com/rgnn/rgnn/task"
)

func newUnitTestCmd() *cobra.Command {
	spec := task.UnitTest{}.Defaults()
	var quiet bool
	c := &cobra.Command{
		Use:   "unittest FILE",
		Short: "Evaluate a model on the black-box robustness unit test (Mujkanovic et al. 2022)",
		Long: `unittest runs the black-box robustness unit test of "Are Defenses for Graph Neural
Networks Robust?" (Mujkanovic et al., NeurIPS 2022): FILE (unit_test.npz; rgnn data
fetch --dataset unit_test) holds Cora ML and Citeseer with five 10/10/80 splits
and, per scenario, the strongest global perturbations the authors found against
eight defenses (gcn, jaccard_gcn, svd_gcn, rgcn, pro_gnn, gnn_guard, grand,
soft_median_gdc) at several budgets.

On every split the model is trained on the clean graph (--model M with the training
protocol's flags; --model external --external-cmd CMD: your process, fitted when it
fits itself) and evaluated on each perturbed graph (--scenario evasion), or
trained and evaluated on each perturbed graph (--scenario poisoning). It prints
dataset × source model × budget → mean test accuracy ± s.e. over the splits, and
with --json every row (dataset, split, source model, budget, accuracy). The same
is an experiment run of kind unittest (parameter unit_test: the file), stored
like other results. A black-box test does not replace an adaptive attack.`,
		Example: `  rgnn data fetch --dataset unit_test
  rgnn unittest ~/.cache/rgnn/datasets/unit_test.npz --model gcn
  rgnn unittest unit_test.npz --model sm_gdc --temperature 0.5 --scenario poisoning --json
  rgnn unittest unit_test.npz --model external --external-cmd "python3 my_model.py" --ut-datasets cora_ml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				if spec.File != "" {
					return usagef("give the file as an argument or as --unit-test, not both")
				}
				spec.File = args[0]
			}
			if err := spec.Validate(); err != nil {
				return specErr(&spec, err)
			}
			f, err := unittest.Open(spec.File)
			if err != nil {
				return err
			}
			ctx, stop := interruptible(c)
			defer stop()
			res, err := spec.Run(ctx, f, task.Hooks{Progress: newProgress(quiet)})
			if !quiet {
				fmt.Fprint(progressWriter(), "\r\033[K")
			}
			if err != nil {
				return specErr(&spec, err)
			}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), res)
			}
			res.WriteText(c.OutOrStdout())
			return nil
		},
	}
	bind(c, &spec)
	c.Flags().BoolVar(&quiet, "quiet", false, "no progress output")
	addJSONFlag(c)
	return c
}
