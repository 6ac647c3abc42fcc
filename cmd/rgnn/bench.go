package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/benchmark"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/task"
)

func newBenchCmd() *cobra.Command {
	spec := benchmark.Spec{}.Defaults()
	var from string
	var quiet, markdown bool
	var scale scaleFlags
	c := &cobra.Command{
		Use:   "bench",
		Short: "Time training epochs of every model (the paper's Table 1)",
		Long: `Measure the wall time of one training epoch for every architecture, without and
with GDC preprocessing, like the paper's Table 1 ("average duration of one
training epoch over 200 epochs, preprocessing counts once").

One epoch is one iteration of the training loop of 'rgnn train' (training-mode
forward with dropout, cross-entropy, backward, Adam step, early-stopping
bookkeeping). Per architecture and dataset: the one-off preprocessing is timed
once (GDC, SVD, Jaccard filter, normalisation), then --warmup untimed epochs
and --epochs timed ones; reported are the mean, median and minimum wall time
of an epoch, the process CPU time per epoch (all threads; less sensitive to
other load than wall time) and mean + preprocessing/200.

Rows (--models takes registry names; gdc and sm_gdc select the gcn and sm_gcn
rows): gcn (GDC column = the gdc model), appnp, gat, svd_gcn, jaccard_gcn, rgcn
(GDC column = the model on the symmetrised, unweighted pattern of the top-k PPR
matrix, since these models have no GDC variant of their own), sm_gcn (GDC
column = sm_gdc), medoid_gdc, dimmedian_gdc, softmedian_gdc (GDC only). svd_gcn
propagates over its dense n×n graph in low-rank form, so it also runs on
pubmed_synthetic (the paper's GPU ran out of memory on PubMed). GDC: α = 0.15, k = 64 (32 on
pubmed_synthetic), exact PPR unless --ppr-eps > 0 (default: exact up to 10,000
nodes, push approximation eps = 1e-4 above).

Datasets: cora_ml, citeseer (real, from --data-dir) and pubmed_synthetic, a
deterministic PubMed-shaped graph generated from --graph-seed: 19,717 nodes in
PubMed's three class sizes, 44,324 undirected edges from a degree-corrected
stochastic block model (Pareto(2.5) degree propensities, 80% of edges inside a
class), 500 sparse TF-IDF-like features (25-75 words per node from class and
global Zipf rankings, idf-weighted, rows L2-normalised). The paper's figures
(GTX 1080 Ti; PubMed's next to pubmed_synthetic) are shown for comparison.

Progress goes to stderr; the table (or --json) to stdout. Timings depend on the
machine's load: run it on an idle machine and record 'uptime'.` + scaleHelp,
		Example: `  rgnn bench
  rgnn bench --datasets cora_ml --models gcn,gat,sm_gdc --epochs 200 --json
  go build -o rgnn ./cmd/rgnn && ./rgnn bench --datasets pubmed_synthetic
  rgnn bench --scale --sizes 10000,100000 --json
  rgnn bench --scale --scale-preset arxiv --sizes 169343`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if scale.on || scale.stage != "" {
				return runScale(c, &scale, spec.Seed, quiet)
			}
			var rep *benchmark.Report
			var err error
			if from != "" {
				rep, err = benchmark.ReadReport(from)
			} else if err = spec.Validate(); err != nil {
				return paramErr(err)
			} else {
				var progress io.Writer
				if !quiet {
					progress = progressWriter()
				}
				o := data.Options{Dir: dataDir(c), Fetch: data.FetchOptions{Progress: progressWriter()}}
				rep, err = spec.Run(c.Context(), task.Models(), o, progress)
			}
			switch {
			case err != nil:
				return err
			case wantJSON(c):
				return writeJSON(c.OutOrStdout(), rep)
			case markdown:
				return rep.WriteMarkdown(c.OutOrStdout())
			}
			return rep.WriteTable(c.OutOrStdout())
		},
	}
	bind(c, &spec)
	c.Flags().Uint64Var(&spec.GraphSeed, "graph-seed", 0, "seed of the "+benchmark.PubMedLikeName+" graph")
	c.Flags().BoolVar(&quiet, "quiet", false, "no progress output")
	c.Flags().BoolVar(&markdown, "markdown", false, "print the table as Markdown")
	c.Flags().StringVar(&from, "from", "", "render a report saved with --json instead of measuring")
	addScaleFlags(c, &scale)
	addJSONFlag(c)
	return c
}
