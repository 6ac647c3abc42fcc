package messages

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

func TestMain(m *testing.M) { fixture.Main(m) }

// TestEstimatesOfEqualMessages: when every neighbour sends the same
// message, the three estimates are that message (the weight sum is divided
// out), whatever the weights.
func TestEstimatesOfEqualMessages(t *testing.T) {
	a := &tensor.CSR{Rows: 4, Cols: 4, Indptr: []int{0, 3, 4, 5, 6}, Indices: []int32{1, 2, 3, 0, 0, 0},
		Values: []float32{0.2, 0.7, 1.3, 1, 1, 1}}
	msgs := tensor.NewDense(4, 3)
	for i := range 4 {
		copy(msgs.Data[i*3:], []float32{1, -2, 0.5})
	}
	msgs.Data[0] = 9 // the target's own message is not among its neighbours'
	pc := &pca{mean: []float64{0, 0, 0}, vecs: identity2()}
	l := &lastLayer{a: a, msgs: msgs}
	e, cl, adv, err := l.around(0, map[int]bool{1: true, 2: true}, pc, 1)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Point{"mean": e.Mean, "medoid": e.Medoid, "soft medoid": e.SoftMedoid} {
		if math.Abs(p.X-1) > 1e-6 || math.Abs(p.Y+2) > 1e-6 {
			t.Errorf("%s at %v, want (1, -2)", name, p)
		}
	}
	if len(cl) != 2 || len(adv) != 1 {
		t.Errorf("%d clean and %d adversarial neighbours, want 2 and 1", len(cl), len(adv))
	}
}

func identity2() *mat.Dense { return mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0}) }

// TestFigureCoraML: the panels of a GCN on cora_ml at its highest-degree
// node, with 20 edges to nodes of other classes added: every clean
// neighbour drawn in each panel, the added ones as adversarial, and
// impossible budgets and targets refused.
func TestFigureCoraML(t *testing.T) {
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := data.NewProblem(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Default(nil).New("gcn", g.Features.Cols, g.NumClasses, model.Options{Seed: 0})
	if err != nil {
		t.Fatal(err)
	}
	target, best := 0, 0
	for v := range g.NumNodes() {
		if lo, hi := g.Adj.RowRange(v); hi-lo > best {
			target, best = v, hi-lo
		}
	}
	var flips [][2]int
	for w := 0; len(flips) < 20; w++ {
		if _, ok := g.Adj.Find(target, w); !ok && w != target && g.Labels[w] != g.Labels[target] {
			flips = append(flips, [2]int{target, w})
		}
	}
	f, err := Compute(m, p, target, flips, []int{0, 20}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Degree != best || len(f.Panels) != 2 || len(f.Panels[0].Adversarial) != 0 || len(f.Panels[1].Adversarial) != 20 {
		t.Fatalf("figure: degree %d, %d panels, adversarial %d / %d", f.Degree, len(f.Panels),
			len(f.Panels[0].Adversarial), len(f.Panels[1].Adversarial))
	}
	if len(f.Panels[1].Clean) != best {
		t.Errorf("%d clean neighbours drawn, want %d", len(f.Panels[1].Clean), best)
	}
	if _, err := Compute(m, p, target, flips, []int{21}, 1); err == nil {
		t.Error("a budget beyond the flips: no error")
	}
	if _, err := Compute(m, p, -1, flips, []int{1}, 1); err == nil {
		t.Error("target -1: no error")
	}
}
