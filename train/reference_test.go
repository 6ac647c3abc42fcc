package train_test

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// fitGCN trains a GCN with the reference protocol and returns its test
// accuracy and final weights.
func fitGCN(t *testing.T, g *data.Graph, seed int) (float64, [][]float32) {
	t.Helper()
	tr, va, te, err := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Default(nil).New("gcn", g.Features.Cols, g.NumClasses, model.Options{Seed: uint64(seed)})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := m.Preprocess(g.Adj, g.Features)
	if err != nil {
		t.Fatal(err)
	}
	x := autograd.NewSparse(g.Features)
	if _, err := train.Fit(context.Background(), m, pg, &data.Problem{X: x, Labels: g.Labels, Train: tr, Val: va},
		train.Config{Seed: uint64(seed)}); err != nil {
		t.Fatal(err)
	}
	var w [][]float32
	for _, p := range m.Params() {
		w = append(w, append([]float32(nil), p.Value.Data...))
	}
	return train.Accuracy(train.Predict(m, pg, x), g.Labels, te), w
}

// TestGCNFromScratch: mean test accuracy over seeds 0, 1, 5 within ±0.015 of
// the reference (cora_ml 0.825, citeseer 0.712).
func TestGCNFromScratch(t *testing.T) {
	if testing.Short() {
		t.Skip("trains six models")
	}
	dir := fixture.DataDir(t)
	for _, c := range []struct {
		name string
		want float64
	}{{"cora_ml", 0.825}, {"citeseer", 0.712}} {
		g, err := data.Load(context.Background(), c.name, data.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, seed := range []int{0, 1, 5} {
			acc, _ := fitGCN(t, g, seed)
			t.Logf("%s seed %d: test accuracy %.4f", c.name, seed, acc)
			sum += acc
		}
		mean := sum / 3
		if math.Abs(mean-c.want) > 0.015 {
			t.Errorf("%s: mean test accuracy %.4f, reference %.3f ± 0.015", c.name, mean, c.want)
		}
	}
}

// TestTrainingDeterministic: the same seed gives the same weights bit for
// bit, with one goroutine or two.
func TestTrainingDeterministic(t *testing.T) {
	dir := fixture.DataDir(t)
	g, err := data.Load(context.Background(), "citeseer", data.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	a1, w1 := fitGCN(t, g, 1)
	runtime.GOMAXPROCS(2)
	a2, w2 := fitGCN(t, g, 1)
	runtime.GOMAXPROCS(prev)
	if a1 != a2 {
		t.Fatalf("accuracies differ: %v vs %v", a1, a2)
	}
	for i := range w1 {
		for j := range w1[i] {
			if w1[i][j] != w2[i][j] {
				t.Fatalf("param %d differs at %d", i, j)
			}
		}
	}
}
