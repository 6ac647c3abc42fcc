package protocol

import (
	"context"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// TestMetattackPoisoningRun: Run with the registered metattack retrains
// every victim from scratch on each perturbed graph (not the clean model),
// continues the smaller budget's flips, and rejects victims it cannot
// retrain and unknown variants.
func TestMetattackPoisoningRun(t *testing.T) {
	p := attacktest.SmallProblem(t, 30, 3)
	newGCN := func() model.Model {
		m, err := model.Default(nil).New("gcn", p.Features.Cols, p.NumClasses, model.Options{Seed: 1, Hidden: 8})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var trained []*tensor.CSR
	fit := func(ctx context.Context, adj *tensor.CSR) (model.Model, error) {
		m := newGCN()
		g, err := m.Preprocess(adj, p.Features)
		if err != nil {
			return nil, err
		}
		_, err = train.Fit(ctx, m, g, p,
			train.Config{Seed: 1, MaxEpochs: 50})
		trained = append(trained, adj)
		return m, err
	}
	clean, err := fit(context.Background(), p.Adj)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Attack: "metattack", Epsilons: []float64{0.05, 0.15}, Seed: 2, Options: attack.Options{Epochs: 10},
		Victims: []Victim{{Name: "gcn", Model: clean, Train: fit}}}
	var stages []string
	cfg.Progress = func(stage string, done, total int) {
		if len(stages) == 0 || stages[len(stages)-1] != stage {
			stages = append(stages, stage)
		}
	}
	res, err := Run(context.Background(), cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "poisoning" || len(res.Budgets) != 2 || len(res.Clean) != 1 {
		t.Fatalf("result %+v", res)
	}
	small, big := res.Budgets[0], res.Budgets[1]
	if len(small.Flips) != small.Budget || len(big.Flips) != big.Budget || small.Budget == 0 || big.Budget <= small.Budget {
		t.Fatalf("flips %d/%d and %d/%d", len(small.Flips), small.Budget, len(big.Flips), big.Budget)
	}
	for k := range small.Flips {
		if big.Flips[k] != small.Flips[k] {
			t.Fatalf("ε=0.15 does not continue ε=0.05 at flip %d", k)
		}
	}
	// one clean fit above, then one retraining per budget, on its graph
	if len(trained) != 3 || trained[1] != small.Adj || trained[2] != big.Adj {
		t.Fatalf("%d trainings, want the clean one and one per budget on the perturbed graphs", len(trained))
	}
	if len(stages) != 2 || stages[0] != "eps=0.05" || stages[1] != "eps=0.15" {
		t.Fatalf("progress stages %v", stages)
	}
	cfg.Victims = []Victim{{Name: "gcn", Model: clean}}
	if _, err := Run(context.Background(), cfg, p); err == nil {
		t.Error("poisoning without a Train function accepted")
	}
	cfg.Options.Variant = "exact"
	if _, err := Run(context.Background(), cfg, p); err == nil {
		t.Error("unknown variant accepted")
	}
}
