package benchmark

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// AmortizeEpochs is the number of epochs the preprocessing time is spread
// over in Row.TotalMs, as in the paper's Table 1.
const AmortizeEpochs = 200

// variant says how an architecture (a table row) runs without and with GDC.
type variant struct {
	plain string // registry model without GDC ("" = none)
	gdc   string // registry model with GDC
	// pattern: the GDC column runs gdc on the (unweighted, symmetrised)
	// sparsity pattern of the GDC matrix, because the model has no GDC
	// variant of its own; otherwise gdc applies GDC itself.
	pattern bool
}

// architecture is a table row: a model and its variant with GDC.
type architecture struct {
	name string
	v    variant
}

// architectures are the table rows in the registry's table order, derived
// from the model facts: a model with its own row (Spec.Row empty) runs as
// itself without GDC unless it diffuses (Uses.Diffusion), and with GDC as
// its GDCVariant, as itself when it diffuses, else on GDC's sparsity
// pattern.
func architectures() []architecture {
	var out []architecture
	for _, s := range model.Default(nil).Specs() {
		if s.Row != "" || s.External { // an external model's epoch is not rgnn's to time
			continue
		}
		a := architecture{name: s.Name}
		switch {
		case s.Uses.Diffusion:
			a.v = variant{gdc: s.Name}
		case s.GDCVariant != "":
			a.v = variant{plain: s.Name, gdc: s.GDCVariant}
		default:
			a.v = variant{plain: s.Name, gdc: s.Name, pattern: true}
		}
		out = append(out, a)
	}
	return out
}

// Architectures lists the table rows. Model names select rows: every
// registry name is a row except gdc (the GDC column of gcn) and sm_gdc (the
// GDC column of sm_gcn).
func Architectures() []string {
	var s []string
	for _, a := range architectures() {
		s = append(s, a.name)
	}
	return s
}

// ArchitectureOf maps a registry model name to its table row.
func ArchitectureOf(modelName string) (string, error) {
	for _, a := range architectures() {
		if modelName != "" && (a.name == modelName || a.v.plain == modelName || a.v.gdc == modelName) {
			return a.name, nil
		}
	}
	return "", fmt.Errorf("model %q has no benchmark row (known: %s, gdc, sm_gdc)", modelName, strings.Join(Architectures(), ", "))
}

// Dataset is a graph to benchmark on.
type Dataset struct {
	Name  string
	Graph *data.Graph
	// K is the top-k of GDC and of the robust aggregations (the paper:
	// 64 on Cora ML and Citeseer, 32 on PubMed).
	K int
	// PPREps selects GDC's PPR: 0 exact, > 0 push approximation.
	PPREps float64
}

// Config selects what to measure.
type Config struct {
	Architectures []string // table rows; empty = all
	// WithoutGDC and WithGDC select the columns.
	WithoutGDC, WithGDC bool
	Warmup, Epochs      int       // untimed and timed epochs
	Seed                uint64    // initialisation, dropout and split seed
	Progress            io.Writer // one line per measurement; nil = silent
}

// Row is one measurement: one architecture on one dataset with or without
// GDC. Times are in milliseconds.
type Row struct {
	Dataset      string  `json:"dataset"`
	Architecture string  `json:"architecture"`
	GDC          bool    `json:"gdc"`
	Model        string  `json:"model"` // registry model that ran
	Graph        string  `json:"graph"` // "input", "gdc" (model's own) or "gdc pattern"
	PPR          string  `json:"ppr,omitempty"`
	K            int     `json:"k,omitempty"`
	Skipped      string  `json:"skipped,omitempty"`
	PrepMs       float64 `json:"prep_ms"`
	EpochMeanMs  float64 `json:"epoch_mean_ms"`
	EpochMedMs   float64 `json:"epoch_median_ms"`
	EpochMinMs   float64 `json:"epoch_min_ms"`
	// EpochCPUMs is the process CPU time (all threads) per timed epoch:
	// less sensitive to other processes than wall time; on an idle
	// machine wall ≈ CPU / cores used. 0 = unavailable.
	EpochCPUMs float64 `json:"epoch_cpu_ms"`
	TotalMs    float64 `json:"epoch_plus_prep_over_200_ms"`
	Epochs     int     `json:"timed_epochs"`
	PaperMs    float64 `json:"paper_ms,omitempty"` // the paper's Table 1 (GTX 1080 Ti), 0 = not in the paper
}

