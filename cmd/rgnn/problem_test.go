package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/task"
	"github.com/rgnn/rgnn/tensor"
)

// writeGraphFile writes adj in the reference attack format with the given
// feature_flips array (flat node, feature pairs of the given shape).
func writeGraphFile(t *testing.T, path string, adj *tensor.CSR, shape []int, ff []int64) {
	t.Helper()
	e := adj.Nnz()
	ei := make([]int64, 2*e)
	w := make([]float32, e)
	for r := 0; r < adj.Rows; r++ {
		for k := adj.Indptr[r]; k < adj.Indptr[r+1]; k++ {
			ei[k], ei[e+k], w[k] = int64(r), int64(adj.Indices[k]), 1
		}
	}
	if err := npz.WriteFile(path, npz.I64("edge_index", []int{2, e}, ei), npz.F32("edge_weight", []int{e}, w),
		npz.I64("shape", []int{2}, []int64{int64(adj.Rows), int64(adj.Cols)}),
		npz.I64("feature_flips", shape, ff)); err != nil {
		t.Fatal(err)
	}
}

// --graph with feature_flips: the flips are applied to the (binary)
// features; without --binary-attr they are a usage error, and malformed
// flips are rejected naming the file.
func TestGraphFlagFeatureFlips(t *testing.T) {
	dir := fixture.DataDir(t)
	g, err := data.Load(t.Context(), "cora_ml", data.Options{Dir: dir, BinaryAttr: true})
	if err != nil {
		t.Fatal(err)
	}
	const u = 12
	on := int64(g.Features.Indices[g.Features.Indptr[u]]) // a feature node u has
	off := int64(0)
	for _, ok := g.Features.Find(u, int(off)); ok; _, ok = g.Features.Find(u, int(off)) {
		off++
	}
	tmp := t.TempDir()
	path := filepath.Join(tmp, "flips.npz")
	writeGraphFile(t, path, g.Adj, []int{2, 2}, []int64{u, on, u, off})

	p, err := data.NewProblem(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	clean := g.Features
	gc, err := task.OnGraph(p, path)
	if err != nil {
		t.Fatal(err)
	}
	if gc.Path != path || gc.FeatureFlips != 2 || gc.Problem.Adj.Nnz() != g.Adj.Nnz() {
		t.Fatalf("graph %+v", gc)
	}
	x := gc.Problem.Features
	if _, ok := x.Find(u, int(on)); ok {
		t.Errorf("X[%d, %d] not removed", u, on)
	}
	if k, ok := x.Find(u, int(off)); !ok || x.Values[k] != 1 {
		t.Errorf("X[%d, %d] not added", u, off)
	}
	if x.Nnz() != clean.Nnz() || gc.Problem.X.A != x || g.Features != clean || p.Features != clean {
		t.Errorf("features: %d entries (clean %d); X follows: %v; loaded graph unchanged: %v", x.Nnz(), clean.Nnz(),
			gc.Problem.X.A == x, g.Features == clean)
	}

	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin1.npz")
	out, err := runRoot(t, "eval", "--data-dir", dir, "--binary-attr", "--weights", w, "--split-seed", "0", "--graph", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.FeatureFlips != 2 || rep.Graph != path {
		t.Fatalf("eval report %+v (%v)", rep, err)
	}
	if out, err = runRoot(t, "eval", "--data-dir", dir, "--binary-attr", "--weights", w, "--split-seed", "0", "--graph", path); err != nil ||
		!strings.Contains(out, "2 feature flips") {
		t.Fatalf("eval text %q (%v)", out, err)
	}
	if out, err = runRoot(t, "train", "--data-dir", dir, "--binary-attr", "--max-epochs", "1", "--quiet", "--graph", path); err != nil ||
		!strings.Contains(out, "graph "+path+", 2 feature flips") {
		t.Fatalf("train text %q (%v)", out, err)
	}
	// TF-IDF features cannot take the flips
	for _, args := range [][]string{{"eval", "--weights", w}, {"train", "--max-epochs", "1", "--quiet"}} {
		_, err = runRoot(t, append(args, "--data-dir", dir, "--graph", path)...)
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--binary-attr") {
			t.Errorf("%s without --binary-attr: %v, want a usage error naming --binary-attr", args[0], err)
		}
	}
	for name, c := range map[string]struct {
		shape []int
		ff    []int64
		want  string
	}{
		"shape":    {[]int{3}, []int64{u, on, 0}, "shape"},
		"node":     {[]int{1, 2}, []int64{int64(g.NumNodes()), 0}, "outside"},
		"feature":  {[]int{1, 2}, []int64{u, -1}, "outside"},
		"huge":     {[]int{1, 2}, []int64{u, 1 << 32}, "outside"},
		"repeated": {[]int{2, 2}, []int64{u, on, u, on}, "repeated"},
	} {
		bad := filepath.Join(tmp, name+".npz")
		writeGraphFile(t, bad, g.Adj, c.shape, c.ff)
		_, err := runRoot(t, "eval", "--data-dir", dir, "--binary-attr", "--weights", w, "--graph", bad)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: %v, want an error naming %s and %q", name, err, bad, c.want)
		}
	}
}
