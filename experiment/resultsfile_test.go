package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/experiment/store"
)

// TestResumeFromResultsFile exports the training and perturbation results
// of a grid to a results file (no artifact files), imports it into a new
// store and runs the grid there: the imported runs count as done, the
// certify and attack runs recompute the weights and the perturbed graph
// they need (checked against the recorded hashes), and every result equals
// the original store's.
func TestResumeFromResultsFile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains, certifies and attacks")
	}
	ctx := context.Background()
	dir := t.TempDir()
	graphPath := pubmedGraph(t, 500)
	e, err := Parse([]byte(`
name: resume
fixed: {dataset: ` + graphPath + `, max_epochs: 20, model: gcn, seed: 0, samples: 20, pre_samples: 4, p_del: 0.3,
        attack: dice, epsilon: 0.1}
grid:
  kind: [train, certify, attack]
`))
	if err != nil {
		t.Fatal(err)
	}
	execute := func(path string) (Summary, string) {
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var log syncBuffer
		sum, err := Execute(ctx, &Env{Store: st, Kinds: DefaultKinds(), Log: &log}, e, RunOptions{Workers: 1, Progress: &log})
		if err != nil || sum.Failed > 0 {
			t.Fatalf("%v %v\n%s", err, sum.Failures, log.String())
		}
		return sum, log.String()
	}
	first := filepath.Join(dir, "first.db")
	execute(first)
	st, err := store.Open(first)
	if err != nil {
		t.Fatal(err)
	}
	all, err := st.Query(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var deps []store.Result
	for _, r := range all {
		if r.Kind == "train" || r.Kind == "perturb" {
			deps = append(deps, r)
		}
	}
	st.Close()
	if len(deps) != 2 {
		t.Fatalf("%d train/perturb results, want 2", len(deps))
	}
	file := filepath.Join(dir, "deps.jsonl.gz")
	if err := store.WriteResultsFile(file, deps); err != nil {
		t.Fatal(err)
	}
	back, err := store.ReadResultsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second", "results.db")
	st2, err := store.Open(second)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, err := store.ImportResults(ctx, st2, back); err != nil || n != 2 {
		t.Fatalf("imported %d: %v", n, err)
	}
	if probs, absent, err := st2.CheckAll(ctx); err != nil || len(probs) > 0 || absent != 2 {
		t.Fatalf("check after import: %v, %d absent, %v", probs, absent, err)
	}
	st2.Close()
	sum, log := execute(second)
	if sum.AlreadyDone != 1 || sum.Ran != 2 { // train done; certify and attack run (perturb is a dependency)
		t.Errorf("after import: %d already done, %d ran; want 1 and 2\n%s", sum.AlreadyDone, sum.Ran, log)
	}
	if n := strings.Count(log, "recomputing the run"); n != 2 {
		t.Errorf("%d artifacts recomputed, want 2 (weights, perturbed graph)\n%s", n, log)
	}
	st2, err = store.Open(second)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	got, err := st2.Query(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if d := store.DiffMetrics(all, got); len(d) > 0 {
		t.Errorf("results differ from the first store: %v", d)
	}
	if probs, absent, err := st2.CheckAll(ctx); err != nil || len(probs) > 0 || absent != 0 {
		t.Errorf("check after the rerun: %v, %d absent, %v", probs, absent, err)
	}
}
