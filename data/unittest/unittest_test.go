package unittest_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data/unittest"
	"github.com/rgnn/rgnn/internal/unittestfile"
	"github.com/rgnn/rgnn/npz"
)

// TestReadWritten: a file written in the layout reads back with its graph,
// splits and perturbations; Perturbed flips exactly the listed edges; the
// file passes the published-structure check, and one missing a model not.
func TestReadWritten(t *testing.T) {
	want := unittestfile.New(unittestfile.Options{Seed: 1})
	path := filepath.Join(t.TempDir(), "unit_test.npz")
	if err := want.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := unittest.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Datasets) != 2 || got.Datasets[0].Name != "citeseer" || got.Datasets[1].Name != "cora_ml" {
		t.Fatalf("datasets %v", got.Datasets)
	}
	w, g := want.Datasets[0], got.Datasets[1] // written cora_ml first, read in name order
	if !slices.Equal(g.Adj.Indices, w.Adj.Indices) || !slices.Equal(g.Labels, w.Labels) || len(g.Splits) != 5 ||
		!slices.Equal(g.Splits[3].Test, w.Splits[3].Test) || g.Features.Nnz() != w.Features.Nnz() {
		t.Fatalf("dataset differs: adj %v labels %v splits %d test %v feats %d/%d", slices.Equal(g.Adj.Indices, w.Adj.Indices), slices.Equal(g.Labels, w.Labels), len(g.Splits), slices.Equal(g.Splits[3].Test, w.Splits[3].Test), g.Features.Nnz(), w.Features.Nnz())
	}
	ev := g.Perturbations["evasion"]
	if len(ev) != 8*5*2 || ev[0].Source != "gcn" || ev[0].Split != 0 || ev[0].Budget != "5" || ev[1].Budget != "20" || ev[1].Value != 20 {
		t.Fatalf("perturbations %d, first %+v %+v", len(ev), ev[0], ev[1])
	}
	pert := g.Perturbed(ev[1])
	diff := 0
	for r := range g.Adj.Rows {
		a, b := g.Adj.Indices[g.Adj.Indptr[r]:g.Adj.Indptr[r+1]], pert.Indices[pert.Indptr[r]:pert.Indptr[r+1]]
		for _, c := range a {
			if !slices.Contains(b, c) {
				diff++
			}
		}
		for _, c := range b {
			if !slices.Contains(a, c) {
				diff++
			}
		}
	}
	if diff != 2*20 {
		t.Fatalf("%d entries differ after 20 flips", diff)
	}
	if err := got.CheckPublished(); err != nil {
		t.Fatal(err)
	}
	partial := unittestfile.New(unittestfile.Options{Models: []string{"gcn", "rgcn"}})
	partial.Path = "partial"
	if err := partial.CheckPublished(); err == nil || !strings.Contains(err.Error(), "jaccard_gcn") {
		t.Fatalf("a file without jaccard_gcn's perturbations: %v", err)
	}
}

// TestReadMalformed: bad arrays end in errors naming the key and the row.
func TestReadMalformed(t *testing.T) {
	base := unittestfile.New(unittestfile.Options{Nodes: 30, Models: []string{"gcn"}}).Entries()
	replace := func(key string, e npz.Entry) []npz.Entry {
		out := slices.Clone(base)
		for i := range out {
			if out[i].Name == key {
				out[i] = e
			}
		}
		return out
	}
	for _, c := range []struct {
		name    string
		entries []npz.Entry
		want    string
	}{
		{"edge outside", replace("cora_ml/dataset/adjacency", npz.I64("cora_ml/dataset/adjacency", []int{2, 2}, []int64{0, 1, 3, 30})),
			"cora_ml/dataset/adjacency row 1: edge (3, 30) outside the 30 nodes"},
		{"self loop flip", replace("cora_ml/perturbations/evasion/gcn/split_0/budget_5",
			npz.I64("cora_ml/perturbations/evasion/gcn/split_0/budget_5", []int{1, 2}, []int64{4, 4})), "row 0: self loop (4, 4)"},
		{"negative label", replace("citeseer/dataset/labels", npz.I64("citeseer/dataset/labels", []int{30}, append([]int64{-1}, make([]int64, 29)...))),
			"citeseer/dataset/labels row 0: label -1"},
		{"split outside", replace("cora_ml/splits/2/val", npz.I64("cora_ml/splits/2/val", []int{1}, []int64{99})),
			"cora_ml/splits/2/val row 0: node 99 outside"},
		{"bad shape", replace("cora_ml/dataset/features", npz.I64("cora_ml/dataset/features", []int{3}, []int64{1, 2, 3})),
			"cora_ml/dataset/features: shape [3]"},
		{"not a unit test", []npz.Entry{npz.I64("labels", []int{2}, []int64{0, 1})}, "not a robustness unit-test file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := npz.Encode(c.entries...)
			if err != nil {
				t.Fatal(err)
			}
			a, err := npz.Read(strings.NewReader(string(b)), int64(len(b)), "ut.npz")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := unittest.Read(a); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "ut.npz: ") {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}
