package protocol

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// Every attack: at most budget flips, pairs u<v, no self loops, no repeats,
// the perturbed graph symmetric with exactly the flips toggled, and the
// same flips for the same seed.
func TestAttacksBookkeeping(t *testing.T) {
	p := attacktest.SmallProblem(t, 24, 5)
	sur := attacktest.RandomGCN(t, p, 6)
	reg := attack.Default()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			if s, _ := reg.Lookup(name); s.Targeted {
				t.Skip("targeted: TestRunTargeted*")
			}
			cfg := Config{Attack: name, Epsilons: []float64{0.1, 0.3}, Seed: 7, Surrogate: sur,
				Options: attack.Options{Epochs: 20, BlockSize: 100}, Victims: []Victim{{Name: "gcn", Model: sur,
					Train: func(context.Context, *tensor.CSR) (model.Model, error) { return sur, nil }}}}
			r1, err := Run(context.Background(), cfg, p)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := Run(context.Background(), cfg, p)
			if err != nil {
				t.Fatal(err)
			}
			m := p.Adj.Nnz() / 2
			for i, b := range r1.Budgets {
				if b.Budget != attack.Budget(cfg.Epsilons[i], m) || len(b.Flips) > b.Budget {
					t.Fatalf("ε=%v: %d flips for budget %d", b.Epsilon, len(b.Flips), b.Budget)
				}
				if err := attack.CheckFlips(b.Flips, p.Adj.Rows, b.Budget); err != nil {
					t.Fatal(err)
				}
				if b.Added+b.Removed != len(b.Flips) {
					t.Fatalf("added %d + removed %d != %d", b.Added, b.Removed, len(b.Flips))
				}
				checkPerturbed(t, p.Adj, b.Adj, b.Flips)
				if len(r2.Budgets[i].Flips) != len(b.Flips) {
					t.Fatalf("not deterministic: %d vs %d flips", len(r2.Budgets[i].Flips), len(b.Flips))
				}
				for k := range b.Flips {
					if r2.Budgets[i].Flips[k] != b.Flips[k] {
						t.Fatalf("not deterministic at flip %d", k)
					}
				}
			}
			if name == "fgsm" || name == "dice" {
				for _, b := range r1.Budgets {
					if len(b.Flips) != b.Budget {
						t.Fatalf("%s: %d flips, want exactly %d", name, len(b.Flips), b.Budget)
					}
				}
			}
			if name == "fgsm" || name == "metattack" { // incremental: the larger budget extends the smaller
				small, big := r1.Budgets[0].Flips, r1.Budgets[1].Flips
				for k := range small {
					if big[k] != small[k] {
						t.Fatalf("fgsm not incremental at %d", k)
					}
				}
			}
		})
	}
}

// checkPerturbed verifies that pert is symmetric, loop-free and differs from
// adj exactly on the flipped pairs.
func checkPerturbed(t *testing.T, adj, pert *tensor.CSR, flips []attack.Flip) {
	t.Helper()
	n := adj.Rows
	flipped := map[attack.Flip]bool{}
	for _, f := range flips {
		flipped[f] = true
	}
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			a, b := isEdge(adj, u, v), isEdge(pert, u, v)
			if u == v && b {
				t.Fatalf("self loop at %d", u)
			}
			if b != isEdge(pert, v, u) {
				t.Fatalf("perturbed graph not symmetric at (%d,%d)", u, v)
			}
			if u < v && (a != b) != flipped[attack.Flip{U: int32(u), V: int32(v)}] {
				t.Fatalf("pair (%d,%d): clean %v perturbed %v flipped %v", u, v, a, b, flipped[attack.Flip{U: int32(u), V: int32(v)}])
			}
		}
	}
}

