package importer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// rawDataset is a shipped dataset file's arrays as stored (before the
// loader's standardisation).
type rawDataset struct {
	path       string
	adj, feats *tensor.CSR
	labels     []int64
}

func readRaw(t *testing.T, name string) rawDataset {
	t.Helper()
	path := filepath.Join(fixtureDataDir(t), name+".npz")
	a, err := npz.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	csr := func(prefix string) *tensor.CSR {
		data, _, err := a.Float32(prefix + ".data")
		if err != nil {
			t.Fatal(err)
		}
		ind, _, _ := a.Int32(prefix + ".indices")
		ptr, _, _ := a.Int64(prefix + ".indptr")
		shape, _, _ := a.Int64(prefix + ".shape")
		m := &tensor.CSR{Rows: int(shape[0]), Cols: int(shape[1]), Indices: ind, Values: data}
		for _, p := range ptr {
			m.Indptr = append(m.Indptr, int(p))
		}
		return m
	}
	y, _, err := a.Int64("labels")
	if err != nil {
		t.Fatal(err)
	}
	return rawDataset{path: path, adj: csr("adj_matrix"), feats: csr("attr_matrix"), labels: y}
}

func fixtureDataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RGNN_DATA_DIR")
	if dir == "" {
		dir = "../../../shared/datasets"
	}
	if _, err := os.Stat(filepath.Join(dir, "cora_ml.npz")); err != nil {
		t.Skipf("cora_ml.npz not in %s (set RGNN_DATA_DIR)", dir)
	}
	return dir
}

// sameGraph fails unless two loaded graphs are the same bits.
func sameGraph(t *testing.T, got, want *data.Graph) {
	t.Helper()
	eqCSR := func(what string, a, b *tensor.CSR) {
		if a.Rows != b.Rows || a.Cols != b.Cols || !slices.Equal(a.Indptr, b.Indptr) || !slices.Equal(a.Indices, b.Indices) ||
			!slices.Equal(a.Values, b.Values) {
			t.Fatalf("%s differs: %d×%d nnz %d vs %d×%d nnz %d", what, a.Rows, a.Cols, a.Nnz(), b.Rows, b.Cols, b.Nnz())
		}
	}
	eqCSR("adjacency", got.Adj, want.Adj)
	eqCSR("features", got.Features, want.Features)
	if !slices.Equal(got.Labels, want.Labels) || got.NumClasses != want.NumClasses || !slices.Equal(got.LCCNodes, want.LCCNodes) ||
		got.RawNodes != want.RawNodes {
		t.Fatalf("labels, classes or kept nodes differ")
	}
}

