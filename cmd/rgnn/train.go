package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/train"
)

// trainReport is the JSON output of `rgnn train`.
type trainReport struct {
	Dataset      string       `json:"dataset"`
	Model        string       `json:"model"`
	Seed         int          `json:"seed"`
	SplitSeed    int          `json:"split_seed"`
	TestAccuracy float64      `json:"test_accuracy"`
	ValAccuracy  float64      `json:"val_accuracy"`
	NTest        int          `json:"n_test"`
	Weights      string       `json:"weights,omitempty"`
	Graph        string       `json:"graph,omitempty"`
	FeatureFlips int          `json:"feature_flips,omitempty"`
	Train        train.Result `json:"train"`
}

func newTrainCmd() *cobra.Command {
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
		RunE: runTrain,
	}
	addProblemFlags(c)
	addModelFlags(c)
	c.Flags().Int("seed", 0, "seed for initialisation, dropout and (by default) the split")
	c.Flags().String("out", "", "save the trained weights here (.npz, reference layout)")
	c.Flags().Int("max-epochs", 3000, "maximum training epochs")
	c.Flags().Int("patience", 300, "early-stopping patience in epochs")
	c.Flags().Float64("lr", 0.01, "Adam learning rate")
	c.Flags().Float64("weight-decay", 1e-3, "L2 weight decay on all parameters")
	c.Flags().Bool("quiet", false, "no progress output")
	c.Flags().String("graph", "", "train and evaluate on this perturbed adjacency (.npz with edge_index, edge_weight, shape; "+
		"its feature_flips, if any, are applied to the features, which needs --binary-attr)")
	addJSONFlag(c)
	return c
}

func runTrain(c *cobra.Command, _ []string) error {
	seed, _ := c.Flags().GetInt("seed")
	p, err := loadProblem(c, seed)
	if err != nil {
		return err
	}
	m, err := newModel(c, p, uint64(seed))
	if err != nil {
		return err
	}
	gc, err := graphFlag(c, p)
	if err != nil {
		return err
	}
	g, err := m.Preprocess(gc.Adj, p.Graph.Features)
	if err != nil {
		return err
	}
	cfg := train.Config{Seed: uint64(seed)}
	cfg.MaxEpochs, _ = c.Flags().GetInt("max-epochs")
	cfg.Patience, _ = c.Flags().GetInt("patience")
	cfg.LR, _ = c.Flags().GetFloat64("lr")
	cfg.WeightDecay, _ = c.Flags().GetFloat64("weight-decay")
	if cfg.MaxEpochs < 1 || cfg.Patience < 1 || !(cfg.LR > 0) || cfg.WeightDecay < 0 {
		return usagef("--max-epochs, --patience and --lr must be positive, --weight-decay ≥ 0")
	}
	if cfg.WeightDecay == 0 {
		cfg.WeightDecay = -1 // explicit "none"
	}
	quiet, _ := c.Flags().GetBool("quiet")
	if !quiet {
		last := time.Now()
		cfg.Progress = func(epoch int, tl, vl float64) {
			if time.Since(last) > 500*time.Millisecond {
				fmt.Fprintf(progressWriter(), "\repoch %4d  train loss %.4f  val loss %.4f", epoch, tl, vl)
				last = time.Now()
			}
		}
	}
	res, err := train.Fit(context.Background(), m, g, p.dp(), cfg)
	if !quiet {
		fmt.Fprint(progressWriter(), "\r\033[K")
	}
	if err != nil {
		return err
	}
	logits := train.Predict(m, g, p.X)
	rep := trainReport{Dataset: p.Graph.Name, Model: m.Name(), Seed: seed, SplitSeed: p.SplitSeed,
		TestAccuracy: train.Accuracy(logits, p.Graph.Labels, p.Test),
		ValAccuracy:  train.Accuracy(logits, p.Graph.Labels, p.Val),
		NTest:        len(p.Test), Graph: gc.Path, FeatureFlips: gc.FeatureFlips, Train: res}
	if out, _ := c.Flags().GetString("out"); out != "" {
		if err := saveWeights(m, out); err != nil {
			return err
		}
		rep.Weights = out
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	where := ""
	if gc.Path != "" {
		where = ", graph " + graphLabel(gc)
	}
	fmt.Fprintf(c.OutOrStdout(), "%s on %s (seed %d%s): test accuracy %.4f (%d test nodes), val accuracy %.4f\n",
		rep.Model, rep.Dataset, seed, where, rep.TestAccuracy, rep.NTest, rep.ValAccuracy)
	fmt.Fprintf(c.OutOrStdout(), "%d epochs (best %d, val loss %.4f), %.2f ms/epoch\n",
		res.Epochs, res.BestEpoch, res.BestValLoss, res.MsPerEpoch)
	if rep.Weights != "" {
		fmt.Fprintf(c.OutOrStdout(), "weights saved to %s\n", rep.Weights)
	}
	return nil
}