// Run measures every selected architecture on every dataset.
func Run(ctx context.Context, reg *model.Registry, datasets []Dataset, cfg Config) ([]Row, error) {
	if cfg.Warmup < 1 || cfg.Epochs < 1 {
		return nil, fmt.Errorf("benchmark: need ≥ 1 warm-up and ≥ 1 timed epoch, got %d and %d", cfg.Warmup, cfg.Epochs)
	}
	sel := map[string]bool{}
	for _, a := range cfg.Architectures {
		name, err := ArchitectureOf(a)
		if err != nil {
			return nil, err
		}
		sel[name] = true
	}
	var rows []Row
	for _, ds := range datasets {
		g := ds.Graph
		tr, va, _, err := data.Split(g.Labels, g.NumClasses, 20, uint32(cfg.Seed))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ds.Name, err)
		}
		x := autograd.NewSparse(g.Features)
		for _, a := range architectures() {
			if len(sel) > 0 && !sel[a.name] {
				continue
			}
			for _, withGDC := range []bool{false, true} {
				if (withGDC && !cfg.WithGDC) || (!withGDC && !cfg.WithoutGDC) {
					continue
				}
				r := Row{Dataset: ds.Name, Architecture: a.name, GDC: withGDC, Model: a.v.plain, Graph: "input",
					PaperMs: paperMs(ds.Name, a.name, withGDC)}
				if withGDC {
					r.Model, r.Graph, r.K = a.v.gdc, "gdc", ds.K
					if a.v.pattern {
						r.Graph = "gdc pattern"
					}
					r.PPR = "exact"
					if ds.PPREps > 0 {
						r.PPR = fmt.Sprintf("push eps=%g", ds.PPREps)
					}
				} else if spec, _ := reg.Lookup(r.Model); spec.Uses.K {
					r.K = ds.K
				}
				switch {
				case r.Model == "":
					r.Skipped = "no variant without GDC"
				default:
					if err := measure(ctx, reg, ds, g, x, tr, va, a.v.pattern && withGDC, cfg, &r); err != nil {
						return rows, fmt.Errorf("%s %s (gdc %v): %w", ds.Name, r.Model, withGDC, err)
					}
				}
				if cfg.Progress != nil {
					if r.Skipped != "" {
						fmt.Fprintf(cfg.Progress, "bench %s %s gdc=%v: skipped (%s)\n", ds.Name, a.name, withGDC, r.Skipped)
					} else {
						fmt.Fprintf(cfg.Progress, "bench %s %s gdc=%v: prep %.1f ms, epoch mean %.2f ms, median %.2f ms\n",
							ds.Name, a.name, withGDC, r.PrepMs, r.EpochMeanMs, r.EpochMedMs)
					}
				}
				rows = append(rows, r)
			}
		}
	}
	return rows, nil
}

// measure fills r's times: preprocessing once, then Warmup+Epochs epochs
// of train.Fit (early stopping off), timing each epoch.
func measure(ctx context.Context, reg *model.Registry, ds Dataset, g *data.Graph, x *autograd.Sparse, tr, va []int,
	pattern bool, cfg Config, r *Row) error {
	o := model.Options{Seed: cfg.Seed, K: ds.K, PPREps: ds.PPREps}
	m, err := reg.New(r.Model, g.Features.Cols, g.NumClasses, o)
	if err != nil {
		return err
	}
	start := time.Now()
	adj := g.Adj
	if pattern {
		s, err := graph.GDC(adj, graph.GDCConfig{Alpha: 0.15, K: ds.K, Eps: ds.PPREps})
		if err != nil {
			return err
		}
		if adj, err = SymmetricPattern(s); err != nil {
			return err
		}
	}
	pg, err := m.Preprocess(adj, g.Features)
	if err != nil {
		return err
	}
	r.PrepMs = ms(time.Since(start))

	total := cfg.Warmup + cfg.Epochs
	stamps := make([]time.Time, 0, total)
	var cpu0, cpu1 time.Duration
	cpuOK := true
	_, err = train.Fit(ctx, m, pg, &data.Problem{X: x, Labels: g.Labels, Train: tr, Val: va},
		train.Config{Seed: cfg.Seed, MaxEpochs: total, Patience: total + 1,
			Progress: func(e int, _, _ float64) {
				stamps = append(stamps, time.Now())
				if e == cfg.Warmup-1 || e == total-1 {
					c, ok := cputime.Process()
					cpuOK = cpuOK && ok
					if e == total-1 {
						cpu1 = c
					} else {
						cpu0 = c
					}
				}
			}})
	if err != nil {
		return err
	}
	if len(stamps) != total {
		return fmt.Errorf("ran %d of %d epochs", len(stamps), total)
	}
	d := make([]float64, 0, cfg.Epochs)
	for i := cfg.Warmup; i < total; i++ {
		d = append(d, ms(stamps[i].Sub(stamps[i-1])))
	}
	var sum float64
	for _, v := range d {
		sum += v
	}
	r.Epochs = len(d)
	r.EpochMeanMs = sum / float64(len(d))
	r.EpochMedMs = median(d)
	r.EpochMinMs = slices.Min(d)
	r.TotalMs = r.EpochMeanMs + r.PrepMs/AmortizeEpochs
	if cpuOK {
		r.EpochCPUMs = ms(cpu1-cpu0) / float64(cfg.Epochs)
	}
	return nil
}

// SymmetricPattern returns the unweighted symmetric adjacency without self
// loops that has an edge wherever s (or sᵀ) has a nonzero off-diagonal entry.
func SymmetricPattern(s *tensor.CSR) (*tensor.CSR, error) {
	es := make([]tensor.Entry, 0, 2*s.Nnz())
	seen := make(map[uint64]struct{}, s.Nnz())
	for i := range s.Rows {
		for p := s.Indptr[i]; p < s.Indptr[i+1]; p++ {
			j := int(s.Indices[p])
			if j == i || s.Values[p] == 0 {
				continue
			}
			key := uint64(min(i, j))<<32 | uint64(max(i, j))
			if _, dup := seen[key]; dup {
				continue
			}
			seen[key] = struct{}{}
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: 1}, tensor.Entry{Row: int32(j), Col: int32(i), Val: 1})
		}
	}
	return tensor.FromCOO(s.Rows, s.Cols, es)
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
