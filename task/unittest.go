package task

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/data/unittest"
	"github.com/rgnn/rgnn/internal/stats"
)

// UnitTest evaluates a model on the black-box robustness unit test of
// Mujkanovic et al. 2022 (package data/unittest): on every split of every
// dataset in the file, the model is trained on the clean graph (a Go model
// with the training protocol, an external one fitted by its process) and
// evaluated on each perturbation found against each source model
// (evasion), or trained on each perturbed graph and evaluated there
// (poisoning).
type UnitTest struct {
	Model
	Fit
	Seed int `param:"seed" help:"seed of the initialisation and dropout"`
	// File is the unit-test .npz.
	File string `param:"unit_test" help:"the robustness unit test .npz (rgnn data fetch --dataset unit_test)"`
	// Scenario is evasion or poisoning.
	Scenario string `param:"scenario" help:"evasion (trained on the clean graph, evaluated on each perturbed one) or poisoning (trained and evaluated on each perturbed graph)"`
	// Datasets and Sources restrict the test ("": everything in the file).
	Datasets string `param:"ut_datasets" help:"datasets of the file to test on, comma-separated (empty: all)"`
	Sources  string `param:"ut_sources" help:"source models whose perturbations to use, comma-separated (empty: all)"`
}

// Defaults returns the spec with every parameter at its default.
func (UnitTest) Defaults() UnitTest {
	t := Train{}.Defaults()
	return UnitTest{Model: t.Model, Fit: t.Fit, Scenario: "evasion"}
}

// Validate checks every parameter.
func (u UnitTest) Validate() error {
	if err := u.Model.Validate(); err != nil {
		return err
	}
	if err := u.Fit.Validate(); err != nil {
		return err
	}
	if err := validSeed("seed", u.Seed); err != nil {
		return err
	}
	if strings.TrimSpace(u.File) == "" {
		return bad("unit_test", u.File, "give the unit-test file (rgnn data fetch --dataset unit_test)")
	}
	if u.Scenario != "evasion" && u.Scenario != "poisoning" {
		return bad("scenario", u.Scenario, "must be evasion or poisoning")
	}
	if s, _ := Models().Lookup(u.Model.Model); u.BatchSize > 0 && !s.MiniBatch {
		return bad("batch_size", u.BatchSize, "model %s trains full batch only", u.Model.Model)
	}
	return nil
}

// UnitTestRow is the accuracy on one perturbation.
type UnitTestRow struct {
	Dataset  string  `json:"dataset"`
	Split    int     `json:"split"`
	Source   string  `json:"source_model"`
	Budget   string  `json:"budget"`
	Flips    int     `json:"flips"`
	Accuracy float64 `json:"accuracy"`
	Clean    float64 `json:"clean_accuracy"`
}

// UnitTestSummary is the accuracy on one (dataset, source model, budget)
// over the splits.
type UnitTestSummary struct {
	Dataset    string  `json:"dataset"`
	Source     string  `json:"source_model"`
	Budget     string  `json:"budget"`
	Splits     int     `json:"splits"`
	Accuracy   float64 `json:"accuracy"`
	AccuracySE float64 `json:"accuracy_se"`
	Clean      float64 `json:"clean_accuracy"`
}

// UnitTestResult is the outcome of UnitTest.Run.
type UnitTestResult struct {
	File     string            `json:"file"`
	Model    string            `json:"model"`
	Scenario string            `json:"scenario"`
	Rows     []UnitTestRow     `json:"rows"`
	Summary  []UnitTestSummary `json:"summary"`
}

// Metrics are the result's values as an experiment stores them.
func (r *UnitTestResult) Metrics() map[string]any {
	rows := make([]map[string]any, len(r.Rows))
	for i, x := range r.Rows {
		rows[i] = map[string]any{"dataset": x.Dataset, "split": x.Split, "source_model": x.Source, "budget": x.Budget,
			"flips": x.Flips, "accuracy": x.Accuracy, "clean_accuracy": x.Clean}
	}
	sum := make([]map[string]any, len(r.Summary))
	minAcc := 1.0
	for i, x := range r.Summary {
		sum[i] = map[string]any{"dataset": x.Dataset, "source_model": x.Source, "budget": x.Budget, "splits": x.Splits,
			"accuracy": x.Accuracy, "accuracy_se": x.AccuracySE, "clean_accuracy": x.Clean}
		minAcc = min(minAcc, x.Accuracy)
	}
	return map[string]any{"rows": rows, "summary": sum, "min_accuracy": minAcc, "scenario": r.Scenario}
}

func commaSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out[x] = true
		}
	}
	return out
}

