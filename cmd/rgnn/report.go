package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/report"
)

// reportOutput is the JSON output of `rgnn report`.
type reportOutput struct {
	Store    string         `json:"store"`
	Files    []string       `json:"files"`
	Tables   []report.Table `json:"tables"`
	Markdown string         `json:"markdown"`
}

func newReportCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "report",
		Short: "Render the paper's tables and figures from the results store",
		Long: `Render the results in the store as the paper's tables and figures:

  - Table 1 per dataset: accumulated certifications per smoothing distribution
    (Add, Del., Add & del.), average certifiable radii of the correctly
    classified nodes, clean accuracy;
  - the global-attack table (accuracy per attack and budget ε), the Nettack
    table, the runtime table;
  - figures (PNG and SVG): certification ratio over the radius, accuracy over
    the budget per attack, the temperature influence, accumulated
    certifications over the node degree, the bias curve;

all as mean ± standard error over seeds. Writes OUT/report.md,
OUT/report.html (one self-contained page: figures embedded) and
OUT/figures/, and prints the Markdown tables on stdout.`,
		Example: `  rgnn report --store results/results.db --out results/report
  rgnn report --experiment smoke --json`,
		Args: cobra.NoArgs,
		RunE: runReport,
	}
	addStoreFlag(c)
	c.Flags().String("out", "", "output directory (default: \"report\" beside the store)")
	addFilterFlags(c)
	c.Flags().String("title", "rgnn report", "report title")
	addJSONFlag(c)
	return c
}

func runReport(c *cobra.Command, _ []string) error {
	f, err := filterFlags(c)
	if err != nil {
		return err
	}
	title, _ := c.Flags().GetString("title")
	st, err := openExistingStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	out, _ := c.Flags().GetString("out")
	if out == "" {
		out = filepath.Join(st.Dir(), "report")
	}
	rep, err := report.Build(context.Background(), st, report.Options{Title: title, Filter: f})
	if err != nil {
		return err
	}
	files, err := rep.WriteDir(out)
	if err != nil {
		return err
	}
	md := rep.Markdown("")
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), reportOutput{Store: st.Path(), Files: files, Tables: rep.Tables, Markdown: md})
	}
	fmt.Fprint(c.OutOrStdout(), md)
	fmt.Fprintf(c.OutOrStdout(), "\nwritten: %s, %s and %d figure files in %s\n",
		files[0], files[1], len(files)-2, filepath.Join(out, "figures"))
	return nil
}
