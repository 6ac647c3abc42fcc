package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/report"
)

// reproduceOutput is the JSON output of `rgnn reproduce`.
type reproduceOutput struct {
	Dataset  string             `json:"dataset"`
	Quick    bool               `json:"quick"`
	Notes    []string           `json:"notes"`
	Summary  experiment.Summary `json:"summary"`
	Verdicts []report.Verdict   `json:"verdicts"`
	Files    []string           `json:"files"`
	Tables   []report.Table     `json:"tables"`
	Seconds  float64            `json:"seconds"`
}

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

--quick fits in about 10 minutes on a 2-core machine: one seed, at most 100
training epochs, 150 + 20 smoothing samples and no Add-only certificate; the
output states these differences. The full run uses seeds 0, 1, 5 and the
paper's protocol (hours on a CPU). Attacks are transfer attacks (the paper's
protocol): each perturbation is computed once on a surrogate GCN and applied
to every model; --quick runs PR-BCD with 50 epochs and a block of 1e5 pairs.`,
		Example: `  rgnn reproduce --dataset cora_ml --quick
  rgnn reproduce --dataset cora_ml --out results/cora_ml_full
  rgnn reproduce --quick --print-experiment`,
		Args: cobra.NoArgs,
		RunE: runReproduce,
	}
	c.Flags().String("dataset", "cora_ml", "dataset")
	c.Flags().Bool("quick", false, "the ~10-minute version (fewer seeds, epochs and samples; stated in the output)")
	c.Flags().String("out", "", "output directory with the store and the report (default results/reproduce-<dataset>[-quick])")
	c.Flags().Int("workers", 1, "runs executed concurrently")
	c.Flags().Bool("print-experiment", false, "print the experiment file and exit")
	addJSONFlag(c)
	return c
}

func runReproduce(c *cobra.Command, _ []string) error {
	start := time.Now()
	ds, _ := c.Flags().GetString("dataset")
	quick, _ := c.Flags().GetBool("quick")
	workers, _ := c.Flags().GetInt("workers")
	if workers < 1 {
		return usagef("--workers must be ≥ 1")
	}
	src, err := experiment.ReproduceSource(ds, quick)
	if err != nil {
		return usageError{err}
	}
	if p, _ := c.Flags().GetBool("print-experiment"); p {
		fmt.Fprint(c.OutOrStdout(), src)
		return nil
	}
	e, err := experiment.Parse([]byte(src))
	if err != nil {
		return err
	}
	out, _ := c.Flags().GetString("out")
	if out == "" {
		out = filepath.Join("results", "reproduce-"+ds)
		if quick {
			out += "-quick"
		}
	}
	st, err := store.Open(filepath.Join(out, "results.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	notes := experiment.ReproduceNotes(quick)
	pw := progressWriter()
	fmt.Fprintf(pw, "reproduce on %s (quick=%v): results and report in %s\n", ds, quick, out)
	for _, n := range notes {
		fmt.Fprintf(pw, "  %s\n", n)
	}
	env := newEnv(c, st)
	env.SampleWorkers = max(1, runtime.GOMAXPROCS(0)/workers)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := experiment.Execute(ctx, env, e, experiment.RunOptions{Workers: workers, Progress: pw,
		StatusEvery: 30 * time.Second})
	if err != nil {
		return err
	}
	notes = append(notes, sum.Notes...)
	elapsed := time.Since(start).Seconds()
	notes = append(notes, fmt.Sprintf("this invocation took %.0f s (%d runs executed, %d taken from the store)",
		elapsed, sum.Ran, sum.AlreadyDone))
	title := "rgnn reproduce: " + ds
	if quick {
		title += " (quick)"
	}
	bg := context.Background()
	rep, err := report.Build(bg, st, report.Options{Title: title, Notes: notes,
		Filter: store.Filter{Params: map[string]string{"dataset": ds}}})
	if err != nil {
		return err
	}
	files, err := rep.WriteDir(out)
	if err != nil {
		return err
	}
	rs, err := st.Query(bg, store.Filter{Params: map[string]string{"dataset": ds}})
	if err != nil {
		return err
	}
	vs := report.Verdicts(rs)
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), reproduceOutput{Dataset: ds, Quick: quick, Notes: notes, Summary: sum,
			Verdicts: vs, Files: files, Tables: rep.Tables, Seconds: elapsed})
	}
	w := c.OutOrStdout()
	fmt.Fprint(w, rep.Markdown(""))
	fmt.Fprintln(w, "\n## Soft Medoid GDC (T=0.5) vs Vanilla GCN")
	fmt.Fprintln(w)
	if len(vs) == 0 {
		fmt.Fprintln(w, "no comparable results")
	}
	for _, v := range vs {
		word := "worse"
		if v.SMBetter {
			word = "better"
		}
		fmt.Fprintf(w, "- %s: SM GDC %.3f vs GCN %.3f → SM GDC %s\n", v.Measure, v.SMGDC, v.GCN, word)
	}
	if !report.HasKind(rs, "attack") {
		fmt.Fprintln(w, "- under attack: no attack results")
	}
	fmt.Fprintf(w, "\ntook %.0f s; written: %s, %s, %d figure files\n", elapsed, files[0], files[1], len(files)-2)
	if sum.Failed > 0 {
		return fmt.Errorf("%d runs failed (rgnn results --failures --store %s)", sum.Failed, st.Path())
	}
	return nil
}
