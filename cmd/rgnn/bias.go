package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/bias"
	"github.com/rgnn/rgnn/npz"
)

// biasReport is the JSON output of `rgnn bias`.
type biasReport struct {
	Samples      int         `json:"samples"`
	Dim          int         `json:"dim"`
	Trials       int         `json:"trials"`
	Seed         uint64      `json:"seed"`
	Norms        []float64   `json:"norms"`
	Temperatures []float64   `json:"temperatures"`
	Perturbed    []int       `json:"perturbed"`
	Eps          []float64   `json:"eps"`
	Curves       []biasCurve `json:"curves"`
	Files        []string    `json:"files"`
}

type biasCurve struct {
	Norm        float64   `json:"norm"`
	Estimator   string    `json:"estimator"`
	Temperature float64   `json:"temperature,omitempty"`
	Label       string    `json:"label"`
	Bias        []float64 `json:"bias"`
	SD          []float64 `json:"sd"`
}

func newBiasCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "bias",
		Short: "Empirical bias curves B(ε) of the robust estimators (the paper's Figure 3)",
		Long: `Compute the empirical bias B(ε) = ‖t(X) − t(X̃_ε)‖ of location estimators
(Geisler et al., NeurIPS 2020, Figure 3): --samples points of a centred
standard normal in --dim dimensions (centred on their Soft Medoid with
T = 1), of which m = 0 … --max-perturbed are replaced by a point mass
[p, 0, …] of norm p (every --norms value); ε = m / samples. B is averaged
over --trials independent samples. Estimators: mean, Medoid, dimension-wise
median, and the Soft Median and Soft Medoid at every --temperatures value,
all computed by the aggregation kernels of package aggregate.

Writes <out>/bias.csv (norm, estimator, temperature, label, m, eps, bias, sd)
and one plot per norm, <out>/bias_norm<p>.png and .svg, and prints the table
(or --json). Results depend only on the flags (seeded, sequential).`,
		Example: `  rgnn bias
  rgnn bias --out figs/bias --trials 500 --seed 1
  rgnn bias --norms 1000 --temperatures 0.1,1,10 --json`,
		Args: cobra.NoArgs,
		RunE: runBias,
	}
	c.Flags().String("out", "bias", "output directory for bias.csv and the plots")
	c.Flags().Uint64("seed", 0, "random seed")
	c.Flags().Int("trials", 100, "independent samples averaged per point of the curves")
	c.Flags().Int("samples", 50, "points per sample")
	c.Flags().Int("dim", 2, "dimension of the normal distribution")
	c.Flags().Int("max-perturbed", 0, "largest number of replaced points (default samples/2, i.e. ε up to 0.5)")
	c.Flags().Float64Slice("norms", []float64{1000, 10}, "norms of the point-mass perturbation (one plot each)")
	c.Flags().Float64Slice("temperatures", []float64{1, 10, 100}, "temperatures T of the Soft Median and Soft Medoid")
	addJSONFlag(c)
	return c
}

func runBias(c *cobra.Command, _ []string) error {
	f := c.Flags()
	var cfg bias.Config
	cfg.Seed, _ = f.GetUint64("seed")
	cfg.Trials, _ = f.GetInt("trials")
	cfg.Samples, _ = f.GetInt("samples")
	cfg.Dim, _ = f.GetInt("dim")
	cfg.MaxPerturbed, _ = f.GetInt("max-perturbed")
	cfg.Norms, _ = f.GetFloat64Slice("norms")
	cfg.Temperatures, _ = f.GetFloat64Slice("temperatures")
	out, _ := f.GetString("out")
	for name, v := range map[string]int{"trials": cfg.Trials, "samples": cfg.Samples, "dim": cfg.Dim} {
		if v < 1 {
			return usagef("--%s must be ≥ 1, got %d", name, v)
		}
	}
	if len(cfg.Norms) == 0 || len(cfg.Temperatures) == 0 {
		return usagef("--norms and --temperatures need at least one value")
	}
	if cfg.MaxPerturbed < 0 {
		return usagef("--max-perturbed must be ≥ 0, got %d", cfg.MaxPerturbed)
	}
	if err := cfg.Defaults().Validate(); err != nil {
		return usageError{err}
	}
	if out == "" {
		return usagef("--out must name a directory")
	}
	fmt.Fprintf(progressWriter(), "rgnn bias: %d trials × %d norms × %d estimators\n",
		cfg.Trials, len(cfg.Norms), len(cfg.Defaults().Estimators()))
	res, err := bias.Run(context.Background(), cfg)
	if err != nil {
		return err
	}
	files, err := writeBiasFiles(res, out)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), biasJSON(res, files))
	}
	printBiasTable(c.OutOrStdout(), res)
	fmt.Fprintf(c.OutOrStdout(), "wrote %s\n", strings.Join(files, ", "))
	return nil
}

// writeBiasFiles writes the CSV and the plots atomically and returns their paths.
func writeBiasFiles(res *bias.Result, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bias: output directory: %w", err)
	}
	var csv bytes.Buffer
	if err := bias.WriteCSV(&csv, res); err != nil {
		return nil, fmt.Errorf("bias: csv: %w", err)
	}
	path := filepath.Join(dir, "bias.csv")
	if err := npz.AtomicWrite(path, csv.Bytes()); err != nil {
		return nil, err
	}
	files := []string{path}
	for _, p := range res.Config.Norms {
		pl, err := bias.Plot(res, p)
		if err != nil {
			return nil, err
		}
		for _, format := range []string{"png", "svg"} {
			b, err := bias.Render(pl, format)
			if err != nil {
				return nil, err
			}
			path := filepath.Join(dir, "bias_norm"+strconv.FormatFloat(p, 'g', -1, 64)+"."+format)
			if err := npz.AtomicWrite(path, b); err != nil {
				return nil, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

func biasJSON(res *bias.Result, files []string) biasReport {
	r := biasReport{Samples: res.Config.Samples, Dim: res.Config.Dim, Trials: res.Config.Trials,
		Seed: res.Config.Seed, Norms: res.Config.Norms, Temperatures: res.Config.Temperatures,
		Perturbed: res.Perturbed, Eps: res.Eps, Files: files}
	for _, c := range res.Curves {
		r.Curves = append(r.Curves, biasCurve{Norm: c.Norm, Estimator: c.Estimator.Name,
			Temperature: c.Estimator.Temperature, Label: c.Estimator.Label(), Bias: c.Bias, SD: c.SD})
	}
	return r
}

// printBiasTable prints one table per norm: ε down, estimators across.
func printBiasTable(w io.Writer, res *bias.Result) {
	for _, p := range res.Config.Norms {
		fmt.Fprintf(w, "Empirical bias B(ε), point mass of norm %g (%d samples, %d trials, seed %d)\n",
			p, res.Config.Samples, res.Config.Trials, res.Config.Seed)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		var curves []bias.Curve
		fmt.Fprint(tw, "ε\t")
		for _, c := range res.Curves {
			if c.Norm == p {
				curves = append(curves, c)
				fmt.Fprintf(tw, "%s\t", c.Estimator.Label())
			}
		}
		fmt.Fprintln(tw)
		for i, e := range res.Eps {
			fmt.Fprintf(tw, "%.2f\t", e)
			for _, c := range curves {
				fmt.Fprintf(tw, "%.4g\t", c.Bias[i])
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
}
