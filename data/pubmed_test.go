package data

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/npz"
)

// writePubMedShaped writes a graph in the reference's npz layout with
// PubMed's shape after the largest connected component (19,717 nodes,
// 44,324 undirected edges, 500 features, 3 classes) plus extra isolated
// nodes outside it; edges lacks the last `missing` edges.
func writePubMedShaped(t *testing.T, path string, missing int) {
	t.Helper()
	const n, m, isolated = 19_717, 44_324, 3
	total := n + isolated
	adj := make([][]int32, total)
	add := func(u, v int) {
		adj[u] = append(adj[u], int32(v))
		adj[v] = append(adj[v], int32(u))
	}
	edges := 0
	for i := 0; i+1 < n; i++ { // a path keeps it connected
		add(i, i+1)
		edges++
	}
	for s := 2; edges < m-missing; s++ {
		for i := 0; i+s < n && edges < m-missing; i += 7 {
			add(i, i+s)
			edges++
		}
	}
	var ptr []int32
	var ind []int32
	var val []float32
	ptr = append(ptr, 0)
	for u := range total {
		row := adj[u]
		slices.Sort(row)
		ind = append(ind, row...)
		for range row {
			val = append(val, 1)
		}
		ptr = append(ptr, int32(len(ind)))
	}
	var fptr, find []int32
	var fval []float32
	labels := make([]int64, total)
	fptr = append(fptr, 0)
	for u := range total {
		find = append(find, int32(u%500), int32((u*7+3)%500))
		if find[len(find)-1] < find[len(find)-2] {
			find[len(find)-1], find[len(find)-2] = find[len(find)-2], find[len(find)-1]
		}
		if find[len(find)-1] == find[len(find)-2] {
			find = find[:len(find)-1]
		}
		for len(fval) < len(find) {
			fval = append(fval, 0.5)
		}
		fptr = append(fptr, int32(len(find)))
		labels[u] = int64(u % 3)
	}
	err := npz.WriteFile(path,
		npz.F32("adj_matrix.data", []int{len(val)}, val), npz.I32("adj_matrix.indices", []int{len(ind)}, ind),
		npz.I32("adj_matrix.indptr", []int{len(ptr)}, ptr), npz.I64("adj_matrix.shape", []int{2}, []int64{int64(total), int64(total)}),
		npz.F32("attr_matrix.data", []int{len(fval)}, fval), npz.I32("attr_matrix.indices", []int{len(find)}, find),
		npz.I32("attr_matrix.indptr", []int{len(fptr)}, fptr), npz.I64("attr_matrix.shape", []int{2}, []int64{int64(total), 500}),
		npz.I64("labels", []int{total}, labels))
	if err != nil {
		t.Fatal(err)
	}
}

// fetchRefusedThenRecorded fetches dataset name (a server's file, no
// known sha256) into a new folder twice: the file bad must be refused with
// an error naming want and discarded, the file good then kept with its
// sha256 recorded. It returns the folder, good's path there and the
// server's URL (it serves good until the test ends).
func fetchRefusedThenRecorded(t *testing.T, name, good, bad, want string) (dir, path, url string) {
	t.Helper()
	serve := bad
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, serve) }))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	dir = t.TempDir()
	if _, err := Fetch(ctx, name, dir, FetchOptions{URL: srv.URL}); err == nil ||
		!strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "discarded") {
		t.Fatalf("refused file: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, name+".npz")); !os.IsNotExist(err) {
		t.Fatalf("the refused file was kept: %v", err)
	}
	serve = good
	path, err := Fetch(ctx, name, dir, FetchOptions{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(path + shaSuffix)
	sum, _ := fileSHA256(good)
	if err != nil || strings.TrimSpace(string(rec)) != sum {
		t.Fatalf("recorded %q (%v), want %s", rec, err, sum)
	}
	return dir, path, srv.URL
}

// TestPubMedFirstDownload: PubMed has no known sha256. Its first download
// is checked against the paper's dataset table and its sha256 recorded;
// later loads check the file against the record; a file of another shape
// is refused and discarded.
func TestPubMedFirstDownload(t *testing.T) {
	src := t.TempDir()
	good, bad := filepath.Join(src, "good.npz"), filepath.Join(src, "bad.npz")
	writePubMedShaped(t, good, 0)
	writePubMedShaped(t, bad, 5)
	dir, path, url := fetchRefusedThenRecorded(t, "pubmed", good, bad, "44319 edges")
	ctx := context.Background()
	g, err := Load(ctx, "pubmed", Options{Dir: dir, Fetch: FetchOptions{URL: url + "/unused"}})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 19_717 || g.NumEdges() != 44_324 || g.Features.Cols != 500 || g.NumClasses != 3 {
		t.Fatalf("loaded %d nodes, %d edges, %d features, %d classes", g.NumNodes(), g.NumEdges(), g.Features.Cols, g.NumClasses)
	}
	// A changed file no longer matches its record.
	writePubMedShaped(t, path, 1)
	if _, err := Fetch(ctx, "pubmed", dir, FetchOptions{URL: url}); err == nil || !strings.Contains(err.Error(), "recorded") {
		t.Fatalf("changed file: err = %v", err)
	}
}
