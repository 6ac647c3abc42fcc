package data

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
)

// rawCSR is a CSR as stored in a dataset file: rows of (column, value)
// pairs in the order given (unsorted and repeated columns allowed).
type rawCSR struct {
	rows, cols int
	entries    [][][2]float32 // per row: (column, value)
}

func (m rawCSR) entriesNpz(prefix string) []npz.Entry {
	var data []float32
	var ind []int32
	ptr := []int64{0}
	for _, row := range m.entries {
		for _, e := range row {
			ind = append(ind, int32(e[0]))
			data = append(data, e[1])
		}
		ptr = append(ptr, int64(len(ind)))
	}
	return []npz.Entry{npz.F32(prefix+".data", []int{len(data)}, data), npz.I32(prefix+".indices", []int{len(ind)}, ind),
		npz.I64(prefix+".indptr", []int{len(ptr)}, ptr), npz.I64(prefix+".shape", []int{2}, []int64{int64(m.rows), int64(m.cols)})}
}

// datasetFile writes a dataset .npz in cora_ml's layout.
func datasetFile(t *testing.T, adj, attr rawCSR, labels []int64) string {
	t.Helper()
	es := append(adj.entriesNpz("adj_matrix"), attr.entriesNpz("attr_matrix")...)
	es = append(es, npz.I64("labels", []int{len(labels)}, labels))
	b, err := npz.Encode(es...)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "d.npz")
	if err := npz.AtomicWrite(p, b); err != nil {
		t.Fatal(err)
	}
	return p
}

// path4 is the path 0-1-2-3 stored both ways, plus an isolated node 4.
func path4() rawCSR {
	return rawCSR{rows: 5, cols: 5, entries: [][][2]float32{{{1, 1}}, {{0, 1}, {2, 1}}, {{1, 1}, {3, 1}}, {{2, 1}}, {}}}
}

func identityRaw(n int) rawCSR {
	m := rawCSR{rows: n, cols: n}
	for i := range n {
		m.entries = append(m.entries, [][2]float32{{float32(i), 1}})
	}
	return m
}

// TestLoadFileRefusesBadInput: negative and non-finite edge weights, NaN
// and Inf features, labels out of range and a graph without edges are
// errors naming the file and the first bad entry. Before, negative weights
// became edges, NaN features failed only in training ("loss became NaN at
// epoch 0"), label 9 of 3 classes failed the split ("class 3 has 0 nodes")
// and an edgeless graph kept one node ("class 0 has 1 nodes").
func TestLoadFileRefusesBadInput(t *testing.T) {
	labels := []int64{0, 1, 0, 1, 0}
	nan, inf := float32(0), float32(0)
	nan = nan / nan
	inf = 1 / inf
	negative := path4()
	negative.entries[2] = [][2]float32{{1, 1}, {3, -1}}
	infinite := path4()
	infinite.entries[1] = [][2]float32{{0, 1}, {2, inf}}
	unsorted := path4() // the slow (unsorted) path checks too
	unsorted.entries[2] = [][2]float32{{3, -2}, {1, 1}}
	nanFeat := identityRaw(5)
	nanFeat.entries[3] = [][2]float32{{3, nan}}
	infFeat := identityRaw(5)
	infFeat.entries[2] = [][2]float32{{2, -inf}}
	for _, c := range []struct {
		name   string
		adj    rawCSR
		attr   rawCSR
		labels []int64
		want   []string
	}{
		{"negative weight", negative, identityRaw(5), labels, []string{"adj_matrix.data: row 2, column 3: edge weight -1 is negative"}},
		{"infinite weight", infinite, identityRaw(5), labels, []string{"row 1, column 2: edge weight +Inf is non-finite"}},
		{"negative weight, unsorted row", unsorted, identityRaw(5), labels, []string{"row 2, column 3: edge weight -2 is negative"}},
		{"NaN feature", path4(), nanFeat, labels, []string{"attr_matrix.data: row 3, column 3: feature value NaN"}},
		{"Inf feature", path4(), infFeat, labels, []string{"row 2, column 2: feature value -Inf"}},
		{"label gap", path4(), identityRaw(5), []int64{0, 1, 2, 9, 1},
			[]string{"labels: node 3 has label 9, out of range for the 3 classes 0–2"}},
		{"negative label", path4(), identityRaw(5), []int64{0, 1, -1, 0, 1}, []string{"node 2 has label -1"}},
		{"no edges", rawCSR{rows: 5, cols: 5, entries: make([][][2]float32, 5)}, identityRaw(5), labels,
			[]string{"the graph has no edges"}},
		{"only self-loops", identityRaw(5), identityRaw(5), labels, []string{"the graph has no edges"}},
	} {
		p := datasetFile(t, c.adj, c.attr, c.labels)
		_, err := LoadFile(p, false)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range append(c.want, p) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, w)
			}
		}
	}
}

