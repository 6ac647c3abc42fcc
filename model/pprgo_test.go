package model_test

import (
	"context"
	"math"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// PPRGo and the Soft Median PPRGo learn cora_ml (GCN: 0.83), their
// preprocessing is the row-normalised top-k PPR (k entries per row at most,
// rows summing to 1), and a seed gives the same bits.
func TestPPRGoCoraML(t *testing.T) {
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := data.NewProblem(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg := model.Default(testAggregators)
	for _, name := range []string{"pprgo", "softmedian_pprgo"} {
		var accs []float64
		for range 2 {
			m, err := reg.New(name, g.Features.Cols, g.NumClasses, model.Options{K: 32, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			pg, err := m.Preprocess(g.Adj, g.Features)
			if err != nil {
				t.Fatal(err)
			}
			s := pg.S.A
			for i := 0; i < s.Rows; i++ {
				lo, hi := s.RowRange(i)
				sum := 0.0
				for _, v := range s.Values[lo:hi] {
					sum += float64(v)
				}
				if hi-lo > 32 || hi == lo || math.Abs(sum-1) > 1e-4 {
					t.Fatalf("%s: row %d has %d entries summing to %v", name, i, hi-lo, sum)
				}
			}
			if _, err := train.Fit(context.Background(), m, pg, p, train.Config{Seed: 1, MaxEpochs: 150, Patience: 150}); err != nil {
				t.Fatal(err)
			}
			accs = append(accs, train.Accuracy(train.Predict(m, pg, p.X), p.Labels, p.Test))
		}
		if accs[0] != accs[1] || accs[0] < 0.78 {
			t.Errorf("%s: test accuracy %v (twice with one seed), want the same and ≥ 0.78", name, accs)
		}
	}
}
