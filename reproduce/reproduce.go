package reproduce

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/experiments"
	"github.com/rgnn/rgnn/report"
)

// Options configure Run.
type Options struct {
	Dataset string
	Quick   bool
	// Paper runs the paper's whole evaluation
	// (experiment.PaperReproduction) instead of the headline comparison.
	Paper bool
	// Out holds the store and the report ("":
	// results/reproduce-<dataset>[-quick|-paper]).
	Out string
	// Workers is the number of runs executed concurrently (≤ 0: 1).
	Workers int
	DataDir string
	// Progress receives the notes, one line per run and a status line
	// every 30 s (nil: silent).
	Progress io.Writer
}

// Result is the outcome of Run (the JSON of `rgnn reproduce`).
type Result struct {
	Dataset  string             `json:"dataset"`
	Quick    bool               `json:"quick"`
	Paper    bool               `json:"paper"`
	Notes    []string           `json:"notes"`
	Summary  experiment.Summary `json:"summary"`
	Verdicts []report.Verdict   `json:"verdicts"`
	Files    []string           `json:"files"`
	Tables   []report.Table     `json:"tables"`
	Seconds  float64            `json:"seconds"`
	Store    string             `json:"-"`
	markdown string
	attacks  bool
}

// Run runs the reproduction experiment of a dataset
// (experiment.Reproduction, or experiment.PaperReproduction with o.Paper)
// into the store in o.Out — resumable: what the store has is not run again —
// and writes its report (report.md, report.html, figures/) beside it.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	if o.Paper && o.Quick {
		return nil, fmt.Errorf("reproduce: quick and paper exclude each other")
	}
	var es []*experiment.Experiment
	if o.Paper {
		var err error
		if es, err = experiment.PaperReproduction(o.Dataset); err != nil {
			return nil, err
		}
	} else {
		e, err := experiment.Reproduction(o.Dataset, o.Quick)
		if err != nil {
			return nil, err
		}
		es = []*experiment.Experiment{e}
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("results", "reproduce-"+o.Dataset)
		if o.Quick {
			out += "-quick"
		}
		if o.Paper {
			out += "-paper"
		}
	}
	st, err := store.Open(filepath.Join(out, "results.db"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	notes := experiment.ReproduceNotes(o.Quick)
	if o.Paper {
		notes = []string{"the paper's whole evaluation: " + strings.Join(experiments.PaperFiles(o.Dataset), ", ") +
			" (the shipped experiment files) on " + o.Dataset + "; seeds 0, 1, 5; the reference protocol"}
	}
	logf := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, format, args...)
		}
	}
	logf("reproduce on %s (quick=%v, paper=%v): results and report in %s\n", o.Dataset, o.Quick, o.Paper, out)
	for _, n := range notes {
		logf("  %s\n", n)
	}
	workers := max(o.Workers, 1)
	env := &experiment.Env{Store: st, Kinds: experiment.DefaultKinds(), DataDir: o.DataDir, Log: o.Progress,
		SampleWorkers: max(1, runtime.GOMAXPROCS(0)/workers)}
	// One pool for every file (ExecuteAll): the runs of all files are
	// queued before the first starts, so that runs of one file take along
	// the runs of another that share their work (the certificates of
	// certification.yaml and temperature.yaml draw the same samples) and no
	// worker waits for the last run of one file while the next has work.
	// A rerun of reproduce retries what failed before (the main job should
	// not need a flag to recover from a transient failure).
	sum, err := experiment.ExecuteAll(ctx, env, es, experiment.RunOptions{Workers: workers, Progress: o.Progress, StatusEvery: 30 * time.Second,
		RetryFailed: true})
	if err != nil {
		return nil, err
	}
	notes = append(notes, sum.Notes...)
	elapsed := time.Since(start).Seconds()
	notes = append(notes, fmt.Sprintf("this invocation took %.0f s (%d runs executed, %d taken from the store)",
		elapsed, sum.Ran, sum.AlreadyDone))
	title := "rgnn reproduce: " + o.Dataset
	if o.Quick {
		title += " (quick)"
	}
	if o.Paper {
		title += " (the paper's evaluation)"
	}
	rep, err := report.Build(ctx, st, report.Options{Title: title, Notes: notes, Dataset: o.Dataset})
	if err != nil {
		return nil, err
	}
	files, err := rep.WriteDir(out)
	if err != nil {
		return nil, err
	}
	rs, err := st.Query(ctx, store.Filter{Params: map[string]string{"dataset": o.Dataset}})
	if err != nil {
		return nil, err
	}
	return &Result{Dataset: o.Dataset, Quick: o.Quick, Paper: o.Paper, Notes: notes, Summary: sum, Verdicts: report.Verdicts(rs),
		Files: files, Tables: rep.Tables, Seconds: elapsed, Store: st.Path(), markdown: rep.Markdown(""),
		attacks: report.HasKind(rs, "attack")}, nil
}

// WriteText prints the report's tables and the comparison of Soft Medoid
// GDC with GCN.
func (r *Result) WriteText(w io.Writer) {
	fmt.Fprint(w, r.markdown)
	fmt.Fprintln(w, "\n## Soft Medoid GDC (T=0.5) vs Vanilla GCN")
	fmt.Fprintln(w)
	if len(r.Verdicts) == 0 {
		fmt.Fprintln(w, "no comparable results")
	}
	for _, v := range r.Verdicts {
		word := "worse"
		if v.SMBetter {
			word = "better"
		}
		fmt.Fprintf(w, "- %s: SM GDC %.3f vs GCN %.3f → SM GDC %s\n", v.Measure, v.SMGDC, v.GCN, word)
	}
	if !r.attacks {
		fmt.Fprintln(w, "- under attack: no attack results")
	}
	fmt.Fprintf(w, "\ntook %.0f s; written: %s, %s, %d figure files\n", r.Seconds, r.Files[0], r.Files[1], len(r.Files)-2)
}
