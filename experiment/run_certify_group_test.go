package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/data/synth"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/testio"
)

// syncBuffer is a log sink for concurrent writers.
type syncBuffer = testio.Buffer

// pubmedGraph writes a PubMed-shaped generated graph of n nodes (seed 0)
// into a temporary folder and returns its path.
func pubmedGraph(t testing.TB, n int) string {
	t.Helper()
	preset, err := synth.LookupPreset("pubmed")
	if err != nil {
		t.Fatal(err)
	}
	if preset, err = preset.Scaled(n); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.npz")
	if _, err := synth.Generate(context.Background(), preset, 0, path, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCertifyRunsShareSamples runs a certificate grid (three models, two
// seeds) whose runs of one seed draw the same samples: each seed's certify
// runs are executed as one group (task.SampleGroup), counted as run here,
// and every stored certificate — metrics and votes — equals the one the
// run gives alone (each model's grid run in a store of its own).
func TestCertifyRunsShareSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains and certifies six models")
	}
	ctx := context.Background()
	dir := t.TempDir()
	graphPath := pubmedGraph(t, 600)
	grid := func(models string) string {
		return `
name: certgroup
fixed: {dataset: ` + graphPath + `, max_epochs: 20, samples: 24, pre_samples: 4, p_add: 0.002, p_del: 0.3,
        sample_ppr_eps: 0.001, k: 16, temperature: 0.5}
grid:
  seed: [0, 1]
  kind: [train, certify]
  model: [` + models + `]
`
	}
	run := func(t *testing.T, path, models string, workers int) (Summary, string) {
		e, err := Parse([]byte(grid(models)))
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var log syncBuffer
		sum, err := Execute(ctx, &Env{Store: st, Kinds: DefaultKinds(), Log: &log}, e,
			RunOptions{Workers: workers, Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Failed > 0 {
			t.Fatalf("failures: %v\n%s", sum.Failures, log.String())
		}
		return sum, log.String()
	}
	certs := func(t *testing.T, path string) map[string]store.Result {
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		rs, err := st.Query(ctx, store.Filter{Kind: "certify"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Result{}
		for _, r := range rs {
			out[r.Key] = r
		}
		return out
	}
	alone := filepath.Join(dir, "alone.db")
	for _, m := range []string{"gcn", "gdc", "sm_gdc"} {
		if _, log := run(t, alone, m, 1); strings.Contains(log, "share the samples") {
			t.Fatalf("a one-model grid shared samples:\n%s", log)
		}
	}
	want := certs(t, alone)
	if len(want) != 6 {
		t.Fatalf("%d certify results alone, want 6", len(want))
	}
	for _, workers := range []int{1, 2} {
		path := filepath.Join(dir, "group"+string(rune('0'+workers))+".db")
		sum, log := run(t, path, "gcn, gdc, sm_gdc", workers)
		if n := strings.Count(log, "share the samples"); n < 1 {
			t.Errorf("workers %d: no certify run shared its samples:\n%s", workers, log)
		}
		if sum.Ran != 12 || sum.ByOthers != 0 {
			t.Errorf("workers %d: ran %d, by others %d; want 12 and 0", workers, sum.Ran, sum.ByOthers)
		}
		got := certs(t, path)
		for key, w := range want {
			g, ok := got[key]
			if !ok {
				t.Errorf("workers %d: run %s missing", workers, key)
				continue
			}
			gm, _ := json.Marshal(g.Metrics)
			wm, _ := json.Marshal(w.Metrics)
			if !bytes.Equal(gm, wm) || g.Artifacts["votes"] != w.Artifacts["votes"] {
				t.Errorf("workers %d: %s (%v) differs from the run alone", workers, key, g.Params["model"])
			}
		}
	}
}

// smallCertifyGrid parses a certify grid named name over models (a YAML
// list) on a 300-node PubMed-shaped graph (5 epochs, 8 samples), opens a
// store in a temporary folder (closed when the test ends) and expands the
// grid.
func smallCertifyGrid(t *testing.T, name, models string) (*Experiment, *store.Store, *Kinds, []Run) {
	t.Helper()
	graphPath := pubmedGraph(t, 300)
	e, err := Parse([]byte(`
name: ` + name + `
fixed: {dataset: ` + graphPath + `, max_epochs: 5, samples: 8, pre_samples: 2, p_del: 0.3, kind: certify, seed: 0}
grid:
  model: ` + models + `
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	kinds := DefaultKinds()
	runs, err := e.Expand(kinds)
	if err != nil {
		t.Fatal(err)
	}
	return e, st, kinds, runs
}

// TestCertifyGroupDropsAFailingMember: a member of a shared-sample group
// that fails (here svd_gcn, whose training failed before) leaves the group;
// the others are stored, and its own run fails with its own error.
func TestCertifyGroupDropsAFailingMember(t *testing.T) {
	ctx := context.Background()
	e, st, kinds, runs := smallCertifyGrid(t, "dropmember", "[gcn, svd_gcn, gdc]")
	for _, r := range runs { // svd_gcn's training failed before
		if r.Params["model"] == "svd_gcn" {
			key, kp, err := kinds.Dependency("train", r.Params)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Enqueue(ctx, []store.QueueItem{{Key: key, Kind: "train", Params: kp}}); err != nil {
				t.Fatal(err)
			}
			if err := st.PutFailure(ctx, store.Failure{Key: key, Kind: "train", Params: kp, Error: "planted failure",
				At: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var log syncBuffer
	sum, err := Execute(ctx, &Env{Store: st, Kinds: kinds, Log: &log}, e, RunOptions{Workers: 1, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || sum.Failed != 1 {
		t.Fatalf("ran %d, failed %d; want 2 and 1 (svd_gcn)\n%s", sum.Ran, sum.Failed, log.String())
	}
	if !strings.Contains(log.String(), "start over without it") || !strings.Contains(log.String(), "planted failure") {
		t.Errorf("the group did not drop its failing member:\n%s", log.String())
	}
	rs, err := st.Query(ctx, store.Filter{Kind: "certify"})
	if err != nil || len(rs) != 2 {
		t.Fatalf("%d certify results (%v), want 2", len(rs), err)
	}
	for _, r := range rs {
		if r.Params["model"] == "svd_gcn" {
			t.Errorf("svd_gcn stored: %+v", r)
		}
	}
}

// TestCertifyGroupTakesExpiredClaims: runs left claimed by a sitting that
// was killed (its lease expired, its process on another host or pid
// namespace) still join a group: after a restart the certify runs of a
// grid share their samples again instead of running one by one.
func TestCertifyGroupTakesExpiredClaims(t *testing.T) {
	ctx := context.Background()
	e, st, kinds, runs := smallCertifyGrid(t, "expired", "[gcn, gdc, appnp]")
	if _, err := Enqueue(ctx, st, e.Name, runs, false); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs { // held by a sitting on another machine that died
		if _, ok, err := st.ClaimKey(ctx, r.Key, "elsewhere/4242/1-dead", time.Millisecond); err != nil || !ok {
			t.Fatalf("claim %s: %v %v", r.Key, ok, err)
		}
	}
	time.Sleep(20 * time.Millisecond)
	var log syncBuffer
	sum, err := Execute(ctx, &Env{Store: st, Kinds: kinds, Log: &log}, e, RunOptions{Workers: 1, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 3 || sum.Failed != 0 {
		t.Fatalf("ran %d, failed %d; want 3 and 0\n%s", sum.Ran, sum.Failed, log.String())
	}
	if !strings.Contains(log.String(), "3 runs share the samples") {
		t.Errorf("the runs whose claims expired did not share their samples:\n%s", log.String())
	}
}

// TestCertifyResumesFromSavedVotes: a certify group stopped after its
// votes were checkpointed resumes from them in the next sitting, and its
// certificates (metrics and votes) are those of an uninterrupted run; the
// saved votes are removed once stored.
func TestCertifyResumesFromSavedVotes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	graphPath := pubmedGraph(t, 300)
	e, err := Parse([]byte(`
name: resume
fixed: {dataset: ` + graphPath + `, max_epochs: 5, samples: 3000, pre_samples: 2, p_del: 0.3, kind: certify, seed: 0}
grid:
  model: [gcn, appnp]
`))
	if err != nil {
		t.Fatal(err)
	}
	certs := func(st *store.Store) map[string]string {
		rs, err := st.Query(ctx, store.Filter{Kind: "certify"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rs {
			m, _ := json.Marshal(r.Metrics)
			out[r.Key] = string(m) + " " + r.Artifacts["votes"]
		}
		return out
	}
	open := func(name string) *store.Store {
		st, err := store.Open(filepath.Join(dir, name, "results.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	whole := open("whole")
	if _, err := Execute(ctx, &Env{Store: whole, Kinds: DefaultKinds()}, e, RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	want := certs(whole)

	st := open("stopped")
	partial := filepath.Join(st.ArtifactDir(), "partial")
	stop, cancel := context.WithCancel(ctx)
	go func() { // stop the sitting once votes are saved
		for stop.Err() == nil {
			if fs, _ := filepath.Glob(filepath.Join(partial, "*.npz")); len(fs) == 2 {
				cancel()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	env := &Env{Store: st, Kinds: DefaultKinds(), checkpointAfter: time.Nanosecond}
	if _, err := Execute(stop, env, e, RunOptions{Workers: 1}); err == nil && len(certs(st)) == 2 {
		t.Skip("the sitting finished before it could be stopped")
	}
	cancel()
	// The saved votes are named by their runs' store keys, which stay the
	// same from one rgnn version to the next (a sitting resumes after an
	// upgrade), not by the Go form of the spec.
	runs, err := e.Expand(DefaultKinds())
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, r := range runs {
		keys[r.Key] = true
	}
	saved, _ := filepath.Glob(filepath.Join(partial, "*.npz"))
	for _, f := range saved {
		if !keys[strings.TrimSuffix(filepath.Base(f), ".npz")] {
			t.Errorf("saved votes %s are not named by a run's key", filepath.Base(f))
		}
	}
	var log syncBuffer
	env = &Env{Store: st, Kinds: DefaultKinds(), Log: &log}
	sum, err := Execute(ctx, env, e, RunOptions{Workers: 1, Progress: &log})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("resumed sitting: %v, %d failed\n%s", err, sum.Failed, log.String())
	}
	if !strings.Contains(log.String(), "votes resumed from saved samples") {
		t.Errorf("the votes were not resumed:\n%s", log.String())
	}
	got := certs(st)
	if len(got) != len(want) {
		t.Fatalf("%d certificates, want %d", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("run %s: resumed certificate differs from the uninterrupted one", k)
		}
	}
	if fs, _ := filepath.Glob(filepath.Join(partial, "*.npz")); len(fs) != 0 {
		t.Errorf("saved votes left behind: %v", fs)
	}
}

// A checkpoint that cannot be written (here "partial" is a file, not a
// folder) is logged, and the run samples on and stores its votes.
func TestCertifyCheckpointWriteFailureIsNotFatal(t *testing.T) {
	ctx := context.Background()
	graphPath := pubmedGraph(t, 300)
	e, err := Parse([]byte(`
name: unwritable
fixed: {dataset: ` + graphPath + `, max_epochs: 5, samples: 600, pre_samples: 2, p_del: 0.3, kind: certify, seed: 0, model: gcn}
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := os.MkdirAll(st.ArtifactDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.ArtifactDir(), "partial"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	env := &Env{Store: st, Kinds: DefaultKinds(), Log: &log, checkpointAfter: time.Nanosecond}
	sum, err := Execute(ctx, env, e, RunOptions{Workers: 1, Progress: &log})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("run: %v, %d failed\n%s", err, sum.Failed, log.String())
	}
	if rs, _ := st.Query(ctx, store.Filter{Kind: "certify"}); len(rs) != 1 {
		t.Fatalf("%d certify results, want 1\n%s", len(rs), log.String())
	}
	if !strings.Contains(log.String(), "could not save the partial votes") {
		t.Fatalf("the failed checkpoint is not in the log:\n%s", log.String())
	}
}

// Two workers that start on a grid whose models are trained already are
// handed its two certify runs, which share their samples, at once. The
// first one's group is claimed as it is handed out, so the two runs make
// one group (before, the second run sampled the same graphs alone).
func TestCertifyGroupFormsBeforeTheNextRunIsHandedOut(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains and certifies two models")
	}
	ctx := context.Background()
	graphPath := pubmedGraph(t, 600)
	grid := func(kinds string) *Experiment {
		e, err := Parse([]byte(`
name: certgroup
fixed: {dataset: ` + graphPath + `, max_epochs: 20, samples: 24, pre_samples: 4, p_add: 0.002, p_del: 0.3,
        sample_ppr_eps: 0.001, k: 16, temperature: 0.5, seed: 0}
grid:
  kind: [` + kinds + `]
  model: [gcn, gdc]
`))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for trial := range 3 {
		st, err := store.Open(filepath.Join(t.TempDir(), fmt.Sprintf("r%d.db", trial)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Execute(ctx, &Env{Store: st, Kinds: DefaultKinds()}, grid("train"), RunOptions{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		var log syncBuffer
		sum, err := Execute(ctx, &Env{Store: st, Kinds: DefaultKinds(), Log: &log}, grid("train, certify"),
			RunOptions{Workers: 2, Progress: &log})
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if sum.Failed > 0 || sum.Ran != 2 || sum.AlreadyDone != 2 {
			t.Fatalf("ran %d, already done %d, failed %d; want 2, 2, 0:\n%s", sum.Ran, sum.AlreadyDone, sum.Failed, log.String())
		}
		if !strings.Contains(log.String(), "2 runs share the samples") {
			t.Fatalf("trial %d: the two certify runs did not share their samples:\n%s", trial, log.String())
		}
	}
}
