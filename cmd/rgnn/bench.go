package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/benchmark"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/task"
)

// benchReport is the JSON output of `rgnn bench`.
type benchReport struct {
	Warmup     int             `json:"warmup_epochs"`
	Epochs     int             `json:"timed_epochs"`
	Seed       int             `json:"seed"`
	GOMAXPROCS int             `json:"gomaxprocs"`
	GOARCH     string          `json:"goarch"`
	GoVersion  string          `json:"go_version"`
	Date       string          `json:"date"`
	Rows       []benchmark.Row `json:"rows"`
}

func newBenchCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "bench",
		Short: "Time training epochs of every model (the paper's Table 2)",
		Long: `Measure the wall time of one training epoch for every architecture, without and
with GDC preprocessing, like the paper's Table 2 ("average duration of one
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
is skipped on graphs with more than 10,000 nodes (its graph is dense n×n; the
paper's GPU ran out of memory on PubMed). GDC: α = 0.15, k = 64 (32 on
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
machine's load: run it on an idle machine and record 'uptime'.`,
		Example: `  rgnn bench
  rgnn bench --datasets cora_ml --models gcn,gat,sm_gdc --epochs 200 --json
  GOEXPERIMENT=simd go build -o rgnn ./cmd/rgnn && ./rgnn bench --datasets pubmed_synthetic`,
		Args: cobra.NoArgs,
		RunE: runBench,
	}
	c.Flags().String("datasets", "cora_ml,citeseer,"+benchmark.PubMedLikeName, "comma-separated datasets: cora_ml, citeseer, "+benchmark.PubMedLikeName)
	c.Flags().String("models", "", "comma-separated registry model names selecting table rows (default: all rows)")
	c.Flags().String("gdc", "both", "which columns: both, no (input graph only) or yes (GDC only)")
	c.Flags().Int("warmup", 10, "untimed warm-up epochs per measurement (≥ 1)")
	c.Flags().Int("epochs", 100, "timed epochs per measurement (≥ 1)")
	c.Flags().Int("seed", 0, "seed of the initialisation, dropout and the 20-per-class split")
	c.Flags().Uint64("graph-seed", 0, "seed of the "+benchmark.PubMedLikeName+" graph")
	c.Flags().Float64("ppr-eps", -1, "GDC PPR: 0 = exact, > 0 = push approximation with this error, < 0 = exact up to 10,000 nodes else 1e-4")
	c.Flags().Bool("quiet", false, "no progress output")
	c.Flags().Bool("markdown", false, "print the table as Markdown")
	c.Flags().String("from", "", "render a report saved with --json instead of measuring")
	addJSONFlag(c)
	return c
}

func runBench(c *cobra.Command, _ []string) error {
	if from, _ := c.Flags().GetString("from"); from != "" {
		b, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		var rep benchReport
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("%s: %w", from, err)
		}
		return outputBench(c, rep)
	}
	cfg := benchmark.Config{}
	cfg.Warmup, _ = c.Flags().GetInt("warmup")
	cfg.Epochs, _ = c.Flags().GetInt("epochs")
	seed, _ := c.Flags().GetInt("seed")
	graphSeed, _ := c.Flags().GetUint64("graph-seed")
	pprEps, _ := c.Flags().GetFloat64("ppr-eps")
	if cfg.Warmup < 1 || cfg.Epochs < 1 || seed < 0 {
		return usagef("--warmup and --epochs must be ≥ 1 and --seed ≥ 0 (got %d, %d, %d)", cfg.Warmup, cfg.Epochs, seed)
	}
	cfg.Seed = uint64(seed)
	switch gdc, _ := c.Flags().GetString("gdc"); gdc {
	case "both":
		cfg.WithoutGDC, cfg.WithGDC = true, true
	case "no":
		cfg.WithoutGDC = true
	case "yes":
		cfg.WithGDC = true
	default:
		return usagef("--gdc must be both, no or yes, got %q", gdc)
	}
	reg := task.Models()
	if ms, _ := c.Flags().GetString("models"); ms != "" {
		for _, m := range strings.Split(ms, ",") {
			m = strings.TrimSpace(m)
			if _, ok := reg.Lookup(m); !ok {
				return usagef("unknown model %q (known: %s)", m, strings.Join(reg.Names(), ", "))
			}
			if _, err := benchmark.ArchitectureOf(m); err != nil {
				return usageError{err}
			}
			cfg.Architectures = append(cfg.Architectures, m)
		}
	}
	quiet, _ := c.Flags().GetBool("quiet")
	if !quiet {
		cfg.Progress = progressWriter()
	}

	dsFlag, _ := c.Flags().GetString("datasets")
	var datasets []benchmark.Dataset
	for _, name := range strings.Split(dsFlag, ",") {
		name = strings.TrimSpace(name)
		ds := benchmark.Dataset{Name: name, K: 64}
		if name == benchmark.PubMedLikeName {
			ds.K = 32
			g, err := benchmark.PubMedLike(graphSeed)
			if err != nil {
				return err
			}
			ds.Graph = g
		} else {
			if _, err := data.Lookup(name); err != nil || (name != "cora_ml" && name != "citeseer") {
				return usagef("unknown benchmark dataset %q (known: cora_ml, citeseer, %s)", name, benchmark.PubMedLikeName)
			}
			g, err := data.Load(c.Context(), name, data.Options{Dir: dataDir(c), Fetch: data.FetchOptions{Progress: progressWriter()}})
			if err != nil {
				return err
			}
			ds.Graph = g
		}
		ds.PPREps = pprEps
		if pprEps < 0 {
			ds.PPREps = 0
			if ds.Graph.NumNodes() > 10000 {
				ds.PPREps = 1e-4
			}
		}
		datasets = append(datasets, ds)
	}

	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	rows, err := benchmark.Run(ctx, reg, datasets, cfg)
	if err != nil {
		return err
	}
	rep := benchReport{Warmup: cfg.Warmup, Epochs: cfg.Epochs, Seed: seed, GOMAXPROCS: runtime.GOMAXPROCS(0),
		GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339), Rows: rows}
	return outputBench(c, rep)
}

