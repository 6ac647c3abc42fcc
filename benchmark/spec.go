package benchmark

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
)

// datasetNames lists the datasets a Spec can name: cora_ml and citeseer (loaded
// with package data) and PubMedLikeName (generated).
var datasetNames = []string{"cora_ml", "citeseer", PubMedLikeName}

// Spec is a benchmark run as a user states it (the parameters of
// `rgnn bench`). Every field but GraphSeed carries a param tag (the
// parameter's name; a flag is the name with _ turned into -) and a help
// tag, so front ends bind their flags to the fields; their defaults are
// those of Defaults.
type Spec struct {
	// Datasets is a comma-separated list of cora_ml, citeseer and
	// pubmed_synthetic (PubMedLike).
	Datasets string `param:"datasets" help:"comma-separated datasets: cora_ml, citeseer, pubmed_synthetic"`
	// Models is a comma-separated list of registry model names selecting
	// table rows (ArchitectureOf); "" selects every row.
	Models string `param:"models" help:"comma-separated registry model names selecting table rows (default: all rows)"`
	// GDC selects the columns: "both", "no" (input graph only) or "yes".
	GDC    string `param:"gdc" help:"which columns: both, no (input graph only) or yes (GDC only)"`
	Warmup int    `param:"warmup" help:"untimed warm-up epochs per measurement (≥ 1)"`
	Epochs int    `param:"epochs" help:"timed epochs per measurement (≥ 1)"`
	Seed   int    `param:"seed" help:"seed of the initialisation, dropout and the 20-per-class split"`
	// GraphSeed seeds PubMedLike (untagged: a uint64, which front ends
	// declare themselves).
	GraphSeed uint64
	// PPREps selects GDC's PPR: 0 exact, > 0 the push approximation with
	// this error, < 0 exact up to 10,000 nodes and 1e-4 above.
	PPREps float64 `param:"ppr_eps" help:"GDC PPR: 0 = exact, > 0 = push approximation with this error, < 0 = exact up to 10,000 nodes else 1e-4"`
}

// Defaults returns the spec with every parameter at its default: every
// dataset and row, both columns, 10 warm-up and 100 timed epochs, seeds 0,
// PPR chosen by graph size.
func (Spec) Defaults() Spec {
	return Spec{Datasets: strings.Join(datasetNames, ","), GDC: "both", Warmup: 10, Epochs: 100, PPREps: -1}
}

// Validate reports impossible parameters; each error starts with the
// parameter's name.
func (s Spec) Validate() error {
	switch {
	case s.Warmup < 1:
		return fmt.Errorf("warmup %d: must be ≥ 1", s.Warmup)
	case s.Epochs < 1:
		return fmt.Errorf("epochs %d: must be ≥ 1", s.Epochs)
	case s.Seed < 0:
		return fmt.Errorf("seed %d: must be ≥ 0", s.Seed)
	case s.GDC != "both" && s.GDC != "no" && s.GDC != "yes":
		return fmt.Errorf("gdc %q: must be both, no or yes", s.GDC)
	case math.IsNaN(s.PPREps):
		return fmt.Errorf("ppr_eps %v: must be a number", s.PPREps)
	}
	for _, m := range s.models() {
		if _, err := ArchitectureOf(m); err != nil {
			return fmt.Errorf("models: %w", err)
		}
	}
	for _, name := range list(s.Datasets) {
		if !slices.Contains(datasetNames, name) {
			return fmt.Errorf("datasets %q: unknown benchmark dataset (known: %s)", name, strings.Join(datasetNames, ", "))
		}
	}
	return nil
}

// list splits a comma-separated list, trimming its items.
func list(s string) []string {
	items := strings.Split(s, ",")
	for i := range items {
		items[i] = strings.TrimSpace(items[i])
	}
	return items
}

func (s Spec) models() []string {
	if s.Models == "" {
		return nil
	}
	return list(s.Models)
}

// Config is the measurement configuration of s (after Validate).
func (s Spec) Config() Config {
	return Config{Architectures: s.models(), WithoutGDC: s.GDC != "yes", WithGDC: s.GDC != "no",
		Warmup: s.Warmup, Epochs: s.Epochs, Seed: uint64(s.Seed)}
}

// LoadDatasets loads (or generates) the datasets of s with GDC's top-k
// (64; 32 on PubMedLike, like the paper's PubMed) and PPR (PPREps, or by
// size when it is negative). o configures package data's loading.
func (s Spec) LoadDatasets(ctx context.Context, o data.Options) ([]Dataset, error) {
	var out []Dataset
	for _, name := range list(s.Datasets) {
		ds := Dataset{Name: name, K: graph.DefaultK, PPREps: s.PPREps}
		var err error
		if name == PubMedLikeName {
			ds.K = 32
			ds.Graph, err = PubMedLike(s.GraphSeed)
		} else {
			ds.Graph, err = data.Load(ctx, name, o)
		}
		if err != nil {
			return nil, err
		}
		if s.PPREps < 0 {
			ds.PPREps = 0
			if ds.Graph.NumNodes() > 10000 {
				ds.PPREps = 1e-4
			}
		}
		out = append(out, ds)
	}
	return out, nil
}

// Run validates s, loads its datasets (o: package data's options), measures
// them with the models of reg and returns the report. progress, if not
// nil, gets one line per measurement.
func (s Spec) Run(ctx context.Context, reg *model.Registry, o data.Options, progress io.Writer) (*Report, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("benchmark: %w", err)
	}
	datasets, err := s.LoadDatasets(ctx, o)
	if err != nil {
		return nil, err
	}
	cfg := s.Config()
	cfg.Progress = progress
	rows, err := Run(ctx, reg, datasets, cfg)
	if err != nil {
		return nil, err
	}
	return NewReport(cfg, rows), nil
}
