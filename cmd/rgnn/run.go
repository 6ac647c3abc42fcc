package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
)

const defaultStore = "results/results.db"

func addStoreFlag(c *cobra.Command) {
	def := defaultStore
	if env := os.Getenv("RGNN_STORE"); env != "" {
		def = env
	}
	c.Flags().String("store", def, "results store: an SQLite file (artifacts in the \"artifacts\" folder beside it) "+
		"or a postgres:// URL of a shared PostgreSQL database (default $RGNN_STORE, else "+defaultStore+")")
	c.Flags().String("artifacts", os.Getenv("RGNN_ARTIFACTS"), "artifact folder, named in the store on first use "+
		"(a PostgreSQL store needs one on a path every node sees; default $RGNN_ARTIFACTS, else the folder the store names)")
}

// openStore opens --store, creating it when missing (commands that write
// results).
func openStore(c *cobra.Command) (*store.Store, error) { return openStoreWith(c, false) }

// openExistingStore opens --store for a command that only reads it: a
// missing store is an error naming it (and the stores 'rgnn reproduce'
// wrote, which are not the default store), and nothing is created.
func openExistingStore(c *cobra.Command) (*store.Store, error) { return openStoreWith(c, true) }

func openStoreWith(c *cobra.Command, existing bool) (*store.Store, error) {
	path, _ := c.Flags().GetString("store")
	if path == "" {
		return nil, usagef("--store must not be empty")
	}
	if err := store.CheckTarget(path); err != nil {
		return nil, usageError{err: err, field: "--store"}
	}
	art, _ := c.Flags().GetString("artifacts")
	st, err := store.OpenWith(path, store.Options{Artifacts: art, Existing: existing})
	return st, missingStore(err)
}

// reproduceStores is where 'rgnn reproduce' writes its stores by default.
const reproduceStores = "results/reproduce-*/results.db"

// missingStore explains a store that does not exist (other errors pass
// through): 'rgnn run' creates one, and 'rgnn reproduce' writes its own.
func missingStore(err error) error {
	var nf *store.NotFoundError
	if !errors.As(err, &nf) {
		return err
	}
	hint := "'rgnn run' creates a store; 'rgnn reproduce' writes its results to " +
		"results/reproduce-<dataset>[-quick|-paper]/results.db"
	if found, _ := filepath.Glob(reproduceStores); len(found) > 0 {
		hint += " (here: " + strings.Join(found, ", ") + ")"
	}
	return usageError{err: fmt.Errorf("%w: check --store (%s)", nf, hint), field: "--store"}
}

// addFilterFlags adds --experiment and --where, which select results.
func addFilterFlags(c *cobra.Command) {
	c.Flags().String("experiment", "", "only results recorded by this experiment")
	c.Flags().StringArray("where", nil, "parameter filter NAME=VALUE (repeatable), e.g. --where model=gcn --where seed=0")
}

// filterFlags is the store filter of --experiment and --where.
func filterFlags(c *cobra.Command) (store.Filter, error) {
	f := store.Filter{Params: map[string]string{}}
	f.Experiment, _ = c.Flags().GetString("experiment")
	where, _ := c.Flags().GetStringArray("where")
	for _, w := range where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return f, usagef("--where %q: want NAME=VALUE", w)
		}
		f.Params[k] = v
	}
	return f, nil
}

func newRunCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "run EXPERIMENT.yaml",
		Short: "Run an experiment grid (resumable; results go to the store)",
		Long: `Expand an experiment file (SEML-style: fixed and grid blocks, named sub-blocks
per model) into runs, skip those whose results are already in the store, and
run the rest on a worker pool with progress on stderr.

Each run has a kind (` + strings.Join(experiment.DefaultKinds().Names(), ", ") + `) and is keyed
by the hash of its kind and parameters. Runs that need trained weights (eval,
certify, attack) take them from the store's train result with the same model
and training parameters, or train it first (once) and record it. Every result
is committed in its own transaction after its artifacts are written, so the
run can be interrupted at any moment (Ctrl-C, kill -9) and resumed by running
the same command again. Runs are claimed from the store's queue with leases,
so several 'rgnn run's or 'rgnn worker's on one store (SQLite, or PostgreSQL
with --store postgres://...) share a grid; --slurm submits it as a Slurm
array of workers (the file's slurm: block, SEML's names).

Example experiment file (see experiments/ for the paper's evaluation):

  name: cora_gcn_vs_sm
  fixed: {dataset: cora_ml, p_del: 0.4, samples: 1000}
  grid:
    seed: [0, 1, 5]
    kind: [train, certify]
  gcn:
    fixed: {model: gcn}
  sm_gdc:
    fixed: {model: sm_gdc}
    grid: {temperature: [0.5, 1.0]}

'rgnn run --list-kinds' prints every kind's parameters and defaults.`,
		Example: `  rgnn run experiments/smoke.yaml --store results/results.db
  rgnn run exp.yaml --dry-run
  rgnn run exp.yaml --workers 2 --only train
  rgnn run experiments/nettack.yaml --set dataset=cora_ml --set seed=0 --dry-run
  rgnn run exp.yaml --slurm --store postgres://me@db/rgnn --artifacts /shared/rgnn/artifacts
  rgnn run exp.yaml --status --store postgres://me@db/rgnn`,
		Args: func(c *cobra.Command, args []string) error {
			if l, _ := c.Flags().GetBool("list-kinds"); l {
				return nil
			}
			if st, _ := c.Flags().GetBool("status"); st && len(args) == 0 {
				return nil
			}
			if len(args) != 1 {
				return usagef("want exactly one experiment file, got %d arguments", len(args))
			}
			return nil
		},
		RunE: runRun,
	}
	addStoreFlag(c)
	c.Flags().Int("workers", 1, "runs executed concurrently")
	c.Flags().Int("sample-workers", 0, "goroutines per certify run's sampling (default GOMAXPROCS / workers)")
	c.Flags().StringSlice("only", nil, "run only these kinds (e.g. --only train,certify)")
	c.Flags().StringArray("set", nil, "NAME=VALUE (repeatable): every run takes this parameter value (a YAML list becomes a grid), replacing the file's")
	c.Flags().Bool("dry-run", false, "list the runs and whether they are done, run nothing")
	c.Flags().Bool("list-kinds", false, "print the task kinds and their parameters")
	c.Flags().Duration("status-every", 30*time.Second, "print a status line this often (0: never)")
	addClusterFlags(c)
	addJSONFlag(c)
	return c
}

