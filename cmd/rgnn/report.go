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

  - Tables 2 and 6 per dataset: accumulated certifications per smoothing
    distribution (Add, Del., Add & del., attributes), average certifiable
    radii of the correctly classified nodes, clean accuracy;
  - the global-attack table (Table 5: accuracy per attack and budget ε), the
    Nettack table (Table 4), the runtime table (Table 1);
  - the comparison with every number of the paper: ours ± standard error,
    the paper's ± its standard error, the difference and the tolerance
    3·√(se_paper² + se_ours²) (at least half the paper's last printed
    digit), with one summary line "N of the paper's M numbers have a
    result here: W within, O outside.";
  - figures (PNG and SVG), labelled with the paper's figure numbers:
    certification ratio over r_d and r_a, accuracy over the budget per
    attack, the temperature influence, accumulated certifications over the
    node degree, the bias curves;

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
