package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
)

func newReproduceCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "reproduce",
		Short: "Reproduce the paper's main results on a dataset (the README's main job)",
		Long: `Train GCN, GDC and Soft Medoid GDC (T = 0.5) on the dataset with the
reference protocol, evaluate them and write results.json, report.md and the
trained weights into --out.

--quick uses one seed (0); the full run uses the paper's seeds 0, 1 and 5.
The dataset is downloaded (checksum verified) when it is not in the data dir.`,
		Example: `  rgnn reproduce --dataset cora_ml --quick
  rgnn reproduce --dataset citeseer --out results/citeseer --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ds, _ := c.Flags().GetString("dataset")
			quick, _ := c.Flags().GetBool("quick")
			out, _ := c.Flags().GetString("out")
			if out == "" {
				out = filepath.Join("results", "reproduce-"+ds)
			}
			seeds := []int{0, 1, 5}
			if quick {
				seeds = []int{0}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			fmt.Fprintf(progressWriter(), "reproduce on %s: seeds %v (quick=%v), results in %s\n", ds, seeds, quick, out)
			rep, err := experiment.Reproduce(ctx, experiment.ReproduceConfig{
				Dataset: ds, DataDir: dataDir(c), OutDir: out, Seeds: seeds,
				Models: experiment.DefaultModels(), Registry: modelRegistry(), Log: progressWriter()})
			if err != nil {
				return err
			}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), rep)
			}
			fmt.Fprint(c.OutOrStdout(), rep.Markdown)
			fmt.Fprintf(c.OutOrStdout(), "\nwritten: %s, %s\n", filepath.Join(out, "results.json"), filepath.Join(out, "report.md"))
			return nil
		},
	}
	c.Flags().String("dataset", "cora_ml", "dataset")
	c.Flags().Bool("quick", false, "one seed instead of three")
	c.Flags().String("out", "", "output directory (default results/reproduce-<dataset>)")
	addJSONFlag(c)
	return c
}