// dryRun lists the runs of e and whether --store has them, without
// creating the store when it does not exist.
func dryRun(c *cobra.Command, e *experiment.Experiment, runs []experiment.Run) error {
	st, err := openExistingStore(c)
	var nf *store.NotFoundError
	if err != nil && !errors.As(err, &nf) {
		return err
	}
	where := ""
	if st != nil {
		defer st.Close()
		where = filepath.Clean(st.Path())
	} else {
		where = nf.Path + ", not created yet"
	}
	plan, err := experiment.NewPlan(context.Background(), st, runs)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), plan)
	}
	plan.WriteText(c.OutOrStdout())
	fmt.Fprintf(c.OutOrStdout(), "%s: %d runs, %d done (store %s)\n", e.Name, len(runs), plan.Done(), where)
	return nil
}

func newEnv(c *cobra.Command, st *store.Store) *experiment.Env {
	return &experiment.Env{Store: st, Kinds: experiment.DefaultKinds(),
		DataDir: dataDir(c), Log: progressWriter()}
}

func runRun(c *cobra.Command, args []string) error {
	kinds := experiment.DefaultKinds()
	if l, _ := c.Flags().GetBool("list-kinds"); l {
		if wantJSON(c) {
			return writeJSON(c.OutOrStdout(), kinds.Infos())
		}
		kinds.WriteText(c.OutOrStdout())
		return nil
	}
	if len(args) == 0 { // --status of the whole store
		return runStatus(c, nil, nil)
	}
	e, err := experiment.ParseFile(args[0])
	if err != nil {
		return usageError{err: err} // unreadable, or a mistake in it (*experiment.FileError, with its line)
	}
	sets, _ := c.Flags().GetStringArray("set")
	for _, s := range sets {
		if err := e.SetString(s); err != nil {
			return usagef("--set: %v", err)
		}
	}
	runs, err := e.Expand(kinds)
	var se *experiment.SetError
	if errors.As(err, &se) { // a mistake of --set, not of the file
		return usageError{err: fmt.Errorf("--set %w", se), field: "--set"}
	}
	if err != nil {
		return usageError{err: fmt.Errorf("%s: %w", args[0], err)}
	}
	workers, _ := c.Flags().GetInt("workers")
	sw, _ := c.Flags().GetInt("sample-workers")
	if workers < 1 || sw < 0 {
		return usagef("--workers must be ≥ 1 and --sample-workers ≥ 0")
	}
	only, _ := c.Flags().GetStringSlice("only")
	for _, k := range only {
		if _, ok := kinds.Lookup(k); !ok {
			return usagef("--only: unknown kind %q (known: %s)", k, strings.Join(kinds.Names(), ", "))
		}
	}
	dry, _ := c.Flags().GetBool("dry-run")
	status, _ := c.Flags().GetBool("status")
	slurm, _ := c.Flags().GetBool("slurm")
	if dry && !slurm && !status {
		return dryRun(c, e, runs)
	}
	var st *store.Store
	if status {
		st, err = openExistingStore(c)
	} else {
		st, err = openStore(c)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	if done, err := runCluster(c, st, args[0], e, runs); done {
		return err
	}
	env := newEnv(c, st)
	env.SampleWorkers = sw
	if sw == 0 {
		env.SampleWorkers = max(1, runtime.GOMAXPROCS(0)/workers)
	}
	every, _ := c.Flags().GetDuration("status-every")
	ctx, stop := interruptible(c)
	defer stop()
	opt := experiment.RunOptions{Workers: workers, Progress: progressWriter(), StatusEvery: every, Only: only}
	clusterOptions(c, &opt)
	sum, err := experiment.Execute(ctx, env, e, opt)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		if err := writeJSON(c.OutOrStdout(), sum); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.OutOrStdout(), "%s: %d runs: %d already done, %d ran, %d failed, %d unavailable (%.1f s); store %s\n",
			sum.Experiment, sum.Total, sum.AlreadyDone, sum.Ran, sum.Failed, sum.Unavailable, sum.Seconds, st.Path())
		printShared(c, sum)
		for _, n := range sum.Notes {
			fmt.Fprintf(c.OutOrStdout(), "note: %s\n", n)
		}
	}
	if n := sum.Failed + sum.FailedBefore; n > 0 {
		return fmt.Errorf("%d runs failed (see 'rgnn results --failures --store %s'); rerun with --retry-failed to retry them", n, st.Path())
	}
	return nil
}
