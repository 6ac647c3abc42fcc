package protocol

import (
	"context"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
)

// A moderate default-run check on cora_ml: DICE's budgets and flip
// bookkeeping on the real graph, and a short PR-BCD against the reference
// GCN that must lower its accuracy.
func TestCoraQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p := attacktest.LoadCora(t, 0)
	gcn := attacktest.Pretrained(t, "gcn", "Vanilla_GCN", 1, 0, p)
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
		Options: attack.Options{Epochs: 20, BlockSize: 100_000}, Victims: []Victim{{Name: "gcn", Model: gcn}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("direct PR-BCD (20 epochs, block 1e5): gcn %.4f → %.4f in %.1fs", r.Clean[0].Accuracy,
		r.Budgets[0].Victims[0].Accuracy, r.Budgets[0].Seconds)
	if r.Budgets[0].Victims[0].Accuracy > r.Clean[0].Accuracy-0.05 {
		t.Fatalf("PR-BCD barely hurt: %v → %v", r.Clean[0].Accuracy, r.Budgets[0].Victims[0].Accuracy)
	}
}
