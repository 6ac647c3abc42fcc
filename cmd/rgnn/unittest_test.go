package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/data/unittest"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/unittestfile"
	"github.com/rgnn/rgnn/task"
	"github.com/rgnn/rgnn/train"
)

// TestUnitTestCommand runs the robustness unit test on a written file: a
// GCN in both scenarios (a budget of no flips keeps the clean accuracy), the
// numpy example as an external model (its rows equal the same model
// computed here), and the same as an experiment run stored like others.
func TestUnitTestCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "unit_test.npz")
	unittestfile.Write(t, file, unittestfile.Options{Nodes: 60, Models: []string{"gcn", "rgcn"}, Budgets: []string{"0", "5", "20"}, Seed: 4})
	run := func(args ...string) task.UnitTestResult {
		t.Helper()
		out, err := runRoot(t, append([]string{"unittest", file, "--quiet", "--json"}, args...)...)
		if err != nil {
			t.Fatal(err, out)
		}
		var r task.UnitTestResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err, out)
		}
		return r
	}
	for _, sc := range []string{"evasion", "poisoning"} {
		r := run("--model", "gcn", "--max-epochs", "40", "--scenario", sc)
		if len(r.Rows) != 2*5*2*3 || len(r.Summary) != 2*2*3 || r.Summary[0].Splits != 5 {
			t.Fatalf("%s: %d rows, %d summary rows", sc, len(r.Rows), len(r.Summary))
		}
		for _, row := range r.Rows {
			if row.Budget == "0" && row.Accuracy != row.Clean {
				t.Fatalf("%s: no flips, accuracy %v, clean %v", sc, row.Accuracy, row.Clean)
			}
			if row.Accuracy < 0 || row.Accuracy > 1 || row.Clean < 0.5 {
				t.Fatalf("%s: row %+v", sc, row)
			}
		}
	}
	if r := run("--model", "gcn", "--max-epochs", "5", "--ut-datasets", "citeseer", "--ut-sources", "rgcn"); len(r.Rows) != 5*3 {
		t.Fatalf("filtered: %d rows", len(r.Rows))
	}
	if py := pythonNumpy(t); py != "" {
		cmd, _ := filepath.Abs("../../python/examples/numpy_model.py")
		r := run("--model", "external", "--external-cmd", py+" "+cmd, "--scenario", "poisoning")
		f, err := unittest.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for _, d := range f.Datasets {
			for si, sp := range d.Splits {
				p := &data.Problem{Adj: d.Adj, Features: d.Features, X: autograd.NewSparse(d.Features), Labels: d.Labels,
					NumClasses: d.NumClasses, Train: sp.Train, Val: sp.Val, Test: sp.Test}
				m := fitCentroid(p)
				for _, pt := range d.Perturbations["poisoning"] {
					if pt.Split != si {
						continue
					}
					want := train.Accuracy(m.logits(d.Perturbed(pt), d.Features), d.Labels, sp.Test)
					if row := r.Rows[i]; row.Accuracy != want || row.Dataset != d.Name || row.Split != si || row.Source != pt.Source {
						t.Fatalf("external row %+v, want accuracy %v", row, want)
					}
					i++
				}
			}
		}
	}
	exp := filepath.Join(dir, "ut.yaml")
	if err := os.WriteFile(exp, []byte("fixed:\n  kind: unittest\n  unit_test: "+file+"\n  model: gcn\n  max_epochs: 10\n  ut_datasets: cora_ml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	if out, err := runRoot(t, "run", exp, "--store", db, "--status-every", "0"); err != nil {
		t.Fatal(err, out)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Query(context.Background(), store.Filter{Kind: "unittest"})
	if err != nil || len(rs) != 1 {
		t.Fatalf("%d unittest results: %v", len(rs), err)
	}
	if rows, _ := rs[0].Metrics["rows"].([]any); len(rows) != 5*2*3 {
		t.Fatalf("stored %d rows", len(rows))
	}
}