// Run evaluates the model of u on every perturbation of f (u.File read by
// the caller).
func (u UnitTest) Run(ctx context.Context, f *unittest.File, h Hooks) (*UnitTestResult, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	wantDS, wantSrc := commaSet(u.Datasets), commaSet(u.Sources)
	res := &UnitTestResult{File: f.Path, Model: u.Model.Label(), Scenario: u.Scenario}
	total, done := 0, 0
	var sets []*unittest.Dataset
	for _, d := range f.Datasets {
		if len(wantDS) == 0 || wantDS[d.Name] {
			sets = append(sets, d)
			for _, p := range d.Perturbations[u.Scenario] {
				if len(wantSrc) == 0 || wantSrc[p.Source] {
					total++
				}
			}
		}
	}
	for name := range wantDS {
		if !slices.ContainsFunc(sets, func(d *unittest.Dataset) bool { return d.Name == name }) {
			return nil, bad("ut_datasets", u.Datasets, "the file has no dataset %s", name)
		}
	}
	if total == 0 {
		return nil, bad("scenario", u.Scenario, "the file has no %s perturbations for these datasets and source models", u.Scenario)
	}
	tr := Train{Data: Data{Dataset: "unit_test"}, Model: u.Model, Seed: u.Seed, Fit: u.Fit}
	var ext *Trained // the external model's one process, fitted anew per split and graph
	defer func() { ext.Close() }()
	// trainOn returns the model of u trained (fitted) on q.
	trainOn := func(q *data.Problem) (*Trained, error) {
		if !u.Model.External() {
			t, err := NewModel(u.Model, q, u.Seed)
			if err != nil {
				return nil, err
			}
			if _, _, err := tr.fit(ctx, t, q, nil); err != nil {
				return nil, err
			}
			return t, nil
		}
		if ext == nil {
			var err error
			ext, err = u.Model.startExternal(ctx, q, u.Seed)
			return ext, err
		}
		if !externalClient(ext.Model).CanFit() {
			if u.Scenario == "poisoning" {
				return nil, bad("scenario", u.Scenario, "poisoning retrains the model on every perturbed graph, but the external model "+
					"does not fit itself (no \"fit\": true in its ready message)")
			}
			return ext, nil
		}
		return ext, fitExternal(ctx, ext, q)
	}
	for _, d := range sets {
		x := autograd.NewSparse(d.Features)
		for si, sp := range d.Splits {
			var ps []unittest.Perturbation
			for _, p := range d.Perturbations[u.Scenario] {
				if p.Split == si && (len(wantSrc) == 0 || wantSrc[p.Source]) {
					ps = append(ps, p)
				}
			}
			if len(ps) == 0 {
				continue
			}
			q := &data.Problem{Name: d.Name, Adj: d.Adj, Features: d.Features, X: x, Labels: d.Labels, NumClasses: d.NumClasses,
				Train: sp.Train, Val: sp.Val, Test: sp.Test, SplitSeed: si}
			t, err := trainOn(q)
			if err != nil {
				return nil, fmt.Errorf("%s split %d: %w", d.Name, si, err)
			}
			clean, err := Accuracy(t, q)
			if err != nil {
				return nil, fmt.Errorf("%s split %d: %w", d.Name, si, err)
			}
			for _, p := range ps {
				pert := d.Perturbed(p)
				m := t
				if u.Scenario == "poisoning" {
					if m, err = trainOn(q.WithAdj(pert)); err != nil {
						return nil, fmt.Errorf("%s split %d, %s budget %s: %w", d.Name, si, p.Source, p.Budget, err)
					}
				}
				acc, err := protocol.EvaluateVictim(m.Model, q, pert)
				if err != nil {
					return nil, fmt.Errorf("%s split %d, %s budget %s: %w", d.Name, si, p.Source, p.Budget, err)
				}
				res.Rows = append(res.Rows, UnitTestRow{Dataset: d.Name, Split: si, Source: p.Source, Budget: p.Budget,
					Flips: len(p.Flips), Accuracy: acc, Clean: clean})
				done++
				if h.Progress != nil {
					h.Progress("unit test", done, total)
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
		}
	}
	res.Summary = summarise(res.Rows)
	return res, nil
}

// summarise averages the rows over the splits per (dataset, source,
// budget), in the rows' order of first appearance.
func summarise(rows []UnitTestRow) []UnitTestSummary {
	type key struct{ ds, src, budget string }
	var order []key
	acc, clean := map[key][]float64{}, map[key][]float64{}
	for _, r := range rows {
		k := key{r.Dataset, r.Source, r.Budget}
		if _, ok := acc[k]; !ok {
			order = append(order, k)
		}
		acc[k] = append(acc[k], r.Accuracy)
		clean[k] = append(clean[k], r.Clean)
	}
	out := make([]UnitTestSummary, len(order))
	for i, k := range order {
		m, se := stats.MeanSE(acc[k])
		c, _ := stats.MeanSE(clean[k])
		out[i] = UnitTestSummary{Dataset: k.ds, Source: k.src, Budget: k.budget, Splits: len(acc[k]), Accuracy: m, AccuracySE: se, Clean: c}
	}
	return out
}

// WriteText prints the summary table (dataset × source model × budget,
// mean accuracy ± s.e. over the splits).
func (r *UnitTestResult) WriteText(w io.Writer) {
	fmt.Fprintf(w, "robustness unit test %s: %s, %s\n", r.File, r.Model, r.Scenario)
	fmt.Fprintf(w, "%-10s %-16s %8s %7s  %-16s %s\n", "dataset", "source model", "budget", "splits", "accuracy", "clean")
	for _, s := range r.Summary {
		fmt.Fprintf(w, "%-10s %-16s %8s %7d  %.4f ± %.4f  %.4f\n", s.Dataset, s.Source, s.Budget, s.Splits, s.Accuracy, s.AccuracySE, s.Clean)
	}
}
