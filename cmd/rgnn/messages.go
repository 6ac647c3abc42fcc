package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/messages"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/report"
	"github.com/rgnn/rgnn/task"
)

// messagesReport is the JSON output of `rgnn messages`.
type messagesReport struct {
	*messages.Figure
	Files []string `json:"files"`
}

func newMessagesCmd() *cobra.Command {
	spec := task.Messages{}.Defaults()
	var weights, out string
	var quiet bool
	c := &cobra.Command{
		Use:   "messages",
		Short: "Draw a node's messages before and after Nettack (the paper's Figure 1)",
		Long: `Draw the paper's Figure 1: the output-layer messages h_w·W⁽²⁾ that a target
node receives from its neighbours, projected to two dimensions by PCA (fitted
on the messages of every edge of the clean graph), before and after Nettack
adds edges to it, with three location estimates of them: the weighted mean
(what a GCN aggregates), the weighted Medoid and the weighted Soft Medoid.
One panel per --budgets value (the first that many of Nettack's flips); the
estimates on the clean neighbourhood are drawn hollow.

The model is trained first (the train command's protocol and flags) unless
--weights gives its weights. --target -1 picks the correctly classified test
node of highest degree up to the largest budget (so that the attack can
replace a good part of its neighbourhood). Writes <out>/figure1_node<v>_<flips>.png and .svg.`,
		Example: `  rgnn messages --dataset cora_ml --model gcn
  rgnn messages --dataset cora_ml --model gcn --target 1200 --budgets 5,10,20 --out figs --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := spec.Validate(); err != nil {
				return specErr(&spec, err)
			}
			if err := checkGiven(c, &spec, spec.Model, spec.Model.Model); err != nil {
				return err
			}
			if out == "" {
				return usagef("--out must name a directory")
			}
			p, err := loadProblem(c, &spec, spec.Data, spec.Train.EffectiveSplitSeed())
			if err != nil {
				return err
			}
			ctx, stop := interruptible(c)
			defer stop()
			h, done := epochPrinter(quiet || weights != "")
			t, err := spec.Train.LoadOrTrain(ctx, p, weights, h)
			done()
			if err != nil {
				return specErr(&spec, err)
			}
			f, err := spec.Run(ctx, p, t)
			if err != nil {
				return specErr(&spec, err)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			rep := messagesReport{Figure: f}
			for i, pn := range f.Panels {
				pl, err := messages.Plot(f, i)
				if err != nil {
					return err
				}
				fig := report.Figure{Name: fmt.Sprintf("figure1_node%d_%d", f.Target, pn.Flips), Plot: pl}
				for _, format := range []string{"png", "svg"} {
					b, err := fig.Render(format)
					if err != nil {
						return err
					}
					path := filepath.Join(out, fig.Name+"."+format)
					if err := npz.AtomicWrite(path, b); err != nil {
						return err
					}
					rep.Files = append(rep.Files, path)
				}
			}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), rep)
			}
			w := c.OutOrStdout()
			fmt.Fprintf(w, "%s on %s: node %d (degree %d); PCA explains %.0f%% + %.0f%% of the variance\n",
				f.Model, p.Name, f.Target, f.Degree, 100*f.Explained[0], 100*f.Explained[1])
			for _, pn := range f.Panels {
				fmt.Fprintf(w, "  %3d perturbations: %d clean and %d perturbed messages; mean (%.3f, %.3f), Medoid (%.3f, %.3f), Soft Medoid (%.3f, %.3f)\n",
					pn.Flips, len(pn.Clean), len(pn.Adversarial), pn.Estimates.Mean.X, pn.Estimates.Mean.Y,
					pn.Estimates.Medoid.X, pn.Estimates.Medoid.Y, pn.Estimates.SoftMedoid.X, pn.Estimates.SoftMedoid.Y)
			}
			fmt.Fprintf(w, "wrote %d files into %s\n", len(rep.Files), out)
			return nil
		},
	}
	bind(c, &spec)
	c.Flags().StringVar(&weights, "weights", "", "weights file (.npz, ours or the reference layout); empty: train the model first")
	c.Flags().StringVar(&out, "out", "figure1", "output directory for the figures")
	c.Flags().BoolVar(&quiet, "quiet", false, "no progress output (when training)")
	addJSONFlag(c)
	return c
}
