package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/reproduce"
)

func newReproduceCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "reproduce",
		Short: "Reproduce the paper's main results on a dataset (the README's main job)",
		Long: `Train GCN, GDC and Soft Medoid GDC (T = 0.5) on the dataset with the
reference protocol, attack them (FGSM and PR-BCD at ε = 0.1 and 0.25),
certify them with sparse randomized smoothing (Add, Del., Add & del.), and
write the tables and the report (report.md, report.html, figures/) into --out.

It is an ordinary experiment (print it with --print-experiment) run through
the results store in --out, so it is cached and resumable: interrupt it at any
time and run the same command again.

--quick takes 2-4 minutes on a 2-core machine (BENCHMARKS.md): one seed, at most 100
training epochs, 150 + 20 smoothing samples and no Add-only certificate; the
output states these differences. The full run uses seeds 0, 1, 5 and the
paper's protocol (hours on a CPU). Attacks are transfer attacks (the paper's
protocol): each perturbation is computed once on a surrogate GCN and applied
to every model; --quick runs PR-BCD with 50 epochs and a block of 1e5 pairs.

--paper runs the paper's whole evaluation on the dataset: the shipped
experiment files runtime, bias, figure1, certification (every model of Tables 1 and 6,
edges added, deleted and both, and attributes), temperature (Figure 3, Cora ML only),
global_attacks (DICE, FGSM, PGD, PR-BCD, GR-BCD), nettack (each model's own 40
targets, budget degree + 2) and metattack into one store, as one grid on one pool
of --workers: every file's runs are queued first, so the certificates of one seed
and smoothing distribution (up to 20 models) share their sampled graphs, and a
larger budget of FGSM or Metattack continues from the smaller one's flips (a
stopped Metattack from the flips it saved). The report shows every table and figure
next to the paper's numbers. On cora_ml it takes more than ten hours on a 2-core
machine (BENCHMARKS.md, "The paper's protocol"); it is resumable, so it can run
in sittings (scripts/paper-run keeps the results in the repository between them).`,
		Example: `  rgnn reproduce --dataset cora_ml --quick
  rgnn reproduce --dataset cora_ml --out results/cora_ml_full
  rgnn reproduce --quick --print-experiment
  rgnn reproduce --paper --dataset cora_ml --workers 2`,
		Args: cobra.NoArgs,
		RunE: runReproduce,
	}
	c.Flags().String("dataset", "cora_ml", "dataset: "+strings.Join(data.Names(), ", "))
	c.Flags().Bool("quick", false, "the 2-4-minute version (fewer seeds, epochs and samples; stated in the output)")
	c.Flags().Bool("paper", false, "the paper's whole evaluation (every shipped experiment file of it; over ten hours on 2 cores, resumable)")
	c.Flags().String("out", "", "output directory with the store and the report (default results/reproduce-<dataset>[-quick|-paper])")
	c.Flags().Int("workers", 1, "runs executed concurrently")
	c.Flags().Bool("print-experiment", false, "print the experiment file and exit")
	addJSONFlag(c)
	return c
}

func runReproduce(c *cobra.Command, _ []string) error {
	ds, _ := c.Flags().GetString("dataset")
	quick, _ := c.Flags().GetBool("quick")
	paper, _ := c.Flags().GetBool("paper")
	workers, _ := c.Flags().GetInt("workers")
	if workers < 1 {
		return usagef("--workers must be ≥ 1")
	}
	if quick && paper {
		return usagef("--quick and --paper exclude each other")
	}
	// An unknown dataset is a usage error before anything runs or is
	// written (not a failure of every run and an empty report).
	if _, err := data.Lookup(ds); err != nil {
		if _, serr := os.Stat(ds); !data.IsPath(ds) || serr != nil {
			return usagef("--dataset %s: unknown dataset (known: %s; or the path of a dataset .npz)", ds,
				strings.Join(data.Names(), ", "))
		}
	}
	src, err := experiment.ReproduceSource(ds, quick)
	if paper {
		src, err = experiment.PaperSource(ds)
	}
	if err != nil {
		return usageError{err: err}
	}
	if p, _ := c.Flags().GetBool("print-experiment"); p {
		fmt.Fprint(c.OutOrStdout(), src)
		return nil
	}
	out, _ := c.Flags().GetString("out")
	ctx, stop := interruptible(c)
	defer stop()
	res, err := reproduce.Run(ctx, reproduce.Options{Dataset: ds, Quick: quick, Paper: paper, Out: out,
		Workers: workers, DataDir: dataDir(c), Progress: progressWriter()})
	if err != nil {
		return err
	}
	if wantJSON(c) {
		if err := writeJSON(c.OutOrStdout(), res); err != nil {
			return err
		}
	} else {
		res.WriteText(c.OutOrStdout())
	}
	if res.Summary.Failed > 0 {
		return fmt.Errorf("%d runs failed (rgnn results --failures --store %s)", res.Summary.Failed, res.Store)
	}
	return nil
}
