package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/report"
)

func newResultsDeleteCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "delete",
		Short: "Delete results (and their saved partial work) so that the next run recomputes them",
		Long: `Delete the results that match --kind, --experiment and --where from the store,
with the partial work saved for those runs and for matching queued runs that
have not finished (votes and attack checkpoints in <artifacts>/partial/<key>.*),
so that the next 'rgnn run', 'rgnn reproduce' or
worker computes them from the start: after the code of a model changed, say
(a run's key names its parameters, not the code, so without this a resumed
grid would keep the old results and resume the old votes). Queued runs whose
result is deleted are queued again. Artifacts (weights, perturbed graphs) stay:
they are named by their content and may be shared with other results.

At least one filter is required. Without --yes it lists what it would delete
and deletes nothing. Stop the grid first: a run a worker is computing is refused
(--force deletes anyway).`,
		Example: `  rgnn results delete --store results/reproduce-cora_ml-paper/results.db --where model=rgcn
  rgnn results delete --store results/reproduce-cora_ml-paper/results.db --where model=rgcn --yes`,
		Args: cobra.NoArgs,
		RunE: runResultsDelete,
	}
	addStoreFlag(c)
	c.Flags().String("kind", "", "only results of this kind ("+strings.Join(experiment.DefaultKinds().Names(), ", ")+")")
	addFilterFlags(c)
	c.Flags().Bool("yes", false, "delete (without it, only list what would be deleted)")
	c.Flags().Bool("force", false, "delete even runs a worker is computing now (it may then store its old result)")
	addJSONFlag(c)
	return c
}

func runResultsDelete(c *cobra.Command, _ []string) error {
	f, err := filterFlags(c)
	if err != nil {
		return err
	}
	f.Kind, _ = c.Flags().GetString("kind")
	if f.Kind == "" && f.Experiment == "" && len(f.Params) == 0 {
		return usagef("results delete: name what to delete with --kind, --experiment or --where (nothing is deleted without a filter)")
	}
	yes, _ := c.Flags().GetBool("yes")
	st, err := openExistingStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	rs, err := st.Query(ctx, f)
	if err != nil {
		return err
	}
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.Key
	}
	// Runs queued but not finished have no result, but may have saved
	// partial work, which a resumed grid would continue with.
	queued, err := st.QueueMatching(ctx, f)
	if err != nil {
		return err
	}
	work := slices.Clone(keys)
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		seen[k] = true
	}
	force, _ := c.Flags().GetBool("force")
	for _, q := range queued {
		if q.State == store.Claimed && q.LeaseLeft > 0 && !force {
			return fmt.Errorf("results delete: run %s (%s) is being computed by worker %q (lease %s left): stop the grid first, or add --force",
				q.Key, q.Kind, q.Worker, q.LeaseLeft.Round(time.Second))
		}
		if !seen[q.Key] {
			seen[q.Key] = true
			work = append(work, q.Key)
		}
	}
	partial := []string{}
	if dir := st.ArtifactDir(); dir != "" {
		for _, k := range work {
			m, err := filepath.Glob(filepath.Join(dir, "partial", k+".*"))
			if err != nil {
				return err
			}
			partial = append(partial, m...)
		}
	}
	deleted := 0
	if yes {
		// Partial work first: a result deleted with its votes left behind
		// would resume them.
		for _, p := range partial {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("results delete: %w", err)
			}
		}
		if len(keys) > 0 {
			if deleted, err = st.Delete(ctx, keys); err != nil {
				return fmt.Errorf("results delete: %s: %w", st.Path(), err)
			}
		}
	}
	w := c.OutOrStdout()
	if wantJSON(c) {
		return writeJSON(w, map[string]any{"store": st.Path(), "matched": keys, "partial_files": partial,
			"deleted": deleted, "dry_run": !yes})
	}
	if len(rs) == 0 && len(partial) == 0 {
		fmt.Fprintf(w, "no results in %s match\n", st.Path())
		return nil
	}
	if err := report.WriteTable(w, rs); err != nil {
		return err
	}
	if !yes {
		fmt.Fprintf(w, "%d results (and %d files of partial work) would be deleted from %s; add --yes to delete them\n",
			len(rs), len(partial), st.Path())
		return nil
	}
	fmt.Fprintf(w, "deleted %d results and %d files of partial work from %s; the next run recomputes them\n",
		deleted, len(partial), st.Path())
	return nil
}
