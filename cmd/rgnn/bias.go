package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/bias"
)

func newBiasCmd() *cobra.Command {
	spec, out := bias.Config{}.Defaults(), "bias"
	c := &cobra.Command{
		Use:   "bias",
		Short: "Empirical bias curves B(ε) of the robust estimators (the paper's Figure 2)",
		Long: `Compute the empirical bias B(ε) = ‖t(X) − t(X̃_ε)‖ of location estimators
(Geisler et al., NeurIPS 2020, Figure 2): --samples points of a centred
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
		RunE: func(c *cobra.Command, _ []string) error {
			if err := spec.Validate(); err != nil {
				return paramErr(err)
			}
			if out == "" {
				return usagef("--out must name a directory")
			}
			fmt.Fprintf(progressWriter(), "rgnn bias: %d trials × %d norms × %d estimators\n",
				spec.Trials, len(spec.Norms), len(spec.Estimators()))
			res, err := bias.Run(c.Context(), spec)
			if err != nil {
				return err
			}
			files, err := res.WriteFiles(out)
			if err != nil {
				return err
			}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), res.Report(files))
			}
			if err := res.WriteTable(c.OutOrStdout()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.OutOrStdout(), "wrote %s\n", strings.Join(files, ", "))
			return err
		},
	}
	bind(c, &spec)
	c.Flags().Uint64Var(&spec.Seed, "seed", 0, "random seed")
	c.Flags().StringVar(&out, "out", out, "output directory for bias.csv and the plots")
	addJSONFlag(c)
	return c
}

// paramErr turns a package's validation error, which starts with the
// parameter's name, into a usage error naming the flag.
func paramErr(err error) error {
	msg := err.Error()
	i := strings.IndexAny(msg+" ", " :")
	return usagef("--%s%s", strings.ReplaceAll(msg[:i], "_", "-"), msg[i:])
}
