package data

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

func randomGraph(t *testing.T, n, m int, seed uint64) *tensor.CSR {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var es []tensor.Entry
	for range m {
		u, v := rng.IntN(n), rng.IntN(n)
		if u != v {
			es = append(es, tensor.Entry{Row: int32(u), Col: int32(v), Val: 1}, tensor.Entry{Row: int32(v), Col: int32(u), Val: 1})
		}
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Values {
		a.Values[i] = 1
	}
	return a
}

func sameGraph(a, b *tensor.CSR) bool {
	return a.Rows == b.Rows && slices.Equal(a.Indptr, b.Indptr) && slices.Equal(a.Indices, b.Indices) &&
		slices.Equal(a.Values, b.Values)
}

// TestPerturbationRoundTrip: the compact form (added and removed edges)
// reads back as the perturbed graph; the reference format still loads
// through the same function; SavePerturbedGraph picks the compact form
// from CompactFrom nodes.
func TestPerturbationRoundTrip(t *testing.T) {
	dir := t.TempDir()
	clean := randomGraph(t, 300, 900, 1)
	rng := rand.New(rand.NewPCG(2, 2))
	seen := map[[2]int]bool{}
	var flips [][2]int
	for len(flips) < 60 {
		u, v := rng.IntN(300), rng.IntN(300)
		if u > v {
			u, v = v, u
		}
		if u != v && !seen[[2]int{u, v}] {
			seen[[2]int{u, v}] = true
			flips = append(flips, [2]int{u, v})
		}
	}
	pert, err := graph.FlipEdges(clean, flips)
	if err != nil {
		t.Fatal(err)
	}
	compact := filepath.Join(dir, "compact.npz")
	if err := SavePerturbation(compact, clean, pert); err != nil {
		t.Fatal(err)
	}
	a, err := npz.Open(compact)
	if err != nil {
		t.Fatal(err)
	}
	added, _, _ := a.Int64("added")
	removed, _, _ := a.Int64("removed")
	if got := (len(added) + len(removed)) / 2; got != len(flips) {
		t.Fatalf("%d pairs stored for %d flips", got, len(flips))
	}
	back, err := LoadPerturbedGraph(compact, clean)
	if err != nil {
		t.Fatal(err)
	}
	if !sameGraph(back, pert) {
		t.Fatal("compact form: the graph read back differs")
	}
	full := filepath.Join(dir, "full.npz")
	if err := SavePerturbedGraph(full, clean, pert); err != nil { // 300 nodes: the reference format
		t.Fatal(err)
	}
	if a, _ := npz.Open(full); !a.Has("edge_index") {
		t.Fatal("a small graph was not saved in the reference format")
	}
	if back, err = LoadPerturbedGraph(full, clean); err != nil || !sameGraph(back, pert) {
		t.Fatalf("reference format through LoadPerturbedGraph: %v", err)
	}
	// From CompactFrom nodes on, the compact form.
	big := randomGraph(t, CompactFrom, 1000, 3)
	bigPert, err := graph.FlipEdges(big, [][2]int{{0, 1}, {5, 99_999}})
	if err != nil {
		t.Fatal(err)
	}
	bp := filepath.Join(dir, "big.npz")
	if err := SavePerturbedGraph(bp, big, bigPert); err != nil {
		t.Fatal(err)
	}
	if a, _ := npz.Open(bp); !a.Has("added") || a.Has("edge_index") {
		t.Fatal("a graph of CompactFrom nodes was not saved in the compact form")
	}
	if back, err = LoadPerturbedGraph(bp, big); err != nil || !sameGraph(back, bigPert) {
		t.Fatalf("big graph: %v", err)
	}
}

// TestPerturbationBadFiles: a compact file that does not fit the clean
// graph is an error naming the file and the edge.
func TestPerturbationBadFiles(t *testing.T) {
	dir := t.TempDir()
	clean := randomGraph(t, 50, 100, 4)
	u, lo := 0, 0
	for ; u < 50; u++ {
		if l, h := clean.RowRange(u); h > l {
			lo = l
			break
		}
	}
	present := [2]int64{int64(u), int64(clean.Indices[lo])}
	absent := [2]int64{}
	for v := 1; v < 50; v++ {
		if _, ok := clean.Find(0, v); !ok {
			absent = [2]int64{0, int64(v)}
			break
		}
	}
	cases := map[string][]npz.Entry{
		"already in": {npz.I64("added", []int{1, 2}, present[:])},
		"not in":     {npz.I64("removed", []int{1, 2}, absent[:])},
		"distinct":   {npz.I64("added", []int{1, 2}, []int64{3, 77})},
		"shape":      {npz.I64("added", []int{2}, absent[:])},
		"does not match": {npz.I64("added", []int{1, 2}, absent[:]),
			npz.I64("shape", []int{2}, []int64{51, 51})},
	}
	for want, entries := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(want, " ", "_")+".npz")
		if err := npz.WriteFile(path, entries...); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPerturbedGraph(path, clean); err == nil || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v", want, err)
		}
	}
}
