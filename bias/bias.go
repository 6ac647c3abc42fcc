package bias

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/tensor"
)

// Config parameterises Run; zero values mean the defaults of Figure 2.
// Every field but Seed carries a param tag (the parameter's name; a flag
// is the name with _ turned into -) and a help tag, so front ends bind
// their flags to the fields; their defaults are those of Defaults.
type Config struct {
	// Samples is the number of points per sample (default 50).
	Samples int `param:"samples" help:"points per sample"`
	// Dim is the dimension of the normal distribution (default 2).
	Dim int `param:"dim" help:"dimension of the normal distribution"`
	// Norms are the norms p of the point-mass perturbation (default 1000, 10).
	Norms []float64 `param:"norms" help:"norms of the point-mass perturbation (one plot each)"`
	// Temperatures of the soft estimators (default 1, 10, 100).
	Temperatures []float64 `param:"temperatures" help:"temperatures T of the Soft Median and Soft Medoid"`
	// Trials is the number of independent samples averaged per point
	// (default 100).
	Trials int `param:"trials" help:"independent samples averaged per point of the curves"`
	// Seed seeds the RNG (untagged: a uint64, which front ends declare
	// themselves).
	Seed uint64
	// MaxPerturbed is the largest number m of replaced points; 0 means
	// ⌊Samples/2⌋, i.e. ε up to 0.5 (Run resolves it).
	MaxPerturbed int `param:"max_perturbed" help:"largest number of replaced points (default samples/2, i.e. ε up to 0.5)"`
}

// Defaults returns c with its zero fields set to the defaults (a zero
// MaxPerturbed stays zero: it follows Samples).
func (c Config) Defaults() Config {
	if c.Samples == 0 {
		c.Samples = 50
	}
	if c.Dim == 0 {
		c.Dim = 2
	}
	if len(c.Norms) == 0 {
		c.Norms = []float64{1000, 10}
	}
	if len(c.Temperatures) == 0 {
		c.Temperatures = []float64{1, 10, 100}
	}
	if c.Trials == 0 {
		c.Trials = 100
	}
	return c
}

// Validate reports impossible parameters (after Defaults); each error
// starts with the parameter's name and its value.
func (c Config) Validate() error {
	switch {
	case c.Samples < 2:
		return fmt.Errorf("samples %d: must be ≥ 2", c.Samples)
	case c.Dim < 1:
		return fmt.Errorf("dim %d: must be ≥ 1", c.Dim)
	case c.Trials < 1:
		return fmt.Errorf("trials %d: must be ≥ 1", c.Trials)
	case c.MaxPerturbed < 0 || c.MaxPerturbed > c.Samples:
		return fmt.Errorf("max_perturbed %d: must be in [0, %d] (0: samples/2)", c.MaxPerturbed, c.Samples)
	case len(c.Norms) == 0:
		return fmt.Errorf("norms: need at least one value")
	case len(c.Temperatures) == 0:
		return fmt.Errorf("temperatures: need at least one value")
	}
	for _, p := range c.Norms {
		if !(p >= 0) || math.IsInf(p, 0) {
			return fmt.Errorf("norms %v: must be finite and ≥ 0", p)
		}
	}
	for _, t := range c.Temperatures {
		if !(t > 0) || math.IsInf(t, 0) {
			return fmt.Errorf("temperatures %v: must be positive and finite", t)
		}
	}
	return nil
}

// Estimator is one location estimator of the figure.
type Estimator struct {
	Name        string  // "mean", "medoid", "dimmedian", "soft_median", "soft_medoid"
	Temperature float64 // soft estimators only (0 otherwise)
	aggregation string
}

// Label is a human-readable name, e.g. "Soft Medoid T=10".
func (e Estimator) Label() string {
	base := map[string]string{"mean": "Mean", "medoid": "Medoid", "dimmedian": "Dim-wise median",
		"soft_median": "Soft Median", "soft_medoid": "Soft Medoid"}[e.Name]
	if e.Temperature > 0 {
		return base + " T=" + strconv.FormatFloat(e.Temperature, 'g', -1, 64)
	}
	return base
}

// Estimators lists the estimators evaluated for c (after Defaults).
func (c Config) Estimators() []Estimator {
	es := []Estimator{{Name: "mean", aggregation: "sum"}, {Name: "medoid", aggregation: "medoid"},
		{Name: "dimmedian", aggregation: "dimmedian"}}
	for _, t := range c.Temperatures {
		es = append(es, Estimator{Name: "soft_median", Temperature: t, aggregation: "soft_median"})
	}
	for _, t := range c.Temperatures {
		es = append(es, Estimator{Name: "soft_medoid", Temperature: t, aggregation: "soft_k_medoid"})
	}
	return es
}

// Curve is B(ε) of one estimator for one perturbation norm.
type Curve struct {
	Norm      float64
	Estimator Estimator
	Bias      []float64 // mean over trials, per entry of Result.Eps
	SD        []float64 // standard deviation over trials
}

// Result holds every curve; Eps[i] = Perturbed[i] / Samples.
type Result struct {
	Config    Config
	Perturbed []int
	Eps       []float64
	Curves    []Curve
}

