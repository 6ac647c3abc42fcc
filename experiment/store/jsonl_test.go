package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResultsFileRoundTrip writes results to a results file (plain and
// gzipped), reads them back with the same keys, parameters and metrics,
// imports them into a store without artifacts, and refuses lines whose
// key does not match their kind and parameters or whose artifact is not a
// hash.
func TestResultsFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := Params{"model": "gcn", "seed": 0.0, "p_del": 0.4}
	key, err := Key("certify", p)
	if err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("ab", 32)
	rs := []Result{{Key: key, Kind: "certify", Experiment: "x", Params: p,
		Metrics:   map[string]any{"accumulated_certifications": 4.4411, "ratio": []any{[]any{1.0, 0.5}}},
		Artifacts: map[string]string{"votes": sha}, Started: time.Unix(1, 0).UTC(), Finished: time.Unix(2, 0).UTC(), Seconds: 1}}
	for _, name := range []string{"r.jsonl", "r.jsonl.gz"} {
		path := filepath.Join(dir, name)
		if !IsResultsFile(path) {
			t.Fatalf("%s not a results file", name)
		}
		if err := WriteResultsFile(path, rs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadResultsFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := DiffMetrics(rs, back); len(back) != 1 || len(d) > 0 || back[0].Artifacts["votes"] != sha {
			t.Fatalf("%s: read back %+v (%v)", name, back, d)
		}
		st, err := Open(filepath.Join(dir, strings.ReplaceAll(name, ".", "_"), "results.db"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Put(ctx, back[0]); err == nil {
			t.Error("Put stored a result whose artifact is absent")
		}
		if n, _, err := ImportResults(ctx, st, back); err != nil || n != 1 {
			t.Fatalf("import: %d, %v", n, err)
		}
		if n, skipped, err := ImportResults(ctx, st, back); err != nil || n != 0 || skipped != 1 {
			t.Fatalf("import twice: %d copied, %d skipped, %v", n, skipped, err)
		}
		if probs, absent, err := st.CheckAll(ctx); err != nil || len(probs) > 0 || absent != 1 {
			t.Fatalf("check: %v %d %v", probs, absent, err)
		}
		st.Close()
	}
	for name, line := range map[string]string{
		"key":      strings.Replace(`{"key":"KEY","kind":"certify","params":{"model":"gcn","p_del":0.4,"seed":0},"metrics":{}}`, "KEY", strings.Repeat("0", 20), 1),
		"artifact": strings.Replace(`{"key":"KEY","kind":"certify","params":{"model":"gcn","p_del":0.4,"seed":0},"metrics":{},"artifacts":{"votes":"../x"}}`, "KEY", key, 1),
		"json":     `{"key":`,
	} {
		path := filepath.Join(dir, "bad-"+name+".jsonl")
		os.WriteFile(path, []byte("\n"+line+"\n"), 0o644)
		if _, err := ReadResultsFile(path); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("bad %s: err = %v, want one naming line 2", name, err)
		}
	}
}
