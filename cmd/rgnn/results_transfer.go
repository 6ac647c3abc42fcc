package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment/store"
)

func newResultsExportCmd() *cobra.Command {
	return newTransferCmd(true, "export STORE|FILE.jsonl[.gz]",
		"Copy results (and their artifacts) from --store into another store, or write them to a results file",
		`Copy the results of --store that match --kind, --experiment and --where, with
the artifacts they name, into STORE: an SQLite file (created if missing, its
artifacts beside it) or a postgres:// URL. Results STORE already has (same key)
are skipped, so exporting twice never duplicates one.

A name ending in .jsonl or .jsonl.gz writes a results file instead: one result
per line (key, kind, parameters, metrics, the artifacts' hashes, times), without
the artifact files — small enough to publish or keep in a repository beside a
report. 'rgnn results import' reads it back; a run that needs an artifact the
store then lacks (the weights of a trained model, a perturbed graph) recomputes
it and checks it against the recorded hash.`,
		`  rgnn results export laptop.db --store postgres://rgnn@db/rgnn --experiment cora_grid
  rgnn results export paper-cora_ml.jsonl.gz --store results/reproduce-cora_ml-paper/results.db`)
}

func newResultsImportCmd() *cobra.Command {
	return newTransferCmd(false, "import STORE|FILE.jsonl[.gz]",
		"Copy results (and their artifacts) from another store or a results file into --store",
		`Copy the results of STORE (an SQLite file or a postgres:// URL) that match
--kind, --experiment and --where, with their artifacts, into --store. Results
--store already has are skipped, so importing twice never duplicates one.

A results file (.jsonl or .jsonl.gz, written by 'rgnn results export') is
imported whole, without artifact files: every line's key must match its kind
and parameters. The results count as done (a grid resumes after them, the
report shows them); a run that needs one of their artifacts recomputes it and
checks its hash.`,
		`  rgnn results import laptop.db --store postgres://rgnn@db/rgnn --artifacts /shared/rgnn/artifacts
  rgnn results import paper-cora_ml.jsonl.gz --store results/reproduce-cora_ml-paper/results.db`)
}

// newTransferCmd is 'results export' (export: from --store into the
// argument) or 'results import' (from the argument into --store).
func newTransferCmd(export bool, use, short, long, example string) *cobra.Command {
	c := &cobra.Command{
		Use:     use,
		Short:   short,
		Long:    long,
		Example: example,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return transfer(c, args[0], export)
		},
	}
	addPairFlags(c)
	return c
}

// addPairFlags adds the flags of the commands between --store and another
// store: --store, --kind, the filters and --json.
func addPairFlags(c *cobra.Command) {
	addStoreFlag(c)
	c.Flags().String("kind", "", "only results of this kind")
	addFilterFlags(c)
	addJSONFlag(c)
}

func newResultsCompareCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "compare STORE",
		Short: "Compare the metrics of --store with another store's, run by run (exit 1 if any differ)",
		Long: `Compare the results of --store and STORE by key: runs found in only one, and
runs whose parameters or metrics differ (bit for bit; measured durations such
as train_seconds are not compared). --kind, --experiment and --where select
results in both.`,
		Example: `  rgnn results compare local.db --store postgres://rgnn@db/rgnn`,
		Args:    cobra.ExactArgs(1),
		RunE:    runCompare,
	}
	addPairFlags(c)
	return c
}

// openPair opens --store (its persistent flags come from 'results') and
// the other store. The store results are read from must exist; the one
// they are copied into is created when missing (writeMine: --store is the
// destination, else the other store, none for compare).
func openPair(c *cobra.Command, other string, writeMine, writeOther bool) (mine, theirs *store.Store, f store.Filter, err error) {
	f, err = filterFlags(c)
	if err != nil {
		return nil, nil, f, err
	}
	f.Kind, _ = c.Flags().GetString("kind")
	if writeMine {
		mine, err = openStore(c)
	} else {
		mine, err = openExistingStore(c)
	}
	if err != nil {
		return nil, nil, f, err
	}
	theirs, err = store.OpenWith(other, store.Options{Existing: !writeOther})
	if err != nil {
		mine.Close()
		return nil, nil, f, missingStore(err)
	}
	return mine, theirs, f, nil
}

