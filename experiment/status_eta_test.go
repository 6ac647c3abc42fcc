package experiment

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
)

// The time left sums the expected costs of the runs left, each from runs
// like it (same kind and parameters but the seed, else the same kind), over
// the workers, less what the running ones have run already.
func TestCostModelTimeLeft(t *testing.T) {
	c := newCostModel()
	cert := func(model string, seed int) store.Params {
		return store.Params{"dataset": "cora_ml", "model": model, "seed": seed, "p_del": 0.4}
	}
	c.add("certify", cert("sm_gdc", 0), 240)
	c.add("certify", cert("sm_gdc", 1), 260)
	c.add("certify", cert("gcn", 0), 10)
	c.add("train", store.Params{"model": "gcn", "seed": 0}, 2)
	run := func(key, kind string, p store.Params) Run { return Run{Key: key, Kind: kind, Params: p} }
	left := []Run{
		run("a", "certify", cert("sm_gdc", 5)),          // its class: 250 s
		run("b", "certify", cert("gcn", 5)),             // 10 s
		run("c", "certify", cert("medoid_gdc", 5)),      // no class: the kind's mean, 170 s
		run("d", "train", store.Params{"model": "gat"}), // 2 s
		run("f", "certify", cert("sm_gdc", 6)),          // 250 s
	}
	got, ok := c.timeLeft(left, map[string]time.Duration{"a": 50 * time.Second}, 2)
	if want := (200.0 + 10 + 170 + 2 + 250) / 2; !ok || got != time.Duration(want*float64(time.Second)) {
		t.Fatalf("time left %v %v, want %v s", got, ok, want)
	}
	// One long run is at least its own remainder, whatever the workers.
	got, _ = c.timeLeft(left[:1], nil, 8)
	if got != 250*time.Second {
		t.Fatalf("one run left: %v, want 250 s", got)
	}
	// A run past its estimate still needs something.
	got, _ = c.timeLeft(left[1:2], map[string]time.Duration{"b": 100 * time.Second}, 1)
	if got != 10*time.Second {
		t.Fatalf("overdue run: %v, want a tenth of its 100 s", got)
	}
	// A kind never seen: no estimate (the caller falls back to counting runs).
	if _, ok := c.timeLeft([]Run{run("e", "attack", store.Params{})}, nil, 1); ok {
		t.Fatal("an estimate for a kind never seen")
	}
}

// A resumed grid's status line has a time left from its first line: the
// stored results of the same runs but for the seed say what the rest costs.
func TestStatusTimeLeftFromStore(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	for i, secs := range []float64{100, 300} {
		p := store.Params{"dataset": "citeseer", "model": "gcn", "seed": i}
		if _, err := st.PutWithoutArtifacts(ctx, store.Result{Key: "done" + string(rune('0'+i)), Kind: "train",
			Experiment: "x", Params: p, Metrics: map[string]any{}, Artifacts: map[string]string{},
			Started: now, Finished: now, Seconds: secs}); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	x := &execution{env: &Env{Store: st}, opt: RunOptions{Workers: 2, Progress: &buf}, start: now,
		running: map[string]inFlight{}}
	todo := []Run{
		{Key: "k5", Kind: "train", Params: store.Params{"dataset": "citeseer", "model": "gcn", "seed": 5}},
		{Key: "k6", Kind: "train", Params: store.Params{"dataset": "citeseer", "model": "gcn", "seed": 6}},
		{Key: "k7", Kind: "train", Params: store.Params{"dataset": "citeseer", "model": "gcn", "seed": 7}},
	}
	x.todo = len(todo)
	x.planTimeLeft(ctx, todo)
	x.status()
	if line := buf.String(); !strings.Contains(line, "~5m0s left") { // 3 × 200 s over 2 workers
		t.Fatalf("status %q, want ~5m0s left", line)
	}
	// A run that finishes (here: stored by another worker) leaves the estimate.
	if _, err := st.PutWithoutArtifacts(ctx, store.Result{Key: "k5", Kind: "train", Experiment: "x",
		Params: todo[0].Params, Metrics: map[string]any{}, Artifacts: map[string]string{},
		Started: now, Finished: now, Seconds: 200}); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	x.status()
	if line := buf.String(); !strings.Contains(line, "~3m20s left") { // 2 × 200 s over 2 workers
		t.Fatalf("status %q, want ~3m20s left", line)
	}
}
