package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
)

// addClusterFlags adds rgnn run's flags for shared stores and Slurm.
func addClusterFlags(c *cobra.Command) {
	c.Flags().Bool("retry-failed", false, "run the grid's failed runs again (by default they keep their error)")
	c.Flags().Duration("lease", experiment.DefaultLease, "how long a claimed run stays this process's without a heartbeat (renewed every third of it)")
	c.Flags().Bool("status", false, "show the grid's runs (or, without a file, the store's queue): queued, claimed, done, failed with errors")
	c.Flags().Bool("slurm", false, "enqueue the grid and submit an sbatch array of 'rgnn worker's from the file's slurm: block (with --dry-run: print the script)")
}

// clusterOptions sets the RunOptions of those flags.
func clusterOptions(c *cobra.Command, o *experiment.RunOptions) {
	o.RetryFailed, _ = c.Flags().GetBool("retry-failed")
	o.Lease, _ = c.Flags().GetDuration("lease")
}

// printShared reports what other processes did on a shared store.
func printShared(c *cobra.Command, sum experiment.Summary) {
	if sum.ByOthers > 0 {
		fmt.Fprintf(c.OutOrStdout(), "%d runs were finished by other processes on the store\n", sum.ByOthers)
	}
	if sum.FailedBefore > 0 {
		fmt.Fprintf(c.OutOrStdout(), "%d runs failed before and were not retried (--retry-failed retries them)\n", sum.FailedBefore)
	}
}

// runCluster handles --status and --slurm for an experiment file; done
// reports whether it did.
func runCluster(c *cobra.Command, st *store.Store, file string, e *experiment.Experiment, runs []experiment.Run) (done bool, err error) {
	if s, _ := c.Flags().GetBool("status"); s {
		return true, runStatus(c, st, runs)
	}
	if s, _ := c.Flags().GetBool("slurm"); !s {
		return false, nil
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return true, usageError{err: err}
	}
	sl, err := experiment.ParseSlurm(src)
	if err != nil {
		return true, usageError{err: fmt.Errorf("%s: %w", file, err)}
	}
	ctx := context.Background()
	dry, _ := c.Flags().GetBool("dry-run")
	retry, _ := c.Flags().GetBool("retry-failed")
	left := 0
	if dry {
		plan, err := experiment.NewPlan(ctx, st, runs)
		if err != nil {
			return true, err
		}
		left = len(runs) - plan.Done()
	} else if left, err = experiment.Enqueue(ctx, st, e.Name, runs, retry); err != nil {
		return true, err
	}
	bin, err := os.Executable()
	if err != nil {
		return true, fmt.Errorf("--slurm: the rgnn binary: %w", err)
	}
	target, _ := c.Flags().GetString("store")
	if !store.IsURL(target) {
		target, _ = filepath.Abs(target)
	}
	dd := dataDir(c)
	if dd == "" {
		dd = os.Getenv("RGNN_DATA_DIR")
	}
	if dd != "" {
		dd, _ = filepath.Abs(dd)
	}
	lease, _ := c.Flags().GetDuration("lease")
	job := experiment.SlurmJob{Name: e.Name, Runs: left, Binary: bin, Store: target, DataDir: dd, Lease: lease}
	if art, _ := c.Flags().GetString("artifacts"); art != "" || st.Postgres() {
		// named in the store already; given again for nodes that mount it elsewhere
		job.Artifacts, _ = filepath.Abs(st.ArtifactDir())
	}
	script, err := sl.Script(job)
	if err != nil {
		return true, err
	}
	if dry {
		fmt.Fprint(c.OutOrStdout(), script)
		return true, nil
	}
	if left == 0 {
		fmt.Fprintf(c.OutOrStdout(), "%s: all %d runs are done; nothing submitted\n", e.Name, len(runs))
		return true, nil
	}
	id, err := experiment.SubmitSlurm(ctx, sl, e.Name, script)
	if err != nil {
		return true, err
	}
	if wantJSON(c) {
		return true, writeJSON(c.OutOrStdout(), map[string]any{"job_id": id, "runs": left, "tasks": sl.Tasks(job), "store": st.Path()})
	}
	fmt.Fprintf(c.OutOrStdout(), "%s: %d runs queued in %s; submitted Slurm array job %s (%d tasks)\n",
		e.Name, left, st.Path(), id, sl.Tasks(job))
	fmt.Fprintln(c.OutOrStdout(), id)
	return true, nil
}

// runStatus prints the state of runs (the store's whole queue when nil) in
// st (nil: the --store).
func runStatus(c *cobra.Command, st *store.Store, runs []experiment.Run) error {
	if st == nil {
		var err error
		if st, err = openExistingStore(c); err != nil {
			return err
		}
		defer st.Close()
	}
	s, err := experiment.NewStatus(context.Background(), st, runs)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), s)
	}
	s.WriteText(c.OutOrStdout())
	return nil
}