func writeFile(t *testing.T, path string, f func(w *bufio.Writer)) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	f(w)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestImportEdgeListRoundTrip: cora_ml written as an edge list (every
// stored entry with its weight, a header, a comment), its features as a
// scipy sparse .npz and its labels as CSV imports to a file that loads as
// the same graph as the shipped cora_ml.npz, bit for bit.
func TestImportEdgeListRoundTrip(t *testing.T) {
	raw := readRaw(t, "cora_ml")
	dir := t.TempDir()
	edges, feats, labels := filepath.Join(dir, "edges.csv"), filepath.Join(dir, "x.npz"), filepath.Join(dir, "y.csv")
	writeFile(t, edges, func(w *bufio.Writer) {
		fmt.Fprintln(w, "# cora_ml, every stored entry")
		fmt.Fprintln(w, "source,target,weight")
		for r := range raw.adj.Rows {
			for k := raw.adj.Indptr[r]; k < raw.adj.Indptr[r+1]; k++ {
				fmt.Fprintf(w, "%d,%d,%g\n", r, raw.adj.Indices[k], raw.adj.Values[k])
			}
		}
	})
	ptr := make([]int64, len(raw.feats.Indptr))
	for i, p := range raw.feats.Indptr {
		ptr[i] = int64(p)
	}
	if err := npz.WriteFile(feats, npz.F32("data", []int{len(raw.feats.Values)}, raw.feats.Values),
		npz.I32("indices", []int{len(raw.feats.Indices)}, raw.feats.Indices), npz.I64("indptr", []int{len(ptr)}, ptr),
		npz.I64("shape", []int{2}, []int64{int64(raw.feats.Rows), int64(raw.feats.Cols)})); err != nil {
		t.Fatal(err)
	}
	writeFile(t, labels, func(w *bufio.Writer) {
		for _, y := range raw.labels {
			fmt.Fprintln(w, y)
		}
	})
	out := filepath.Join(dir, "cora_ml_import.npz")
	rep, err := Import(context.Background(), Options{Edges: edges, Features: feats, Labels: labels, Out: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := data.LoadFile(raw.path, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := data.LoadFile(out, false)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, want)
	if rep.Format != "edgelist" || !rep.HeaderRow || rep.EdgeRows != raw.adj.Nnz() || rep.Nodes != want.NumNodes() ||
		rep.LoadedEdges != want.NumEdges() || rep.NodesDropped != raw.adj.Rows-want.NumNodes() || rep.Split != "random" {
		t.Fatalf("report %+v", rep)
	}
	// The counts add up: every row is a self loop, a duplicate, or one
	// direction of an edge whose other direction is listed or added.
	if 2*rep.Edges != rep.EdgeRows-rep.SelfLoops-rep.Duplicates-rep.ZeroWeight+rep.Symmetrised {
		t.Fatalf("counts do not add up: %+v", rep)
	}
	var b strings.Builder
	rep.WriteText(&b)
	for _, s := range []string{"reverse edges added", "largest connected component", "random per seed"} {
		if !strings.Contains(b.String(), s) {
			t.Fatalf("report text lacks %q:\n%s", s, b.String())
		}
	}
}

// TestImportPyGRoundTrip: cora_ml as a PyG user saves it (edge_index with
// both directions, dense x, y, boolean masks) imports to the shipped graph,
// and its masks become the split every command uses.
func TestImportPyGRoundTrip(t *testing.T) {
	raw := readRaw(t, "cora_ml")
	n, d := raw.feats.Rows, raw.feats.Cols
	var src, dst []int64
	for r := range raw.adj.Rows {
		for k := raw.adj.Indptr[r]; k < raw.adj.Indptr[r+1]; k++ {
			c := int(raw.adj.Indices[k])
			src, dst = append(src, int64(r), int64(c)), append(dst, int64(c), int64(r))
		}
	}
	x := make([]float32, n*d)
	for r := range n {
		for k := raw.feats.Indptr[r]; k < raw.feats.Indptr[r+1]; k++ {
			x[r*d+int(raw.feats.Indices[k])] = raw.feats.Values[k]
		}
	}
	train, val, test := make([]bool, n), make([]bool, n), make([]bool, n)
	for i := range n {
		switch i % 10 {
		case 0:
			train[i] = true
		case 1:
			val[i] = true
		default:
			test[i] = true
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cora_ml_pyg.npz")
	if err := npz.WriteFile(in, npz.I64("edge_index", []int{2, len(src)}, slices.Concat(src, dst)),
		npz.F32("x", []int{n, d}, x), npz.I64("y", []int{n}, raw.labels),
		npz.Bool("train_mask", []int{n}, train), npz.Bool("val_mask", []int{n}, val), npz.Bool("test_mask", []int{n}, test)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.npz")
	rep, err := Import(context.Background(), Options{Edges: in, Out: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := data.LoadFile(raw.path, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := data.LoadFile(out, false)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, want)
	if rep.Format != "pyg" || rep.Split != "given" || rep.Duplicates == 0 {
		t.Fatalf("report %+v", rep)
	}
	// The masks, mapped onto the largest component, are the split of every
	// seed.
	for _, seed := range []uint32{0, 7} {
		tr, va, te, err := data.SplitFor(got, seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []struct {
			ids  []int
			mask []bool
		}{{tr, train}, {va, val}, {te, test}} {
			want := 0
			for i, v := range got.LCCNodes {
				if part.mask[v] {
					if want >= len(part.ids) || part.ids[want] != i {
						t.Fatalf("seed %d: split differs from the masks at node %d", seed, i)
					}
					want++
				}
			}
			if want != len(part.ids) {
				t.Fatalf("seed %d: %d split nodes, masks select %d", seed, len(part.ids), want)
			}
		}
	}
	if rep.SplitSizes.Train+rep.SplitSizes.Valid+rep.SplitSizes.Test != got.NumNodes() || rep.SplitDropped != n-got.NumNodes() {
		t.Fatalf("split sizes %+v, dropped %d", rep.SplitSizes, rep.SplitDropped)
	}
}

// small writes a 6-node edge-list input into dir and returns its options;
// edit changes a file's text before it is written.
func small(t *testing.T, dir string, edit map[string]string) Options {
	t.Helper()
	files := map[string]string{
		"edges.csv": "0,1\n1,2\n2,3\n3,4\n4,5\n5,0\n",
		"x.csv":     "1,0\n0,1\n1,1\n0,0\n2,0\n0,3\n",
		"y.csv":     "0\n1\n0\n1\n0\n1\n",
		"train.txt": "0 1",
		"val.txt":   "2,3",
		"test.txt":  "4\n5\n",
	}
	for k, v := range edit {
		files[k] = v
	}
	for k, v := range files {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(f string) string { return filepath.Join(dir, f) }
	return Options{Edges: p("edges.csv"), Features: p("x.csv"), Labels: p("y.csv"), Train: p("train.txt"), Val: p("val.txt"),
		Test: p("test.txt"), Out: p("out.npz")}
}

// TestImportSmallSplitKept: a given split is stored and is what SplitFor
// returns for every seed; weights, self loops and duplicates are counted.
func TestImportSmallSplitKept(t *testing.T) {
	dir := t.TempDir()
	o := small(t, dir, map[string]string{"edges.csv": "u\tv\tw\n0\t1\t1\n1\t0\t1\n1\t2\t0.5\n2\t2\t1\n2\t3\t1\n3\t4\t0\n3\t4\t2\n4\t5\t1\n5\t0\t1\n5\t0\t1\n"})
	rep, err := Import(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.SelfLoops != 1 || rep.Duplicates != 1 || rep.ZeroWeight != 1 || rep.NonUnit != 2 || rep.Symmetrised != 5 || rep.Edges != 6 ||
		!rep.HeaderRow || rep.Split != "given" {
		t.Fatalf("report %+v", rep)
	}
	g, err := data.LoadFile(o.Out, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint32{0, 3} {
		tr, va, te, err := data.SplitFor(g, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tr, []int{0, 1}) || !slices.Equal(va, []int{2, 3}) || !slices.Equal(te, []int{4, 5}) {
			t.Fatalf("seed %d: split %v %v %v", seed, tr, va, te)
		}
	}
	p, err := data.NewProblem(g, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Train, []int{0, 1}) {
		t.Fatalf("problem's training nodes %v", p.Train)
	}
}

// TestImportMalformed: every class of bad input ends in an *InputError
// naming the file and the row, with a fix.
func TestImportMalformed(t *testing.T) {
	cases := []struct {
		name, file, text string
		row              int
		want             string
	}{
		{"negative weight", "edges.csv", "0,1,1\n1,2,-1\n", 2, "negative edge weight"},
		{"nan weight", "edges.csv", "0,1,1\n1,2,nan\n", 2, "not finite"},
		{"inf weight", "edges.csv", "0 1 inf\n", 1, "not finite"},
		{"id beyond", "edges.csv", "0,1\n1,6\n", 2, "node id 6 is beyond the 6 nodes"},
		{"negative id", "edges.csv", "0,1\n-1,2\n", 2, "negative node id"},
		{"not an id", "edges.csv", "0,1\n1,x\n", 2, "not two integer node ids"},
		{"ragged edges", "edges.csv", "0,1\n1,2,1\n", 2, "3 columns"},
		{"nan feature", "x.csv", "1,0\n0,1\n1,NaN\n0,0\n2,0\n0,3\n", 3, "not finite"},
		{"inf feature", "x.csv", "1,0\n0,1\n1,1\n0,0\n2,0\n0,-inf\n", 6, "not finite"},
		{"feature too large for float32", "x.csv", "1,0\n0,1\n1,1\n0,0\n2,0\n0,1e300\n", 6, "not finite"},
		{"ragged features", "x.csv", "1,0\n0,1\n1\n0,0\n2,0\n0,3\n", 3, "1 features"},
		{"negative label", "y.csv", "0\n1\n-1\n1\n0\n1\n", 3, "label -1 out of range"},
		{"huge label", "y.csv", "0\n1\n0\n99999999\n0\n1\n", 4, "out of range"},
		{"float label", "y.csv", "0\n1\n0.5\n1\n0\n1\n", 3, "not an integer"},
		{"split id beyond", "train.txt", "0 9", 0, "outside [0, 6)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			o := small(t, dir, map[string]string{c.file: c.text})
			_, err := Import(context.Background(), o, nil)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v (%T), want an *InputError", err, err)
			}
			if ie.File != filepath.Join(dir, c.file) || ie.Row != c.row || !strings.Contains(ie.Msg, c.want) || ie.Fix == "" {
				t.Fatalf("err = %v (file %s row %d), want %s row %d %q", err, ie.File, ie.Row, c.file, c.row, c.want)
			}
			if !strings.Contains(err.Error(), c.file) || (c.row > 0 && !strings.Contains(err.Error(), ":"+strconv.Itoa(c.row)+":")) {
				t.Fatalf("message %q does not name the file and row", err)
			}
			if _, err := os.Stat(o.Out); !os.IsNotExist(err) {
				t.Fatalf("output written despite the error")
			}
		})
	}
	// Counts that disagree, and splits that overlap or are partial.
	dir := t.TempDir()
	o := small(t, dir, map[string]string{"y.csv": "0\n1\n0\n1\n0\n"})
	if _, err := Import(context.Background(), o, nil); err == nil || !strings.Contains(err.Error(), "6 feature rows") {
		t.Fatalf("rows vs labels: %v", err)
	}
	o = small(t, t.TempDir(), map[string]string{"val.txt": "1 2"})
	if _, err := Import(context.Background(), o, nil); err == nil || !strings.Contains(err.Error(), "must not overlap") {
		t.Fatalf("overlap: %v", err)
	}
	o = small(t, t.TempDir(), nil)
	o.Val = ""
	if _, err := Import(context.Background(), o, nil); err == nil || !strings.Contains(err.Error(), "--train, --val and --test") {
		t.Fatalf("partial split: %v", err)
	}
}

// TestImportPyGMalformed: the PyG reader names the array and the entry.
func TestImportPyGMalformed(t *testing.T) {
	n := 4
	ei := []int64{0, 1, 2, 3, 1, 2, 3, 0}
	x := []float32{1, 0, 0, 1, 1, 1, 0, 0}
	y := []int64{0, 1, 0, 1}
	cases := []struct {
		name    string
		entries []npz.Entry
		want    string
	}{
		{"id beyond", []npz.Entry{npz.I64("edge_index", []int{2, 4}, []int64{0, 1, 2, 3, 1, 2, 3, 4}), npz.F32("x", []int{n, 2}, x), npz.I64("y", []int{n}, y)},
			"edge_index[:, 3]: node id 4 is beyond the 4 nodes"},
		{"nan x", []npz.Entry{npz.I64("edge_index", []int{2, 4}, ei), npz.F32("x", []int{n, 2}, []float32{1, 0, 0, 1, 1, float32(nan()), 0, 0}), npz.I64("y", []int{n}, y)},
			"row 2 (node 2), column 1: feature NaN is not finite"},
		{"negative y", []npz.Entry{npz.I64("edge_index", []int{2, 4}, ei), npz.F32("x", []int{n, 2}, x), npz.I64("y", []int{n}, []int64{0, 1, -1, 1})},
			"entry 2 (node 2): label -1 out of range"},
		{"negative weight", []npz.Entry{npz.I64("edge_index", []int{2, 4}, ei), npz.F32("x", []int{n, 2}, x), npz.I64("y", []int{n}, y),
			npz.F64("edge_weight", []int{4}, []float64{1, 1, -2, 1})}, "edge_index[:, 2]: negative edge weight -2"},
		{"shape", []npz.Entry{npz.I64("edge_index", []int{4, 2}, ei), npz.F32("x", []int{n, 2}, x), npz.I64("y", []int{n}, y)}, "shape [4 2]"},
		{"two masks", []npz.Entry{npz.I64("edge_index", []int{2, 4}, ei), npz.F32("x", []int{n, 2}, x), npz.I64("y", []int{n}, y),
			npz.Bool("train_mask", []int{n}, []bool{true, false, false, false}), npz.Bool("test_mask", []int{n}, []bool{false, true, true, true})},
			"needs train_mask, val_mask and test_mask"},
		{"no y", []npz.Entry{npz.I64("edge_index", []int{2, 4}, ei), npz.F32("x", []int{n, 2}, x)}, `no "y" array`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.npz")
			if err := npz.WriteFile(path, c.entries...); err != nil {
				t.Fatal(err)
			}
			_, err := Import(context.Background(), Options{Edges: path, Out: path + ".out.npz"}, nil)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want an *InputError naming %s and %q", err, path, c.want)
			}
		})
	}
}

func nan() float64 { var z float64; return z / z }

// TestImportArrayInputsMalformed: the .npy and sparse .npz readers name the
// file and the entry of NaN features, entries outside the shape, negative
// labels and split ids beyond the nodes.
func TestImportArrayInputsMalformed(t *testing.T) {
	dir := t.TempDir()
	o := small(t, dir, nil)
	p := func(f string) string { return filepath.Join(dir, f) }
	write := func(name string, e npz.Entry) string {
		path := p(name)
		if err := os.WriteFile(path, e.Npy(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sparse := func(name string, val []float32, ind []int32) string {
		path := p(name)
		if err := npz.WriteFile(path, npz.F32("data", []int{len(val)}, val), npz.I32("indices", []int{len(ind)}, ind),
			npz.I64("indptr", []int{7}, []int64{0, 1, 2, 2, 2, 2, 2}), npz.I64("shape", []int{2}, []int64{6, 2})); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"npy NaN feature", func(o *Options) {
			o.Features = write("x.npy", npz.F32("x", []int{6, 2}, []float32{1, 0, 0, 1, 1, 1, 0, float32(nan()), 2, 0, 0, 3}))
		}, "x.npy: row 3 (node 3), column 1: feature NaN is not finite"},
		{"sparse NaN feature", func(o *Options) { o.Features = sparse("xs.npz", []float32{1, float32(nan())}, []int32{0, 1}) },
			"xs.npz: entry 1 (row 1, column 1): feature NaN is not finite"},
		{"sparse outside", func(o *Options) { o.Features = sparse("xs2.npz", []float32{1, 1}, []int32{0, 5}) },
			"xs2.npz: entry 1 (row 1, column 5): outside the 6×2 shape"},
		{"npy negative label", func(o *Options) { o.Labels = write("y.npy", npz.I64("y", []int{6}, []int64{0, 1, 0, -3, 0, 1})) },
			"y.npy: entry 3 (node 3): label -3 out of range"},
		{"npy split id beyond", func(o *Options) { o.Test = write("te.npy", npz.I64("te", []int{2}, []int64{4, 17})) },
			"te.npy: entry 1: node id 17 is beyond the 6 nodes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oo := o
			c.edit(&oo)
			_, err := Import(context.Background(), oo, nil)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || ie.Fix == "" {
				t.Fatalf("err = %v, want %q with a fix", err, c.want)
			}
		})
	}
}
