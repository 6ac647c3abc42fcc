package data

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fuzzseed"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// tinyGraph is a 4-node path 0-1-2-3 with an isolated node 4.
func tinyGraph(t testing.TB) *tensor.CSR {
	es := []tensor.Entry{{Row: 0, Col: 1, Val: 1}, {Row: 1, Col: 2, Val: 1}, {Row: 2, Col: 3, Val: 1}}
	for _, e := range slices.Clone(es) {
		es = append(es, tensor.Entry{Row: e.Col, Col: e.Row, Val: 1})
	}
	a, err := tensor.FromCOO(5, 5, es)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkAdj verifies what LoadPerturbedAdj promises: n×n, valid, symmetric,
// unweighted, no self loops.
func checkAdj(t *testing.T, a *tensor.CSR, n int) {
	t.Helper()
	if a.Rows != n || a.Cols != n {
		t.Fatalf("%d×%d for %d nodes", a.Rows, a.Cols, n)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	edges := map[[2]int32]bool{}
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			c := a.Indices[k]
			if int(c) == r || a.Values[k] != 1 {
				t.Fatalf("entry (%d, %d) = %v", r, c, a.Values[k])
			}
			edges[[2]int32{int32(r), c}] = true
		}
	}
	for e := range edges {
		if !edges[[2]int32{e[1], e[0]}] {
			t.Fatalf("edge %v without its reverse", e)
		}
	}
}

// FuzzLoadPerturbedAdj: a perturbed-graph file (edge_index, edge_weight,
// shape, optional feature_flips) never panics the readers, and what they
// accept is a valid graph of n nodes and valid flips. Seeds: files written
// here and, when present, the reference attack files (cora_ml, 2810 nodes).
func FuzzLoadPerturbedAdj(f *testing.F) {
	adj := tinyGraph(f)
	p := fuzzseed.WriteTemp(f, "g.npz", nil)
	if err := SavePerturbedAdj(p, adj, npz.I64("feature_flips", []int{2, 2}, []int64{0, 1, 4, 2})); err != nil {
		f.Fatal(err)
	}
	written, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(written, uint16(5))
	f.Add(fuzzseed.NoCRC(f, written), uint16(5))
	for _, s := range [][]npz.Entry{
		{npz.I64("edge_index", []int{2, 2}, []int64{0, 3, 3, 0})}, // no weights, no shape
		{npz.I32("edge_index", []int{2, 1}, []int32{1, 1}), npz.F32("edge_weight", []int{1}, []float32{0})},
		{npz.F64("edge_index", []int{2, 1}, []float64{0, 2}), npz.I64("shape", []int{2}, []int64{5, 5})},
		{npz.I64("edge_index", []int{2, 0}, nil), npz.I64("feature_flips", []int{0, 2}, nil)},
	} {
		for _, b := range fuzzseed.NPZ(f, s...) {
			f.Add(b, uint16(5))
		}
	}
	for _, b := range fuzzseed.Reference(f, 2, "attacks/*.npz") {
		f.Add(b, uint16(2810))
	}
	file := fuzzseed.File(f, "g.npz")
	f.Fuzz(func(t *testing.T, b []byte, n16 uint16) {
		n := max(1, int(n16))
		path := file(t, b)
		if a, err := LoadPerturbedAdj(path, n); err == nil {
			checkAdj(t, a, n)
		}
		d := 1 + int(n16)%7
		ff, err := LoadFeatureFlips(path, n, d)
		if err != nil {
			return
		}
		seen := map[FeatureFlip]bool{}
		for _, x := range ff {
			if x.Node < 0 || int(x.Node) >= n || x.Feature < 0 || int(x.Feature) >= d || seen[x] {
				t.Fatalf("accepted flip %v for %d×%d", x, n, d)
			}
			seen[x] = true
		}
	})
}

