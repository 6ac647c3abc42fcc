package train_test

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// PPRGo and the Soft Median PPRGo trained in mini-batches of 32 training
// nodes learn cora_ml, and a seed gives the same weights at GOMAXPROCS 1
// and 2.
func TestFitBatchesCoraML(t *testing.T) {
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := data.NewProblem(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg := model.Default(func(name string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
	})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		var weights [][]float32
		var pg *model.Graph
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			m, err := reg.New(name, g.Features.Cols, g.NumClasses, model.Options{K: 32, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if pg == nil { // deterministic (graph tests); computed once
				if pg, err = m.Preprocess(g.Adj, g.Features); err != nil {
					t.Fatal(err)
				}
			}
			steps := 0
			res, err := train.Fit(context.Background(), m, pg, p, train.Config{Seed: 1, MaxEpochs: 60, Patience: 60,
				BatchSize: 32, BatchProgress: func(done, total int) { steps++ }})
			if err != nil {
				t.Fatal(err)
			}
			if want := 60 * 5; steps != want { // 140 training nodes: 5 batches
				t.Errorf("%s: %d steps, want %d", name, steps, want)
			}
			acc := train.Accuracy(train.Predict(m, pg, p.X), p.Labels, p.Test)
			bacc := train.BatchAccuracy(m.(model.Batched), pg, p, p.Test, 500)
			t.Logf("%s GOMAXPROCS=%d: test accuracy %.3f (batched %.3f), best epoch %d", name, procs, acc, bacc, res.BestEpoch)
			if acc < 0.75 || bacc != acc {
				t.Errorf("%s: test accuracy %v, batched %v; want ≥ 0.75 and equal", name, acc, bacc)
			}
			var w []float32
			for _, q := range m.Params() {
				w = append(w, q.Value.Data...)
			}
			weights = append(weights, w)
		}
		if !slices.Equal(weights[0], weights[1]) {
			t.Errorf("%s: weights differ between GOMAXPROCS 1 and 2", name)
		}
	}
}

// A model without mini-batch training refuses a batch size.
func TestFitBatchesNeedsBatchedModel(t *testing.T) {
	m, err := model.Default(nil).New("gcn", 3, 2, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &data.Problem{Train: []int{0}, Val: []int{1}, X: autograd.NewSparse(nil)}
	if _, err := train.Fit(context.Background(), m, &model.Graph{}, p, train.Config{BatchSize: 8}); err == nil {
		t.Fatal("gcn trained in mini-batches")
	}
}
