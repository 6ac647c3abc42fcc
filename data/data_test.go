package data

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
)

func TestDatasets(t *testing.T) {
	dir := fixture.DataDir(t)
	cases := []struct {
		name          string
		nodes, edges  int
		counts        []int
		splitFixtures string
	}{
		{"cora_ml", 2810, 7981, []int{348, 393, 440, 407, 781, 150, 291}, "splits_cora_ml.npz"},
		{"citeseer", 2110, 3668, []int{115, 463, 388, 304, 532, 308}, "splits_citeseer.npz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Load(context.Background(), c.name, Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if g.NumNodes() != c.nodes || g.NumEdges() != c.edges {
				t.Fatalf("%d nodes / %d edges, want %d / %d", g.NumNodes(), g.NumEdges(), c.nodes, c.edges)
			}
			if !slices.Equal(g.ClassCounts(), c.counts) {
				t.Fatalf("class counts %v, want %v", g.ClassCounts(), c.counts)
			}
			if err := g.Adj.Validate(); err != nil {
				t.Fatal(err)
			}
			ref, err := npz.Open(fixture.Reference(t, c.splitFixtures))
			if err != nil {
				t.Fatal(err)
			}
			lcc, _, _ := ref.Int64("lcc_nodes")
			lab, _, _ := ref.Int64("labels_lcc")
			for i := range lcc {
				if int64(g.LCCNodes[i]) != lcc[i] || int64(g.Labels[i]) != lab[i] {
					t.Fatalf("node %d: lcc %d label %d, want %d %d", i, g.LCCNodes[i], g.Labels[i], lcc[i], lab[i])
				}
			}
			for _, seed := range []int{0, 1, 5} {
				tr, va, te, err := Split(g.Labels, g.NumClasses, 20, uint32(seed))
				if err != nil {
					t.Fatal(err)
				}
				for name, got := range map[string][]int{"train": tr, "val": va, "test": te} {
					want, _, err := ref.Int64(fmt.Sprintf("idx_%s_s%d", name, seed))
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) {
						t.Fatalf("seed %d %s: %d nodes, want %d", seed, name, len(got), len(want))
					}
					for i := range got {
						if int64(got[i]) != want[i] {
							t.Fatalf("seed %d %s[%d] = %d, want %d", seed, name, i, got[i], want[i])
						}
					}
				}
			}
		})
	}
}