func outputBench(c *cobra.Command, rep benchReport) error {
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	if md, _ := c.Flags().GetBool("markdown"); md {
		return markdownBench(c.OutOrStdout(), rep)
	}
	return printBench(c.OutOrStdout(), rep)
}

// markdownBench prints the report as a Markdown table (for BENCHMARKS.md).
// rowLabels renders a row's GDC flag and the paper's figure ("-" if none).
func rowLabels(r benchmark.Row) (gdc, paper string) {
	gdc, paper = "no", "-"
	if r.GDC {
		gdc = "yes"
	}
	if r.PaperMs > 0 {
		paper = fmt.Sprintf("%.1f", r.PaperMs)
	}
	return gdc, paper
}

func markdownBench(w io.Writer, rep benchReport) error {
	fmt.Fprintf(w, "%d warm-up + %d timed epochs, GOMAXPROCS=%d, %s, %s\n\n",
		rep.Warmup, rep.Epochs, rep.GOMAXPROCS, rep.GoVersion, rep.Date)
	fmt.Fprintln(w, "| dataset | architecture | GDC | model (graph) | prep ms | epoch mean ms | median | CPU ms/epoch | mean + prep/200 | paper (GPU) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rep.Rows {
		gdc, paper := rowLabels(r)
		if r.Skipped != "" {
			fmt.Fprintf(w, "| %s | %s | %s | skipped: %s | | | | | | %s |\n", r.Dataset, r.Architecture, gdc, r.Skipped, paper)
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s (%s) | %.1f | %.2f | %.2f | %.2f | %.2f | %s |\n", r.Dataset, r.Architecture, gdc,
			r.Model, r.Graph, r.PrepMs, r.EpochMeanMs, r.EpochMedMs, r.EpochCPUMs, r.TotalMs, paper)
	}
	_, err := fmt.Fprintln(w)
	return err
}

func printBench(w io.Writer, rep benchReport) error {
	fmt.Fprintf(w, "ms per training epoch: %d warm-up + %d timed epochs, GOMAXPROCS=%d, %s, %s\n",
		rep.Warmup, rep.Epochs, rep.GOMAXPROCS, rep.GoVersion, rep.Date)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tarchitecture\tGDC\tmodel (graph)\tprep ms\tepoch mean\tmedian\tmin\tCPU/epoch\tmean+prep/200\tpaper (GPU)\t")
	for _, r := range rep.Rows {
		gdc, paper := rowLabels(r)
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\tskipped: %s\t\t\t\t\t\t\t%s\t\n", r.Dataset, r.Architecture, gdc, r.Skipped, paper)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%s)\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", r.Dataset, r.Architecture, gdc,
			r.Model, r.Graph, r.PrepMs, r.EpochMeanMs, r.EpochMedMs, r.EpochMinMs, r.EpochCPUMs, r.TotalMs, paper)
	}
	return tw.Flush()
}
