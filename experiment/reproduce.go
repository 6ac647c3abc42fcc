package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/train"
)

// ModelSpec names a model of the reproduction and its options.
type ModelSpec struct {
	Label   string        `json:"label"`
	Name    string        `json:"model"`
	Options model.Options `json:"options"`
}

// ReproduceConfig configures Reproduce.
type ReproduceConfig struct {
	Dataset  string
	DataDir  string
	OutDir   string
	Seeds    []int
	Models   []ModelSpec
	Registry *model.Registry
	Train    train.Config
	// Log receives progress lines.
	Log io.Writer
}

// DefaultModels are the paper's headline models: GCN, GDC and SM GDC (T=0.5).
func DefaultModels() []ModelSpec {
	return []ModelSpec{
		{Label: "Vanilla GCN", Name: "gcn"},
		{Label: "Vanilla GDC", Name: "gdc"},
		{Label: "Soft Medoid GDC (T=0.5)", Name: "sm_gdc", Options: model.Options{Temperature: 0.5}},
	}
}

// RunResult is one trained model's outcome.
type RunResult struct {
	Label        string  `json:"label"`
	Model        string  `json:"model"`
	Seed         int     `json:"seed"`
	TestAccuracy float64 `json:"test_accuracy"`
	Epochs       int     `json:"epochs"`
	MsPerEpoch   float64 `json:"ms_per_epoch"`
	Weights      string  `json:"weights"`
	Error        string  `json:"error,omitempty"`
}

// Report is the outcome of Reproduce.
type Report struct {
	Dataset  string      `json:"dataset"`
	Seeds    []int       `json:"seeds"`
	Runs     []RunResult `json:"runs"`
	Seconds  float64     `json:"seconds"`
	Markdown string      `json:"-"`
}

// Reproduce trains every model for every seed, evaluates it, saves weights
// and writes results.json and report.md into OutDir. A model that fails is
// recorded with its error and the others go on.
func Reproduce(ctx context.Context, cfg ReproduceConfig) (*Report, error) {
	start := time.Now()
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	g, err := data.Load(ctx, cfg.Dataset, data.Options{Dir: cfg.DataDir, Fetch: data.FetchOptions{Progress: cfg.Log}})
	if err != nil {
		return nil, err
	}
	x := autograd.NewSparse(g.Features)
	rep := &Report{Dataset: cfg.Dataset, Seeds: cfg.Seeds}
	for _, ms := range cfg.Models {
		for _, seed := range cfg.Seeds {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			r := RunResult{Label: ms.Label, Model: ms.Name, Seed: seed}
			if err := trainOne(ctx, cfg, g, x, ms, seed, &r); err != nil {
				r.Error = err.Error()
				logf("%-26s seed %d: FAILED: %v", ms.Label, seed, err)
			} else {
				logf("%-26s seed %d: test accuracy %.4f (%d epochs, %.1f ms/epoch)", ms.Label, seed, r.TestAccuracy, r.Epochs, r.MsPerEpoch)
			}
			rep.Runs = append(rep.Runs, r)
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Markdown = rep.markdown()
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := npz.AtomicWrite(filepath.Join(cfg.OutDir, "results.json"), b); err != nil {
		return rep, err
	}
	if err := npz.AtomicWrite(filepath.Join(cfg.OutDir, "report.md"), []byte(rep.Markdown)); err != nil {
		return rep, err
	}
	return rep, nil
}

func trainOne(ctx context.Context, cfg ReproduceConfig, g *data.Graph, x *autograd.Sparse, ms ModelSpec, seed int, r *RunResult) error {
	tr, va, te, err := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
	if err != nil {
		return err
	}
	o := ms.Options
	o.Seed = uint64(seed)
	m, err := cfg.Registry.New(ms.Name, g.Features.Cols, g.NumClasses, o)
	if err != nil {
		return err
	}
	pg, err := m.Preprocess(g.Adj, g.Features)
	if err != nil {
		return err
	}
	tc := cfg.Train
	tc.Seed = uint64(seed)
	res, err := train.Fit(ctx, m, train.Data{Graph: pg, X: x, Labels: g.Labels, Train: tr, Val: va}, tc)
	if err != nil {
		return err
	}
	r.TestAccuracy = train.Accuracy(train.Predict(m, pg, x), g.Labels, te)
	r.Epochs, r.MsPerEpoch = res.Epochs, res.MsPerEpoch
	r.Weights = filepath.Join(cfg.OutDir, fmt.Sprintf("%s_%s_s%d.npz", cfg.Dataset, ms.Name, seed))
	if ms.Options.Temperature != 0 {
		r.Weights = filepath.Join(cfg.OutDir, fmt.Sprintf("%s_%s_T%g_s%d.npz", cfg.Dataset, ms.Name, ms.Options.Temperature, seed))
	}
	return model.SaveWeights(m, r.Weights)
}

// markdown renders the clean-accuracy table: mean ± standard error over seeds.
func (r *Report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# rgnn reproduce: %s\n\nSeeds %v; %.0f s.\n\n", r.Dataset, r.Seeds, r.Seconds)
	b.WriteString("| model | clean test accuracy (mean ± s.e.) | runs |\n|---|---|---|\n")
	var labels []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		if !seen[run.Label] {
			seen[run.Label] = true
			labels = append(labels, run.Label)
		}
	}
	for _, l := range labels {
		var acc []float64
		failed := ""
		for _, run := range r.Runs {
			if run.Label != l {
				continue
			}
			if run.Error != "" {
				failed = run.Error
				continue
			}
			acc = append(acc, run.TestAccuracy)
		}
		if len(acc) == 0 {
			fmt.Fprintf(&b, "| %s | failed: %s | 0 |\n", l, failed)
			continue
		}
		m, se := MeanSE(acc)
		fmt.Fprintf(&b, "| %s | %.3f ± %.3f | %d |\n", l, m, se, len(acc))
	}
	return b.String()
}

// MeanSE returns the mean and the standard error of the mean.
func MeanSE(v []float64) (mean, se float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(v)-1)) / math.Sqrt(float64(len(v)))
}
