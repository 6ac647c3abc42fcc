package experiment_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data/synth"
	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/report"
)

// shortened are the settings of the shortened real run of every shipped
// experiment file: one seed, a small generated graph, few epochs and
// samples. Everything else (models, kinds, attacks, budgets, smoothing
// parameters) stays as the file has it.
var shortened = map[string]any{
	"seed": 0, "max_epochs": 4, "patience": 4, "samples": 20, "pre_samples": 10,
	"trials": 2, "k": 8,
}

// tinyPubMed writes a generated 240-node PubMed-shaped graph to path and
// returns path.
func tinyPubMed(t *testing.T, path string) string {
	t.Helper()
	preset, err := synth.LookupPreset("pubmed")
	if err != nil {
		t.Fatal(err)
	}
	if preset, err = preset.Scaled(240); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Generate(context.Background(), preset, 0, path, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShippedExperimentsRunAndReport expands every experiment file under
// experiments/ and both `rgnn reproduce` grids (the dry run) and runs each, shortened, on a 240-node generated graph
// into one store; none may fail, and `rgnn report` over the store must
// fill every table and figure of the paper the files cover.
func TestShippedExperimentsRunAndReport(t *testing.T) {
	files, err := filepath.Glob("../experiments/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no experiment files: %v", err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	graph := tinyPubMed(t, filepath.Join(dir, "tiny.npz"))
	st, err := store.Open(filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kinds := experiment.DefaultKinds()
	for _, f := range append(files, "reproduce --quick", "reproduce") {
		name := filepath.Base(f)
		var e *experiment.Experiment
		if strings.HasPrefix(f, "reproduce") {
			e, err = experiment.Reproduction("cora_ml", strings.HasSuffix(f, "--quick"))
		} else {
			e, err = experiment.ParseFile(f)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := e.Expand(kinds); err != nil {
			t.Errorf("%s: dry run: %v", name, err)
			continue
		}
		if err := e.Set("dataset", graph); err != nil {
			t.Fatal(err)
		}
		for k, v := range shortened {
			if err := e.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		env := &experiment.Env{Store: st, Kinds: kinds}
		sum, err := experiment.Execute(ctx, env, e, experiment.RunOptions{Workers: 2})
		if err != nil || sum.Failed > 0 {
			fs, _ := st.Failures(ctx)
			for _, fl := range fs {
				t.Logf("failure: %v", fl)
			}
			t.Errorf("%s: %d of %d runs failed: %v", name, sum.Failed, sum.Total, err)
			continue
		}
		t.Logf("%s: %d runs (%.1f s)", name, sum.Total, sum.Seconds)
	}
	rep, err := report.Build(ctx, st, report.Options{Title: "shipped"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range rep.Notes {
		t.Errorf("report note: %s", n)
	}
	want := map[string]string{"certification-": "certification (Tables 2 and 6)", "global-attacks-": "global attacks (Table 5)",
		"targeted-": "Nettack (Table 4)", "runtime-": "runtime (Table 1)"}
	for prefix, what := range want {
		found := false
		for _, tb := range rep.Tables {
			if strings.HasPrefix(tb.ID, prefix) && len(tb.Rows) > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("report: no %s table", what)
		}
	}
	wantFig := []string{"bias_curve", "temperature", "acc_budget", "cert", "figure1"}
	for _, prefix := range wantFig {
		found := false
		for _, fg := range rep.Figures {
			if strings.HasPrefix(fg.Name, prefix) {
				found = true
			}
		}
		if !found {
			var names []string
			for _, fg := range rep.Figures {
				names = append(names, fg.Name)
			}
			t.Errorf("report: no figure %s* (have %s)", prefix, strings.Join(names, ", "))
		}
	}
}