func TestBinaryAttrAndOldKeys(t *testing.T) {
	dir := fixture.DataDir(t)
	g, err := Load(context.Background(), "cora_ml", Options{Dir: dir, BinaryAttr: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range g.Features.Values {
		if v != 1 {
			t.Fatalf("binary attr value %v", v)
		}
	}
	for _, name := range []string{"cora", "polblogs"} { // old "adj_data" key style
		g, err := Load(context.Background(), name, Options{Dir: dir})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.NumNodes() == 0 || g.Adj.Validate() != nil {
			t.Fatalf("%s: bad graph", name)
		}
	}
}

func TestFetch(t *testing.T) {
	body, _ := npz.Encode(npz.F32("x", []int{1}, []float32{1}))
	info := registry["cora_ml"]
	// A registry entry whose checksum matches body, served by a test server.
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	mux.HandleFunc("/short", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)+10))
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	// Wrong checksum: the served bytes are not cora_ml.
	_, err := Fetch(context.Background(), "cora_ml", dir, FetchOptions{URL: srv.URL + "/ok"})
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("checksum mismatch not reported: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, info.File)); err == nil {
		t.Fatal("partial file left after checksum mismatch")
	}
	for _, path := range []string{"/missing", "/short"} {
		if _, err := Fetch(context.Background(), "cora_ml", dir, FetchOptions{URL: srv.URL + path}); err == nil {
			t.Fatalf("%s: no error", path)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 0 {
			t.Fatalf("%s: files left: %v", path, entries)
		}
	}
	// Success: serve the real file.
	real := filepath.Join(fixture.DataDir(t), info.File)
	mux.HandleFunc("/real", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, real) })
	p, err := Fetch(context.Background(), "cora_ml", dir, FetchOptions{URL: srv.URL + "/real"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(p, false); err != nil {
		t.Fatal(err)
	}
	// A corrupted present file is reported, not silently used.
	os.WriteFile(p, []byte("junk"), 0o644)
	if _, err := Fetch(context.Background(), "cora_ml", dir, FetchOptions{}); err == nil || !strings.Contains(err.Error(), "delete") {
		t.Fatalf("corrupt cached file: %v", err)
	}
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, es ...npz.Entry) string {
		p := filepath.Join(dir, name)
		if err := npz.WriteFile(p, es...); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csr := func(prefix string, shape []int64, ptr []int64, ind []int64, val []float32) []npz.Entry {
		return []npz.Entry{npz.F32(prefix+".data", []int{len(val)}, val), npz.I64(prefix+".indices", []int{len(ind)}, ind),
			npz.I64(prefix+".indptr", []int{len(ptr)}, ptr), npz.I64(prefix+".shape", []int{2}, shape)}
	}
	good := csr("adj_matrix", []int64{2, 2}, []int64{0, 1, 2}, []int64{1, 0}, []float32{1, 1})
	cases := map[string]string{
		"nolabels.npz":  write("nolabels.npz", good...),
		"badlabels.npz": write("badlabels.npz", append(good, npz.I64("labels", []int{3}, []int64{0, 1, 1}))...),
		"badcol.npz": write("badcol.npz", append(csr("adj_matrix", []int64{2, 2}, []int64{0, 1, 2}, []int64{5, 0}, []float32{1, 1}),
			npz.I64("labels", []int{2}, []int64{0, 1}))...),
		"badptr.npz": write("badptr.npz", append(csr("adj_matrix", []int64{2, 2}, []int64{0, 2}, []int64{1, 0}, []float32{1, 1}),
			npz.I64("labels", []int{2}, []int64{0, 1}))...),
	}
	os.WriteFile(filepath.Join(dir, "trunc.npz"), []byte("PK\x03\x04junk"), 0o644)
	cases["trunc.npz"] = filepath.Join(dir, "trunc.npz")
	for name, p := range cases {
		_, err := LoadFile(p, false)
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
}

func TestPerturbedRoundTrip(t *testing.T) {
	dir := fixture.DataDir(t)
	g, err := Load(context.Background(), "cora_ml", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "pert.npz")
	if err := SavePerturbedAdj(p, g.Adj); err != nil {
		t.Fatal(err)
	}
	back, err := LoadPerturbedAdj(p, g.NumNodes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Indices, g.Adj.Indices) || !slices.Equal(back.Indptr, g.Adj.Indptr) {
		t.Fatal("round trip changed the graph")
	}
	if _, err := LoadPerturbedAdj(p, 10); err == nil {
		t.Fatal("wrong node count accepted")
	}
	// extra entries follow the graph's and leave it readable
	px := filepath.Join(t.TempDir(), "pert_extra.npz")
	if err := SavePerturbedAdj(px, g.Adj, npz.I64("feature_flips", []int{1, 2}, []int64{3, 4})); err != nil {
		t.Fatal(err)
	}
	if back, err := LoadPerturbedAdj(px, g.NumNodes()); err != nil || !slices.Equal(back.Indices, g.Adj.Indices) {
		t.Fatalf("graph with an extra entry: %v", err)
	}
	if a, err := npz.Open(px); err != nil {
		t.Fatal(err)
	} else if v, shape, err := a.Int64("feature_flips"); err != nil || !slices.Equal(shape, []int{1, 2}) || !slices.Equal(v, []int64{3, 4}) {
		t.Fatalf("feature_flips %v %v: %v", shape, v, err)
	}
	ref := fixture.Reference(t, "attacks/cora_ml_fgsm_s0_eps0.1.npz")
	a, err := LoadPerturbedAdj(ref, g.NumNodes())
	if err != nil {
		t.Fatal(err)
	}
	if a.Nnz()/2 != 7981+798 && a.Nnz()/2 != 7981-798 {
		// FGSM flips 798 pairs, adds or removes; just check plausibility.
		t.Logf("fgsm eps 0.1 graph has %d edges", a.Nnz()/2)
	}
}
