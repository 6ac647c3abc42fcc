package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
)

func newWorkerCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "worker",
		Short: "Claim and run queued runs from a shared store until none is left (a Slurm task)",
		Long: `Claim runs from the store's queue (filled by 'rgnn run FILE --slurm' or by any
'rgnn run' on the store), run them and record their results, until no run is
left to claim and no other worker holds one, or --time-limit approaches.

Each claim is a lease renewed by a heartbeat: a worker that dies (kill -9,
a node lost, scancel) stops renewing, and once its lease expires another
worker claims the run again. A result is written once, so a run finished
twice is stored once. With --time-limit the worker stops claiming when less
time is left than its longest run so far took (at least --reserve), and
releases what is still running at the limit. Ctrl-C or SIGTERM (scancel)
releases its runs at once.`,
		Example: `  rgnn worker --store postgres://rgnn@db.cluster/rgnn --artifacts /shared/rgnn/artifacts
  rgnn worker --store results/results.db --time-limit 1h30m --workers 2`,
		Args: cobra.NoArgs,
		RunE: runWorker,
	}
	addStoreFlag(c)
	c.Flags().Int("workers", 1, "runs executed concurrently")
	c.Flags().Int("sample-workers", 0, "goroutines per certify run's sampling (default GOMAXPROCS / workers)")
	c.Flags().Duration("time-limit", 0, "wall time this worker may take (0: none); it stops claiming before it ends")
	c.Flags().Duration("reserve", time.Minute, "with --time-limit, stop claiming when less than this (or the longest run so far) is left")
	c.Flags().Duration("lease", experiment.DefaultLease, "how long a claimed run stays this worker's without a heartbeat (renewed every third of it)")
	c.Flags().Bool("retry-failed", false, "queue the store's failed runs again before starting")
	c.Flags().Duration("status-every", 30*time.Second, "print a status line this often (0: never)")
	addJSONFlag(c)
	return c
}

func runWorker(c *cobra.Command, _ []string) error {
	workers, _ := c.Flags().GetInt("workers")
	sw, _ := c.Flags().GetInt("sample-workers")
	if workers < 1 || sw < 0 {
		return usagef("--workers must be ≥ 1 and --sample-workers ≥ 0")
	}
	var o experiment.WorkOptions
	o.TimeLimit, _ = c.Flags().GetDuration("time-limit")
	o.Reserve, _ = c.Flags().GetDuration("reserve")
	o.Lease, _ = c.Flags().GetDuration("lease")
	o.RetryFailed, _ = c.Flags().GetBool("retry-failed")
	o.StatusEvery, _ = c.Flags().GetDuration("status-every")
	if o.TimeLimit < 0 || o.Reserve < 0 || o.Lease < 0 {
		return usagef("--time-limit, --reserve and --lease must not be negative")
	}
	o.Workers, o.Progress = workers, progressWriter()
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	env := newEnv(c, st)
	env.SampleWorkers = sw
	if sw == 0 {
		env.SampleWorkers = max(1, runtime.GOMAXPROCS(0)/workers)
	}
	ctx, stop := interruptible(c)
	defer stop()
	sum, err := experiment.Work(ctx, env, o)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), sum)
	}
	fmt.Fprintf(c.OutOrStdout(), "worker: %d runs: %d ran, %d failed, %d unavailable (%.1f s); store %s\n",
		sum.Total, sum.Ran, sum.Failed, sum.Unavailable, sum.Seconds, st.Path())
	for _, n := range sum.Notes {
		fmt.Fprintf(c.OutOrStdout(), "note: %s\n", n)
	}
	return nil
}