// TestStandardisationReported: every change standardisation makes to a
// file's graph is counted (Graph.Changes) and reported in one line.
func TestStandardisationReported(t *testing.T) {
	// 0→1 only (asymmetric), 1-2 with weight 2 both ways, a self-loop at 2,
	// 2-3 stored twice in row 2 (unsorted: merged), a stored zero 3→0, and
	// a second component 4-5.
	adj := rawCSR{rows: 6, cols: 6, entries: [][][2]float32{
		{{1, 1}},
		{{2, 2}},
		{{3, 1}, {1, 2}, {2, 1}, {3, 1}},
		{{0, 0}, {2, 1}},
		{{5, 1}},
		{{4, 1}},
	}}
	g, err := LoadFile(datasetFile(t, adj, identityRaw(6), []int64{0, 1, 0, 1, 0, 1}), false)
	if err != nil {
		t.Fatal(err)
	}
	// Row 2's duplicate 2→3 merges to weight 2 (then set to 1 with 1→2's
	// and 2→1's weight 2: one undirected edge), 0→1 has no mirror.
	want := Changes{Symmetrised: 1, SelfLoops: 1, Duplicates: 1, Reweighted: 2, ZeroWeights: 1, Components: 2, DroppedNodes: 2}
	if g.Changes != want {
		t.Errorf("changes %+v, want %+v", g.Changes, want)
	}
	line := g.Changes.String()
	for _, w := range []string{"symmetrised 1 edge", "dropped 1 self-loop", "merged 1 duplicate edge entry",
		"set 2 edge weights to 1", "dropped 1 zero-weight entry", "kept the largest of 2 connected components (dropped 2 nodes)"} {
		if !strings.Contains(line, w) {
			t.Errorf("%q lacks %q", line, w)
		}
	}
	if strings.Contains(line, "\n") {
		t.Errorf("not one line: %q", line)
	}
	if g.NumNodes() != 4 || g.NumEdges() != 3 {
		t.Errorf("%d nodes, %d edges, want the path 0-1-2-3", g.NumNodes(), g.NumEdges())
	}
	clean, err := LoadFile(datasetFile(t, path4(), identityRaw(5), []int64{0, 1, 0, 1, 0}), false)
	if err != nil {
		t.Fatal(err)
	}
	if s := clean.Changes.String(); s != "kept the largest of 2 connected components (dropped 1 node)" {
		t.Errorf("a symmetric 0/1 graph with an isolated node: %q", s)
	}
}

// TestShippedDatasetsChanges pins what standardisation changes in the
// shipped datasets (their standardised graphs are pinned by the reference
// tests): reported, not silent.
func TestShippedDatasetsChanges(t *testing.T) {
	dir := fixture.DataDir(t)
	for name, want := range map[string]string{
		"cora_ml":  "symmetrised 7900 edges (added the reverse direction), kept the largest of 61 connected components (dropped 185 nodes)",
		"citeseer": "symmetrised 4481 edges (added the reverse direction), dropped 124 self-loops, kept the largest of 438 connected components (dropped 1202 nodes)",
		"polblogs": "symmetrised 14408 edges (added the reverse direction), dropped 3 self-loops, set 60 edge weights to 1, kept the largest of 268 connected components (dropped 268 nodes)",
	} {
		g, err := LoadFile(filepath.Join(dir, registry[name].File), false)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Changes.String(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// TestPerturbedGraphNegativeWeight: a negative edge weight in a perturbed
// graph file is an error naming the edge, not an edge.
func TestPerturbedGraphNegativeWeight(t *testing.T) {
	es := []npz.Entry{npz.I64("edge_index", []int{2, 2}, []int64{0, 1, 1, 0}), npz.F32("edge_weight", []int{2}, []float32{1, -1}),
		npz.I64("shape", []int{2}, []int64{3, 3})}
	b, err := npz.Encode(es...)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "g.npz")
	npz.AtomicWrite(p, b)
	_, err = LoadPerturbedAdj(p, 3)
	if err == nil || !strings.Contains(err.Error(), "edge_weight: edge 1 (1, 0): edge weight -1 is negative") {
		t.Fatalf("error %v", err)
	}
}