// Curve returns the curve of the named estimator (and temperature) for norm.
func (r *Result) Curve(norm float64, name string, temperature float64) (Curve, bool) {
	for _, c := range r.Curves {
		if c.Norm == norm && c.Estimator.Name == name && c.Estimator.Temperature == temperature {
			return c, true
		}
	}
	return Curve{}, false
}

// estimate evaluates location estimators on the rows of an n×d point set
// with package aggregate's kernels: one CSR row with unit weights over all
// points; the kernels scale by the row sum n, which is divided out.
type estimate struct {
	a    *tensor.CSR
	x    *tensor.Dense
	out  *tensor.Dense
	aggs []aggregate.Aggregator
}

func newEstimate(n, d int, es []Estimator) (*estimate, error) {
	entries := make([]tensor.Entry, n)
	for j := range entries {
		entries[j] = tensor.Entry{Row: 0, Col: int32(j), Val: 1}
	}
	a, err := tensor.FromCOO(1, n, entries)
	if err != nil {
		return nil, fmt.Errorf("bias: %w", err)
	}
	e := &estimate{a: a, x: tensor.NewDense(n, d), out: tensor.NewDense(1, d)}
	for _, est := range es {
		agg, err := aggregate.New(est.aggregation, aggregate.Options{K: n, Temperature: est.Temperature})
		if err != nil {
			return nil, fmt.Errorf("bias: estimator %s: %w", est.Label(), err)
		}
		e.aggs = append(e.aggs, agg)
	}
	return e, nil
}

// at writes estimator i's location of the points in e.x into loc.
func (e *estimate) at(i int, loc []float64) {
	e.aggs[i].Forward(e.a, e.x, e.out)
	n := float64(e.a.Cols)
	for c, v := range e.out.Row(0) {
		loc[c] = float64(v) / n
	}
}

// Run computes the bias curves of every estimator (Config.Estimators) for
// every norm. ctx is checked between trials.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("bias: %w", err)
	}
	if cfg.MaxPerturbed == 0 {
		cfg.MaxPerturbed = cfg.Samples / 2
	}
	n, d := cfg.Samples, cfg.Dim
	es := cfg.Estimators()
	est, err := newEstimate(n, d, es)
	if err != nil {
		return nil, err
	}
	center, err := newEstimate(n, d, []Estimator{{Name: "soft_medoid", Temperature: 1, aggregation: "soft_k_medoid"}})
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg}
	for m := 0; m <= cfg.MaxPerturbed; m++ {
		res.Perturbed = append(res.Perturbed, m)
		res.Eps = append(res.Eps, float64(m)/float64(n))
	}
	nm := len(res.Perturbed)
	// sum and sum of squares per (norm, estimator, m), in float64.
	sum := make([]float64, len(cfg.Norms)*len(es)*nm)
	sq := make([]float64, len(sum))
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6269617321)) // "bias!"
	clean := make([]float64, n*d)
	c0 := make([]float64, d)
	base := make([][]float64, len(es))
	for i := range base {
		base[i] = make([]float64, d)
	}
	loc := make([]float64, d)
	for trial := 0; trial < cfg.Trials; trial++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bias: %w", err)
		}
		for i := range clean {
			clean[i] = rng.NormFloat64()
		}
		// Centre the sample on its Soft Medoid (T = 1).
		fill(center.x, clean, 0, 0)
		center.at(0, c0)
		for i := range clean {
			clean[i] -= c0[i%d]
		}
		fill(est.x, clean, 0, 0)
		for i := range es {
			est.at(i, base[i])
		}
		for ni, p := range cfg.Norms {
			for mi, m := range res.Perturbed {
				fill(est.x, clean, m, p)
				for i := range es {
					est.at(i, loc)
					var b float64
					for c := range loc {
						b += (loc[c] - base[i][c]) * (loc[c] - base[i][c])
					}
					b = math.Sqrt(b)
					k := (ni*len(es)+i)*nm + mi
					sum[k] += b
					sq[k] += b * b
				}
			}
		}
	}
	t := float64(cfg.Trials)
	for ni, p := range cfg.Norms {
		for i, e := range es {
			c := Curve{Norm: p, Estimator: e, Bias: make([]float64, nm), SD: make([]float64, nm)}
			for mi := range nm {
				k := (ni*len(es)+i)*nm + mi
				mean := sum[k] / t
				c.Bias[mi] = mean
				c.SD[mi] = math.Sqrt(max(0, sq[k]/t-mean*mean))
			}
			res.Curves = append(res.Curves, c)
		}
	}
	return res, nil
}

// fill writes the clean points into x, the first m replaced by [p, 0, …].
func fill(x *tensor.Dense, clean []float64, m int, p float64) {
	d := x.Cols
	for i := 0; i < x.Rows; i++ {
		row := x.Row(i)
		if i < m {
			clear(row)
			row[0] = float32(p)
			continue
		}
		for c := range row {
			row[c] = float32(clean[i*d+c])
		}
	}
}
