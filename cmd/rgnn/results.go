package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/report"
)

func newResultsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "results",
		Short: "List, filter and export results from the store (table, CSV, JSON)",
		Long: `List the results in the store, optionally filtered by kind, experiment and
parameter values, as a table (default), CSV (--format csv: one column per
parameter and per scalar metric; list-valued metrics as JSON text) or JSON
(--json or --format json: every field, artifacts included).

--failures lists runs that failed (they keep their error; 'rgnn run --retry-failed'
or 'rgnn worker --retry-failed' runs them again);
--check verifies every row's checksum, the database's integrity and every
artifact's content hash (exit 1 if anything is wrong); artifacts the folder does
not hold (results imported from a results file) are counted, not errors: a run
that needs one recomputes it.`,
		Example: `  rgnn results --kind certify --where model=sm_gdc --where p_del=0.4
  rgnn results --format csv > results.csv
  rgnn results --check`,
		Args: cobra.NoArgs,
		RunE: runResults,
	}
	addStoreFlag(c)
	c.Flags().String("kind", "", "only results of this kind ("+strings.Join(experiment.DefaultKinds().Names(), ", ")+")")
	addFilterFlags(c)
	c.Flags().String("format", "table", "output format: table, csv or json")
	c.Flags().Bool("failures", false, "list failed runs instead")
	c.Flags().Bool("check", false, "verify checksums, database integrity and artifact hashes")
	addJSONFlag(c)
	c.AddCommand(newResultsExportCmd(), newResultsImportCmd(), newResultsCompareCmd(), newResultsDeleteCmd())
	return c
}

func runResults(c *cobra.Command, _ []string) error {
	format, _ := c.Flags().GetString("format")
	if wantJSON(c) {
		format = "json"
	}
	if format != "table" && format != "csv" && format != "json" {
		return usagef("--format %q: want table, csv or json", format)
	}
	f, err := filterFlags(c)
	if err != nil {
		return err
	}
	f.Kind, _ = c.Flags().GetString("kind")
	st, err := openExistingStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	w := c.OutOrStdout()
	if chk, _ := c.Flags().GetBool("check"); chk {
		probs, absent, err := st.CheckAll(ctx)
		if err != nil {
			return err
		}
		if format == "json" {
			if err := writeJSON(w, map[string]any{"ok": len(probs) == 0, "problems": probs, "absent_artifacts": absent}); err != nil {
				return err
			}
		} else {
			for _, p := range probs {
				fmt.Fprintln(w, p)
			}
		}
		if len(probs) > 0 {
			return fmt.Errorf("%s: %d problems", st.Path(), len(probs))
		}
		if format != "json" {
			fmt.Fprintf(w, "%s: ok\n", st.Path())
			if absent > 0 {
				fmt.Fprintf(w, "%d artifacts absent (results imported without them): a run that needs one recomputes it\n", absent)
			}
		}
		return nil
	}
	if fl, _ := c.Flags().GetBool("failures"); fl {
		fs, err := st.Failures(ctx)
		if err != nil {
			return err
		}
		if format == "json" {
			return writeJSON(w, fs)
		}
		for _, f := range fs {
			fmt.Fprintf(w, "%s %s %s: %s\n", f.Key, f.Kind, f.At.Format("2006-01-02 15:04:05"), f.Error)
		}
		return nil
	}
	rs, err := st.Query(ctx, f)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		if rs == nil {
			rs = []store.Result{}
		}
		return writeJSON(w, rs)
	case "csv":
		return report.WriteCSV(w, rs)
	}
	return report.WriteTable(w, rs)
}
