package serve

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/task"
)

// TestLazyRowsConcurrent: after an edge update of a push GDC Soft Medoid
// model, predictions computed by lazyRows from several goroutines while the
// engine fills the table (as the server does) are the table's rows, bit for
// bit; under -race it checks that the lazy path shares nothing mutable
// with the engine.
func TestLazyRowsConcurrent(t *testing.T) {
	g, err := data.LoadFile(filepath.Join(os.Getenv("RGNN_DATA_DIR"), "cora_ml.npz"), false)
	if err != nil {
		t.Skip(err)
	}
	e, _ := testEngine(t, "sm_gdc", g, model.Options{PPREps: 1e-4, Seed: 3})
	if e.mode != modePushGDCRows {
		t.Fatalf("mode %q", e.mode)
	}
	st := &graphState{adj: g.Adj, feats: g.Features}
	tab, err := e.init(st)
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(st)
	if err := b.edge(5, 900, !hasEdge(st.adj, 5, 900), "e"); err != nil {
		t.Fatal(err)
	}
	next := b.build(1)
	none, lazy, _, err := e.update(tab, next, b.changed())
	if err != nil {
		t.Fatal(err)
	}
	if none != nil || lazy == nil {
		t.Fatal("a push GDC Soft Medoid version should be lazy")
	}
	queries := [][]int{{5}, {900, 5}, {0, 1, 2, 3}, {2000, 17, 17, 2800}}
	got := make([][][]float32, len(queries))
	var wg sync.WaitGroup
	for q, nodes := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			z, err := lazy.rows(nodes)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range nodes {
				got[q] = append(got[q], z.Row(i))
			}
		}()
	}
	full := e.fill(lazy)
	e.settle()
	wg.Wait()
	for q, nodes := range queries {
		for i, u := range nodes {
			if !slices.Equal(got[q][i], full.row(u)) {
				t.Fatalf("query %v: node %d: lazy %v, table %v", nodes, u, got[q][i], full.row(u))
			}
		}
	}
}

// testEngine builds the model name for g (untrained, seeded by o) and its
// engine, whose replicas copy its weights as the server's do.
func testEngine(t *testing.T, name string, g *data.Graph, o model.Options) (*engine, model.Model) {
	t.Helper()
	m, err := task.Models().New(name, g.Features.Cols, g.NumClasses, o)
	if err != nil {
		t.Fatal(err)
	}
	replica := func() (model.Model, error) {
		r, err := task.Models().New(name, g.Features.Cols, g.NumClasses, o)
		if err != nil {
			return nil, err
		}
		for i, q := range r.Params() {
			copy(q.Value.Data, m.Params()[i].Value.Data)
		}
		return r, nil
	}
	return newEngine(m, 0, replica), m
}
