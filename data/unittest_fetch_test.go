package data

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/unittestfile"
)

// TestUnitTestFetch: `rgnn data fetch --dataset unit_test` downloads the
// robustness unit test, checks that it holds the published datasets,
// splits, scenarios and models, and records its sha256; a file missing
// a model's perturbations is refused and discarded; the file is no graph.
func TestUnitTestFetch(t *testing.T) {
	src := t.TempDir()
	good, bad := filepath.Join(src, "good.npz"), filepath.Join(src, "bad.npz")
	unittestfile.Write(t, good, unittestfile.Options{Nodes: 30})
	unittestfile.Write(t, bad, unittestfile.Options{Nodes: 30, Models: []string{"gcn", "svd_gcn"}})
	dir, _, _ := fetchRefusedThenRecorded(t, "unit_test", good, bad, "jaccard_gcn")
	ctx := context.Background()
	if _, err := Load(ctx, "unit_test", Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "not a graph") {
		t.Fatalf("loading the unit test as a graph: %v", err)
	}
	for _, n := range Names() {
		if n == "unit_test" {
			t.Fatal("Names lists the unit test among the graphs")
		}
	}
	if info, _ := Lookup("unit_test"); !strings.Contains(info.URL, "LoadingByte/are-gnn-defenses-robust") {
		t.Fatalf("URL %s", info.URL)
	}
}
