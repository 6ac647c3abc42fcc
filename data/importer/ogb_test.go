package importer

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
)

// writeOGBFolder writes a small OGB node-property folder: 7 nodes, a
// second component {5, 6}, a repeated and a self-loop edge, a split "rand".
func writeOGBFolder(t *testing.T, root string, feat string) {
	t.Helper()
	files := map[string]string{
		"raw/num-node-list.csv.gz": "7\n",
		"raw/num-edge-list.csv.gz": "7\n",
		"raw/edge.csv.gz":          "0,1\n1,2\n2,3\n3,4\n1,0\n4,4\n5,6\n",
		"raw/node-feat.csv.gz":     feat,
		"raw/node-label.csv.gz":    "0\n1\n0\n1\n0\n1\n0\n",
		"split/rand/train.csv.gz":  "0\n1\n5\n",
		"split/rand/valid.csv.gz":  "2\n3\n",
		"split/rand/test.csv.gz":   "4\n6\n",
	}
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		zw := gzip.NewWriter(f)
		zw.Write([]byte(text))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

const ogbFeat = "1.5,0\n0,1\n1,1\n0,0\n2,0\n0,3\n1,1\n"

// TestImportOGBFolderAnySize: an OGB folder of any name and size imports
// (no published sizes to match), keeps every node and its split by
// default, and --nodes lcc restricts it to the largest component.
func TestImportOGBFolderAnySize(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "my_graph")
	writeOGBFolder(t, root, ogbFeat)
	out := filepath.Join(dir, "my_graph.npz")
	rep, err := Import(context.Background(), Options{Edges: root, Out: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "ogb" || !rep.KeepAll || rep.Nodes != 7 || rep.Edges != 5 || rep.Split != "given" ||
		rep.SplitSizes != (data.SplitSizes{Train: 3, Valid: 2, Test: 2}) {
		t.Fatalf("report %+v", rep)
	}
	g, err := data.LoadFile(out, false)
	if err != nil {
		t.Fatal(err)
	}
	tr, va, te, err := data.SplitFor(g, 9)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 7 || !slices.Equal(tr, []int{0, 1, 5}) || !slices.Equal(va, []int{2, 3}) || !slices.Equal(te, []int{4, 6}) {
		t.Fatalf("loaded %d nodes, split %v %v %v", g.NumNodes(), tr, va, te)
	}
	// The same folder read directly (--dataset DIR) gives the same graph.
	h, err := data.LoadDataset(context.Background(), root, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Adj.Indices, g.Adj.Indices) || !slices.Equal(h.Features.Values, g.Features.Values) || h.Name != "my_graph" {
		t.Fatalf("--dataset DIR loads another graph")
	}
	// Restricted to the largest component, split nodes outside it drop.
	rep, err = Import(context.Background(), Options{Edges: root, Out: out, Nodes: "lcc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.KeepAll || rep.Nodes != 5 || rep.SplitDropped != 2 || rep.SplitSizes != (data.SplitSizes{Train: 2, Valid: 2, Test: 1}) {
		t.Fatalf("lcc report %+v", rep)
	}
	// NaN features name the file and the row.
	bad := filepath.Join(dir, "bad")
	writeOGBFolder(t, bad, strings.Replace(ogbFeat, "0,3", "0,nan", 1))
	if _, err := Import(context.Background(), Options{Edges: bad, Out: out}, nil); err == nil ||
		!strings.Contains(err.Error(), "node-feat.csv.gz:6") || !strings.Contains(err.Error(), "not finite") {
		t.Fatalf("NaN feature: %v", err)
	}
}
