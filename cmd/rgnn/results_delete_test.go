package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
)

// TestResultsDelete: `rgnn results delete` needs a filter, lists without
// --yes, and with it deletes the matching results and their partial work
// (votes, attack checkpoints) and nothing else.
func TestResultsDelete(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	keys := map[string]string{}
	for _, r := range []struct{ kind, model string }{{"train", "gcn"}, {"train", "rgcn"}, {"certify", "rgcn"}} {
		p := store.Params{"model": r.model, "seed": 0}
		k, _ := store.Key(r.kind, p)
		keys[r.kind+"/"+r.model] = k
		if _, err := st.Put(ctx, store.Result{Key: k, Kind: r.kind, Experiment: "x", Params: p,
			Metrics: map[string]any{"test_accuracy": 0.5}}); err != nil {
			t.Fatal(err)
		}
	}
	// A queued rgcn run that has not finished: no result, but saved votes.
	pending := store.Params{"model": "rgcn", "seed": 1}
	pendingKey, _ := store.Key("certify", pending)
	if _, err := st.Enqueue(ctx, []store.QueueItem{{Key: pendingKey, Kind: "certify", Experiment: "x", Params: pending}}); err != nil {
		t.Fatal(err)
	}
	partialDir := filepath.Join(st.ArtifactDir(), "partial")
	st.Close()
	if err := os.MkdirAll(partialDir, 0o755); err != nil {
		t.Fatal(err)
	}
	votes := filepath.Join(partialDir, keys["certify/rgcn"]+".npz")
	pendingVotes := filepath.Join(partialDir, pendingKey+".npz")
	other := filepath.Join(partialDir, keys["train/gcn"]+"0.npz") // a key that only starts alike
	for _, f := range []string{votes, pendingVotes, other} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		st, err := store.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		rs, err := st.Query(ctx, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}

	if _, err := runRoot(t, "results", "delete", "--store", db); err == nil {
		t.Fatal("a delete without a filter was accepted")
	}
	out, err := runRoot(t, "results", "delete", "--store", db, "--where", "model=rgcn")
	if err != nil || !strings.Contains(out, "2 results (and 2 files of partial work) would be deleted") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if n := count(); n != 3 {
		t.Fatalf("the dry run deleted: %d results left", n)
	}
	// A run a worker holds is refused: its worker would store the old result.
	st, err = store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.ClaimKey(ctx, pendingKey, "w1", time.Hour); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	st.Close()
	if out, err := runRoot(t, "results", "delete", "--store", db, "--where", "model=rgcn", "--yes"); err == nil ||
		!strings.Contains(err.Error(), "stop the grid first") {
		t.Fatalf("a claimed run was deleted: %v\n%s", err, out)
	}
	if _, err := os.Stat(votes); err != nil {
		t.Fatalf("the refused delete removed votes: %v", err)
	}
	out, err = runRoot(t, "results", "delete", "--store", db, "--where", "model=rgcn", "--yes", "--force", "--json")
	var res struct {
		Matched []string `json:"matched"`
		Deleted int      `json:"deleted"`
		DryRun  bool     `json:"dry_run"`
	}
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Deleted != 2 || res.DryRun || len(res.Matched) != 2 {
		t.Fatalf("delete: %v\n%s", err, out)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d results left, want 1 (train gcn)", n)
	}
	for _, f := range []string{votes, pendingVotes} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("saved votes %s are still there: %v", f, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("another run's file was deleted: %v", err)
	}
	if out, err = runRoot(t, "results", "delete", "--store", db, "--where", "model=rgcn", "--yes", "--force"); err != nil || !strings.Contains(out, "no results") {
		t.Fatalf("second delete: %v\n%s", err, out)
	}
}
