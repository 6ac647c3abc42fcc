package nettack_test

import (
	"context"
	"math"
	"testing"

	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/fixture"
)

// TestCoraMLConsistency trains the surrogate on cora_ml (seed 0), attacks
// a few test nodes with budget deg+2 and checks that the closed-form
// surrogate margins equal Â'²·XW recomputed on each perturbed graph, that
// the degree test holds and that the attack lowers the margin.
func TestCoraMLConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a surrogate on cora_ml")
	}
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	tr, val, test, err := data.Split(g.Labels, g.NumClasses, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	sur, err := nettack.TrainSurrogate(context.Background(), g.Adj, g.Features, g.Labels, g.NumClasses, tr, val, nettack.SurrogateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deg := graph.Degrees(g.Adj)
	var targets []nettack.Target
	for _, u := range test[:6] {
		targets = append(targets, nettack.Target{Node: u, Budget: nettack.BudgetDegreePlus2(deg[u])})
	}
	res, err := nettack.Attack(context.Background(), g.Adj, sur, g.Labels, targets, nettack.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		p, err := nettack.Perturbed(g.Adj, r)
		if err != nil {
			t.Fatal(err)
		}
		z := sur.Logits(p).Row(r.Node)
		y := g.Labels[r.Node]
		best := math.Inf(-1)
		for c, v := range z {
			if c != int(y) {
				best = max(best, float64(v))
			}
		}
		m := float64(z[y]) - best
		if math.Abs(m-r.SurrogateAfter) > 1e-3*max(1, math.Abs(m)) {
			t.Errorf("node %d: closed-form margin %g, recomputed %g", r.Node, r.SurrogateAfter, m)
		}
		if r.SurrogateAfter >= r.SurrogateBefore {
			t.Errorf("node %d: margin %g → %g did not drop", r.Node, r.SurrogateBefore, r.SurrogateAfter)
		}
		if l := nettack.LikelihoodRatio(deg, graph.Degrees(p)); l >= nettack.DefaultLLCutoff {
			t.Errorf("node %d: Λ = %g ≥ cutoff", r.Node, l)
		}
		t.Logf("node %d (deg %d): %d flips, surrogate margin %+.3f → %+.3f", r.Node, deg[r.Node], len(r.Flips), r.SurrogateBefore, r.SurrogateAfter)
	}
}
