package data

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
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
	serve := bad
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, serve) }))
	defer srv.Close()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Fetch(ctx, "unit_test", dir, FetchOptions{URL: srv.URL}); err == nil ||
		!strings.Contains(err.Error(), "jaccard_gcn") || !strings.Contains(err.Error(), "discarded") {
		t.Fatalf("incomplete file: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "unit_test.npz")); !os.IsNotExist(err) {
		t.Fatalf("the refused file was kept: %v", err)
	}
	serve = good
	path, err := Fetch(ctx, "unit_test", dir, FetchOptions{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(path + shaSuffix)
	want, _ := fileSHA256(good)
	if err != nil || strings.TrimSpace(string(rec)) != want {
		t.Fatalf("recorded %q (%v), want %s", rec, err, want)
	}
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
