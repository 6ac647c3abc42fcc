package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/train"
)

// evalReport is the JSON output of `rgnn eval`.
type evalReport struct {
	Dataset      string  `json:"dataset"`
	Model        string  `json:"model"`
	Weights      string  `json:"weights"`
	SplitSeed    int     `json:"split_seed"`
	Graph        string  `json:"graph,omitempty"`
	FeatureFlips int     `json:"feature_flips,omitempty"`
	TestAccuracy float64 `json:"test_accuracy"`
	NTest        int     `json:"n_test"`
	NCorrect     int     `json:"n_correct"`
	Edges        int     `json:"edges"`
}

func newEvalCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate saved weights on the clean or a perturbed graph",
		Long: `Evaluate a model's weights (ours, or the reference's layout as in
shared/reference/pretrained) on the test nodes of a split. With --graph the
model runs on a perturbed adjacency in the reference attack format
(edge_index, edge_weight, shape); preprocessing such as GDC is recomputed on it.
If the file also holds feature flips (feature_flips, saved by 'rgnn attack
--perturb features|both'), they are applied to the features, which must be
binary (--binary-attr).`,
		Example: `  rgnn eval --dataset cora_ml --model gcn --weights cora_ml_Vanilla_GCN_s0_bin0.npz --split-seed 0
  rgnn eval --dataset cora_ml --model gcn --weights W.npz --split-seed 0 --graph cora_ml_fgsm_s0_eps0.1.npz --json`,
		Args: cobra.NoArgs,
		RunE: runEval,
	}
	addProblemFlags(c)
	addModelFlags(c)
	c.Flags().String("weights", "", "weights file (.npz) (required)")
	c.Flags().String("graph", "", "perturbed adjacency (.npz with edge_index, edge_weight, shape; "+
		"its feature_flips, if any, are applied to the features, which needs --binary-attr)")
	addJSONFlag(c)
	return c
}

func runEval(c *cobra.Command, _ []string) error {
	wpath, _ := c.Flags().GetString("weights")
	if wpath == "" {
		return usagef("--weights is required")
	}
	p, err := loadProblem(c, 0)
	if err != nil {
		return err
	}
	m, err := newModel(c, p, 0)
	if err != nil {
		return err
	}
	if err := loadWeights(m, wpath); err != nil {
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
	logits := train.Predict(m, g, p.X)
	acc := train.Accuracy(logits, p.Graph.Labels, p.Test)
	rep := evalReport{Dataset: p.Graph.Name, Model: m.Name(), Weights: wpath, SplitSeed: p.SplitSeed,
		Graph: gc.Path, FeatureFlips: gc.FeatureFlips, TestAccuracy: acc, NTest: len(p.Test),
		NCorrect: int(acc*float64(len(p.Test)) + 0.5), Edges: gc.Adj.Nnz() / 2}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	where := "clean graph"
	if gc.Path != "" {
		where = graphLabel(gc)
	}
	fmt.Fprintf(c.OutOrStdout(), "%s on %s (%s, split seed %d): test accuracy %.4f (%d/%d)\n",
		rep.Model, rep.Dataset, where, rep.SplitSeed, acc, rep.NCorrect, rep.NTest)
	return nil
}
