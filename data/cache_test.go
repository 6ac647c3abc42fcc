package data

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
)

func TestLoadFileCached(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(fixture.DataDir(t), "cora_ml.npz"))
	if err != nil {
		t.Fatal(err)
	}
	cora := filepath.Join(dir, "cora_ml.npz")
	os.WriteFile(cora, b, 0o644)
	// A small graph with a stored split (node 3 lies outside the largest
	// component and is dropped from it).
	split := filepath.Join(dir, "split.npz")
	err = npz.WriteFile(split,
		npz.F32("adj_data", []int{4}, []float32{1, 1, 1, 1}), npz.I64("adj_indices", []int{4}, []int64{1, 2, 0, 0}),
		npz.I64("adj_indptr", []int{5}, []int64{0, 2, 3, 4, 4}), npz.I64("adj_shape", []int{2}, []int64{4, 4}),
		npz.I64("labels", []int{4}, []int64{0, 1, 0, 1}),
		npz.I64("split_train", []int{2}, []int64{0, 3}), npz.I64("split_valid", []int{1}, []int64{1}),
		npz.I64("split_test", []int{1}, []int64{2}))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{cora, split} {
		for _, bin := range []bool{false, true} {
			want, err := LoadFile(path, bin)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 3 {
				got, err := loadFileCached(path, bin, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s binary %v round %d: cached load differs", path, bin, round)
				}
				if _, err := os.Stat(path + CacheSuffix); err != nil {
					t.Fatal("no cache written:", err)
				}
				if round == 1 { // stale: the file changed
					later := time.Now().Add(time.Hour)
					os.Chtimes(path, later, later)
				}
			}
		}
	}
	g, _ := LoadFile(split, false)
	if g.NumNodes() != 3 || g.Split == nil || !reflect.DeepEqual(g.Split.Train, []int{0}) || !reflect.DeepEqual(g.Split.Test, []int{2}) {
		t.Fatalf("stored split %+v on %d nodes", g.Split, g.NumNodes())
	}
	// Below the size threshold no cache is written.
	os.Remove(cora + CacheSuffix)
	if _, err := LoadFileCached(cora, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cora + CacheSuffix); err == nil {
		t.Fatal("cache written for a small file")
	}
}
