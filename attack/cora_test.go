package attack

import (
	"context"
	"fmt"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
)

// loadCora returns cora_ml with the split of seed.
func loadCora(t testing.TB, seed int) *data.Problem {
	t.Helper()
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Skipf("cora_ml not available: %v", err)
	}
	tr, va, te, err := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
	if err != nil {
		t.Fatal(err)
	}
	p := &data.Problem{Name: "cora_ml", Adj: g.Adj, Features: g.Features, X: autograd.NewSparse(g.Features),
		Labels: g.Labels, NumClasses: g.NumClasses, Train: tr, Val: va, Test: te}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func testAggregators(name string, o model.Options) (autograd.Aggregator, error) {
	return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
}

// pretrained loads a reference pretrained model (bin0) for seed.
func pretrained(t testing.TB, name, stem string, temperature float64, seed int, p *data.Problem) model.Model {
	t.Helper()
	path := fixture.Reference(t, fmt.Sprintf("pretrained/cora_ml_%s_s%d_bin0.npz", stem, seed))
	m, err := model.Default(testAggregators).New(name, p.Features.Cols, p.NumClasses, model.Options{Temperature: temperature})
	if err != nil {
		t.Fatal(err)
	}
	if err := model.LoadWeights(m, path); err != nil {
		t.Fatal(err)
	}
	return m
}

// A moderate default-run check on cora_ml: DICE's budgets and flip
// bookkeeping on the real graph, and a short PR-BCD against the reference
// GCN that must lower its accuracy.
func TestCoraQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p := loadCora(t, 0)
	gcn := pretrained(t, "gcn", "Vanilla_GCN", 1, 0, p)
	r, err := Run(context.Background(), Config{Attack: "dice", Epsilons: []float64{0.1}, Seed: 0,
		Victims: []Victim{{Name: "gcn", Model: gcn}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Budgets[0]
	if b.Budget != 798 || b.NumFlips != 798 || b.Added != 478 || b.Removed != 320 {
		t.Fatalf("dice: budget %d flips %d (+%d −%d), want 798 (+478 −320)", b.Budget, b.NumFlips, b.Added, b.Removed)
	}
	if b.Adj.Nnz()/2 != 7981+478-320 {
		t.Fatalf("perturbed graph has %d edges", b.Adj.Nnz()/2)
	}
	r, err = Run(context.Background(), Config{Attack: "prbcd", Epsilons: []float64{0.1}, Seed: 0, Surrogate: gcn,
		Options: Options{Epochs: 20, BlockSize: 100_000}, Victims: []Victim{{Name: "gcn", Model: gcn}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("direct PR-BCD (20 epochs, block 1e5): gcn %.4f → %.4f in %.1fs", r.Clean[0].Accuracy,
		r.Budgets[0].Victims[0].Accuracy, r.Budgets[0].Seconds)
	if r.Budgets[0].Victims[0].Accuracy > r.Clean[0].Accuracy-0.05 {
		t.Fatalf("PR-BCD barely hurt: %v → %v", r.Clean[0].Accuracy, r.Budgets[0].Victims[0].Accuracy)
	}
}