// removeIfNew returns a function that removes the SQLite store at path —
// the file, its journal and the artifact folder beside it — if none of
// them existed when removeIfNew was called: a copy into a new store that
// failed (a full disk) leaves nothing behind.
func removeIfNew(path string) func() {
	if store.IsURL(path) {
		return func() {}
	}
	var created []string
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal", filepath.Join(filepath.Dir(path), "artifacts")} {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			created = append(created, p)
		}
	}
	if len(created) < 4 { // the store file or its journal was there: keep everything
		return func() {}
	}
	return func() {
		for _, p := range created {
			os.RemoveAll(p)
		}
	}
}

func transfer(c *cobra.Command, other string, export bool) error {
	if store.IsResultsFile(other) {
		return transferFile(c, other, export)
	}
	cleanup := func() {}
	if export {
		cleanup = removeIfNew(other)
	} else if path, _ := c.Flags().GetString("store"); path != "" {
		cleanup = removeIfNew(path)
	}
	mine, theirs, f, err := openPair(c, other, !export, export)
	if err != nil {
		cleanup()
		return err
	}
	dst, src := mine, theirs
	if export {
		dst, src = theirs, mine
	}
	copied, skipped, err := store.CopyResults(context.Background(), dst, src, f)
	mine.Close()
	theirs.Close()
	if err != nil {
		cleanup()
		return fmt.Errorf("copying into %s: %w", dst.Path(), err)
	}
	return printTransfer(c, src.Path(), dst.Path(), copied, skipped)
}

func printTransfer(c *cobra.Command, from, to string, copied, skipped int) error {
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), map[string]any{"from": from, "to": to, "copied": copied, "skipped": skipped})
	}
	fmt.Fprintf(c.OutOrStdout(), "%s -> %s: %d results copied, %d already there\n", from, to, copied, skipped)
	return nil
}

// transferFile writes --store's results matching the filters to a results
// file (export), or imports a whole results file into --store.
func transferFile(c *cobra.Command, path string, export bool) error {
	f, err := filterFlags(c)
	if err != nil {
		return err
	}
	f.Kind, _ = c.Flags().GetString("kind")
	if !export && (f.Kind != "" || f.Experiment != "" || len(f.Params) > 0) {
		return usagef("a results file is imported whole: --kind, --experiment and --where select what 'rgnn results export' writes")
	}
	var st *store.Store
	if export {
		st, err = openExistingStore(c)
	} else {
		st, err = openStore(c)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	if export {
		rs, err := st.Query(ctx, f)
		if err != nil {
			return err
		}
		if err := store.WriteResultsFile(path, rs); err != nil {
			return err
		}
		return printTransfer(c, st.Path(), path, len(rs), 0)
	}
	rs, err := store.ReadResultsFile(path)
	if err != nil {
		return err
	}
	copied, skipped, err := store.ImportResults(ctx, st, rs)
	if err != nil {
		return err
	}
	return printTransfer(c, path, st.Path(), copied, skipped)
}

func runCompare(c *cobra.Command, args []string) error {
	mine, theirs, f, err := openPair(c, args[0], false, false)
	if err != nil {
		return err
	}
	defer mine.Close()
	defer theirs.Close()
	ctx := context.Background()
	a, err := mine.Query(ctx, f)
	if err != nil {
		return err
	}
	b, err := theirs.Query(ctx, f)
	if err != nil {
		return err
	}
	diff := store.DiffMetrics(a, b)
	if wantJSON(c) {
		if err := writeJSON(c.OutOrStdout(), map[string]any{"results": len(a), "other": len(b), "differences": diff}); err != nil {
			return err
		}
	} else {
		for _, d := range diff {
			fmt.Fprintln(c.OutOrStdout(), d)
		}
	}
	if len(diff) > 0 {
		return fmt.Errorf("%s and %s: %d differences", mine.Path(), theirs.Path(), len(diff))
	}
	if !wantJSON(c) {
		fmt.Fprintf(c.OutOrStdout(), "%s and %s: the same %d results\n", mine.Path(), theirs.Path(), len(a))
	}
	return nil
}