func TestLoadFeatureFlips(t *testing.T) {
	write := func(es ...npz.Entry) string {
		p := fuzzseed.WriteTemp(t, "g.npz", nil)
		if err := npz.WriteFile(p, es...); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ei := npz.I64("edge_index", []int{2, 0}, nil)
	if ff, err := LoadFeatureFlips(write(ei), 5, 3); err != nil || ff != nil {
		t.Fatalf("no flips: %v %v", ff, err)
	}
	ff, err := LoadFeatureFlips(write(ei, npz.I64("feature_flips", []int{2, 2}, []int64{4, 2, 0, 0})), 5, 3)
	if err != nil || !slices.Equal(ff, []FeatureFlip{{4, 2}, {0, 0}}) {
		t.Fatalf("%v %v", ff, err)
	}
	for name, c := range map[string]struct {
		e    npz.Entry
		want string
	}{
		"shape":   {npz.I64("feature_flips", []int{4}, []int64{0, 0, 1, 1}), "want [k, 2]"},
		"node":    {npz.I64("feature_flips", []int{1, 2}, []int64{5, 0}), "outside the 5×3 features"},
		"feature": {npz.I64("feature_flips", []int{1, 2}, []int64{0, -1}), "outside"},
		"repeat":  {npz.I64("feature_flips", []int{2, 2}, []int64{1, 1, 1, 1}), "repeated"},
		"float":   {npz.F32("feature_flips", []int{1, 2}, []float32{0.5, 1}), "not an integer"},
	} {
		if _, err := LoadFeatureFlips(write(ei, c.e), 5, 3); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
}

// FuzzLoadFile: a dataset file never panics LoadFile, and what it accepts
// is a standardised graph with features and labels for every node. Seeds:
// a tiny graph in both key styles (the shipped datasets, 170 KB and more
// uncompressed, slow the fuzzer to a few inputs a second; TestDatasets
// reads them).
func FuzzLoadFile(f *testing.F) {
	csr := func(prefix, sep string, a *tensor.CSR) []npz.Entry {
		ptr := make([]int64, len(a.Indptr))
		for i, v := range a.Indptr {
			ptr[i] = int64(v)
		}
		ind := make([]int32, len(a.Indices))
		copy(ind, a.Indices)
		return []npz.Entry{npz.F32(prefix+sep+"data", []int{len(a.Values)}, a.Values),
			npz.I32(prefix+sep+"indices", []int{len(ind)}, ind),
			npz.I64(prefix+sep+"indptr", []int{len(ptr)}, ptr),
			npz.I64(prefix+sep+"shape", []int{2}, []int64{int64(a.Rows), int64(a.Cols)})}
	}
	adj := tinyGraph(f)
	labels := npz.I64("labels", []int{5}, []int64{0, 1, 0, 2, 1})
	for _, es := range [][]npz.Entry{
		append(append(csr("adj_matrix", ".", adj), csr("attr_matrix", ".", adj)...), labels),
		append(csr("adj", "_", adj), labels),
	} {
		for _, b := range fuzzseed.NPZ(f, es...) {
			f.Add(b, false)
		}
	}
	file := fuzzseed.File(f, "d.npz")
	f.Fuzz(func(t *testing.T, b []byte, binary bool) {
		g, err := LoadFile(file(t, b), binary)
		if err != nil {
			return
		}
		n := g.NumNodes()
		checkAdj(t, g.Adj, n)
		if g.Features.Rows != n || len(g.Labels) != n || len(g.LCCNodes) != n || n > g.RawNodes {
			t.Fatalf("%d nodes, %d feature rows, %d labels, %d LCC nodes of %d", n, g.Features.Rows, len(g.Labels), len(g.LCCNodes), g.RawNodes)
		}
		if err := g.Features.Validate(); err != nil {
			t.Fatal(err)
		}
		if g.Adj.Nnz() == 0 {
			t.Fatal("accepted a graph without edges")
		}
		if k := FirstNonFinite(g.Features.Values); k >= 0 {
			t.Fatalf("accepted feature value %v", g.Features.Values[k])
		}
		for _, y := range g.Labels {
			if y < 0 || int(y) >= g.NumClasses {
				t.Fatalf("label %d of %d classes", y, g.NumClasses)
			}
		}
	})
}

// TestBadIndptr: an indptr that overshoots the indices in one row and comes
// back by the last must be refused, not index past the indices.
func TestBadIndptr(t *testing.T) {
	es := []npz.Entry{npz.F32("adj_data", []int{1}, []float32{1}), npz.I64("adj_indices", []int{1}, []int64{0}),
		npz.I64("adj_indptr", []int{3}, []int64{0, 5, 1}), npz.I64("adj_shape", []int{2}, []int64{2, 2}),
		npz.I64("labels", []int{2}, []int64{0, 1})}
	b, err := npz.Encode(es...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(fuzzseed.WriteTemp(t, "d.npz", b), false); err == nil || !strings.Contains(err.Error(), "indptr") {
		t.Fatalf("err %v", err)
	}
}