// Attacks lower the attacked model's loss-relevant accuracy on average: a
// sanity check that the gradient sign is right.
func TestGradientAttacksHurt(t *testing.T) {
	p := attacktest.SmallProblem(t, 40, 9)
	sur := attacktest.RandomGCN(t, p, 10)
	for _, name := range []string{"fgsm", "pgd", "prbcd", "grbcd"} {
		r, err := Run(context.Background(), Config{Attack: name, Epsilons: []float64{0.2}, Seed: 1, Surrogate: sur,
			Options: attack.Options{Epochs: 30, BlockSize: 400}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Budgets[0].AttackedAccuracy > r.AttackedClean {
			t.Errorf("%s: accuracy rose from %v to %v", name, r.AttackedClean, r.Budgets[0].AttackedAccuracy)
		}
	}
}

// PR-BCD's greedy refinement keeps the bookkeeping (budget, no repeated
// pairs, determinism) and never leaves the attacked model more accurate
// than the unrefined result; the fill step spends the whole budget.
func TestPRBCDRefine(t *testing.T) {
	p := attacktest.SmallProblem(t, 40, 11)
	sur := attacktest.RandomGCN(t, p, 12)
	run := func(refine int) *Result {
		r, err := Run(context.Background(), Config{Attack: "prbcd", Epsilons: []float64{0.15}, Seed: 3, Surrogate: sur,
			Options: attack.Options{Epochs: 30, BlockSize: 300, Refine: refine}}, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base, ref, again := run(0), run(10), run(10)
	b, r := base.Budgets[0], ref.Budgets[0]
	if err := attack.CheckFlips(r.Flips, p.Adj.Rows, r.Budget); err != nil {
		t.Fatal(err)
	}
	checkPerturbed(t, p.Adj, r.Adj, r.Flips)
	if len(r.Flips) != len(b.Flips) {
		t.Fatalf("refinement changed the number of flips: %d → %d", len(b.Flips), len(r.Flips))
	}
	if r.AttackedAccuracy > b.AttackedAccuracy {
		t.Fatalf("refinement raised the accuracy: %v → %v", b.AttackedAccuracy, r.AttackedAccuracy)
	}
	if !slices.Equal(again.Budgets[0].Flips, r.Flips) {
		t.Fatal("refinement not deterministic")
	}
	t.Logf("flips %d/%d, accuracy %.4f → %.4f", len(r.Flips), r.Budget, b.AttackedAccuracy, r.AttackedAccuracy)
}

// --refine against a model behind the tape engine (no gradients for pairs
// outside the block's structure) is an error naming the model, not a
// silently unrefined result.
func TestPRBCDRefineNeedsAnyPair(t *testing.T) {
	p := attacktest.SmallProblem(t, 30, 5)
	m := attacktest.MustModel(t, "sm_gcn", p)
	_, err := Run(context.Background(), Config{Attack: "prbcd", Epsilons: []float64{0.1}, Seed: 1, Adaptive: true,
		Options: attack.Options{Epochs: 10, BlockSize: 30, Refine: 5}, Victims: []Victim{{Name: "sm_gcn", Model: m}}}, p)
	if err == nil || !strings.Contains(err.Error(), "sm_gcn") || !strings.Contains(err.Error(), "tape engine") {
		t.Fatalf("refine with the tape engine: %v", err)
	}
}

// Run and RunTargeted reject an unknown attack name with the known ones,
// from the default registry when the config has none.
func TestUnknownAttack(t *testing.T) {
	p := attacktest.SmallProblem(t, 20, 1)
	_, err := Run(context.Background(), Config{Attack: "nope", Epsilons: []float64{0.1}}, p)
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "prbcd") {
		t.Fatalf("Run: %v", err)
	}
	_, err = RunTargeted(context.Background(), TargetedConfig{Attack: "nope"}, p)
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "nettack") {
		t.Fatalf("RunTargeted: %v", err)
	}
}

// BenchmarkPRBCDCora is 10 PR-BCD epochs (block 1e6) against the reference
// GCN on cora_ml, ε = 0.1.
func BenchmarkPRBCDCora(b *testing.B) {
	p := attacktest.LoadCora(b, 0)
	gcn := attacktest.Pretrained(b, "gcn", "Vanilla_GCN", 1, 0, p)
	for b.Loop() {
		if _, err := Run(b.Context(), Config{Attack: "prbcd", Epsilons: []float64{0.1}, Seed: 0, Surrogate: gcn,
			Options: attack.Options{Epochs: 10}}, p); err != nil {
			b.Fatal(err)
		}
	}
}

// isEdge reports whether adj stores a nonzero entry (u, v).
func isEdge(adj *tensor.CSR, u, v int) bool {
	k, ok := adj.Find(u, v)
	return ok && adj.Values[k] != 0
}
