package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/benchmark"
	"github.com/rgnn/rgnn/internal/fixture"
)

func TestBenchCommand(t *testing.T) {
	dir := fixture.DataDir(t)
	out, err := runRoot(t, "bench", "--data-dir", dir, "--datasets", "citeseer", "--models", "gcn", "--gdc", "no",
		"--warmup", "1", "--epochs", "3", "--quiet", "--json")
	if err != nil {
		t.Fatal(err)
	}
	jsonOut := out
	var rep benchmark.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(rep.Rows) != 1 || rep.Epochs != 3 {
		t.Fatalf("report %+v", rep)
	}
	r := rep.Rows[0]
	if r.Dataset != "citeseer" || r.Model != "gcn" || r.GDC || r.Epochs != 3 || !(r.EpochMeanMs > 0) || r.PaperMs != 4.7 {
		t.Fatalf("row %+v", r)
	}
	out, err = runRoot(t, "bench", "--data-dir", dir, "--datasets", "citeseer", "--models", "gcn", "--gdc", "no",
		"--warmup", "1", "--epochs", "2", "--quiet")
	if err != nil || !strings.Contains(out, "citeseer") || !strings.Contains(out, "gcn (input)") {
		t.Fatalf("table: %v\n%s", err, out)
	}
	saved := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(saved, []byte(jsonOut), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err = runRoot(t, "bench", "--from", saved, "--markdown"); err != nil || !strings.Contains(out, "| citeseer | gcn | no | gcn (input) |") {
		t.Fatalf("markdown from saved report: %v\n%s", err, out)
	}
	for _, bad := range [][]string{{"--models", "nope"}, {"--datasets", "cora"}, {"--epochs", "0"}, {"--gdc", "maybe"}} {
		var ue usageError
		if _, err := runRoot(t, append([]string{"bench", "--data-dir", dir, "--quiet"}, bad...)...); !errors.As(err, &ue) {
			t.Errorf("%v: want a usage error, got %v", bad, err)
		}
	}
}
