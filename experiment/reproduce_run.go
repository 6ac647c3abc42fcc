package experiment

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/report"
)

// ReproduceOptions configure Reproduce.
type ReproduceOptions struct {
	Dataset string
	Quick   bool
	// Out holds the store and the report ("": results/reproduce-<dataset>[-quick]).
	Out string
	// Workers is the number of runs executed concurrently (≤ 0: 1).
	Workers int
	DataDir string
	// Progress receives the notes, one line per run and a status line
	// every 30 s (nil: silent).
	Progress io.Writer
}

// ReproduceResult is the outcome of Reproduce (the JSON of `rgnn
// reproduce`).
type ReproduceResult struct {
	Dataset  string           `json:"dataset"`
	Quick    bool             `json:"quick"`
	Notes    []string         `json:"notes"`
	Summary  Summary          `json:"summary"`
	Verdicts []report.Verdict `json:"verdicts"`
	Files    []string         `json:"files"`
	Tables   []report.Table   `json:"tables"`
	Seconds  float64          `json:"seconds"`
	Store    string           `json:"-"`
	markdown string
	attacks  bool
}

// Reproduce runs the reproduction experiment of a dataset (Reproduction)
// into the store in o.Out — resumable: what the store has is not run again —
// and writes its report (report.md, report.html, figures/) beside it.
func Reproduce(ctx context.Context, o ReproduceOptions) (*ReproduceResult, error) {
	start := time.Now()
	e, err := Reproduction(o.Dataset, o.Quick)
	if err != nil {
		return nil, err
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("results", "reproduce-"+o.Dataset)
		if o.Quick {
			out += "-quick"
		}
	}
	st, err := store.Open(filepath.Join(out, "results.db"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	notes := ReproduceNotes(o.Quick)
	logf := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, format, args...)
		}
	}
	logf("reproduce on %s (quick=%v): results and report in %s\n", o.Dataset, o.Quick, out)
	for _, n := range notes {
		logf("  %s\n", n)
	}
	workers := max(o.Workers, 1)
	env := &Env{Store: st, Kinds: DefaultKinds(), DataDir: o.DataDir, Log: o.Progress,
		SampleWorkers: max(1, runtime.GOMAXPROCS(0)/workers)}
	sum, err := Execute(ctx, env, e, RunOptions{Workers: workers, Progress: o.Progress, StatusEvery: 30 * time.Second})
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
	filter := store.Filter{Params: map[string]string{"dataset": o.Dataset}}
	rep, err := report.Build(ctx, st, report.Options{Title: title, Notes: notes, Filter: filter})
	if err != nil {
		return nil, err
	}
	files, err := rep.WriteDir(out)
	if err != nil {
		return nil, err
	}
	rs, err := st.Query(ctx, filter)
	if err != nil {
		return nil, err
	}
	return &ReproduceResult{Dataset: o.Dataset, Quick: o.Quick, Notes: notes, Summary: sum, Verdicts: report.Verdicts(rs),
		Files: files, Tables: rep.Tables, Seconds: elapsed, Store: st.Path(), markdown: rep.Markdown(""),
		attacks: report.HasKind(rs, "attack")}, nil
}

// WriteText prints the report's tables and the comparison of Soft Medoid
// GDC with GCN.
func (r *ReproduceResult) WriteText(w io.Writer) {
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
