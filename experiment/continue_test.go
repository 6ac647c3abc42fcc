package experiment

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/fixture"
)

// TestPerturbContinuesSmallerBudget: a perturb run of an incremental
// attack continues from the stored run of a smaller ε and stores the same
// perturbed graph, bit for bit, as a run from the clean graph.
func TestPerturbContinuesSmallerBudget(t *testing.T) {
	dir := fixture.DataDir(t)
	ctx := context.Background()
	for _, attack := range []string{"fgsm", "metattack"} {
		t.Run(attack, func(t *testing.T) {
			run := func(eps string) *store.Store {
				st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				e, err := Parse([]byte(`
name: cont
fixed: {dataset: citeseer, kind: perturb, attack: ` + attack + `, seed: 1}
grid: {epsilon: ` + eps + `}
`))
				if err != nil {
					t.Fatal(err)
				}
				env := &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}
				if sum, err := Execute(ctx, env, e, RunOptions{Workers: 1}); err != nil || sum.Ran != sum.Total {
					t.Fatalf("%+v %v", sum, err)
				}
				return st
			}
			both, alone := run("[0.001, 0.0025]"), run("[0.0025]")
			get := func(st *store.Store) store.Result {
				rs, err := st.Query(ctx, store.Filter{Kind: "perturb", Params: map[string]string{"epsilon": "0.0025"}})
				if err != nil || len(rs) != 1 {
					t.Fatalf("%d results, %v", len(rs), err)
				}
				return rs[0]
			}
			a, b := get(both), get(alone)
			if a.Metrics["continued_from"] != 0.001 || b.Metrics["continued_from"] != nil {
				t.Fatalf("continued_from: %v and %v, want 0.001 and none", a.Metrics["continued_from"], b.Metrics["continued_from"])
			}
			for _, m := range []string{"budget", "flips", "added", "removed", "surrogate_perturbed_acc"} {
				if a.Metrics[m] != b.Metrics[m] {
					t.Errorf("%s: continued %v, from the clean graph %v", m, a.Metrics[m], b.Metrics[m])
				}
			}
			if a.Metrics["flips"].(float64) < 5 {
				t.Fatalf("only %v flips: too few to test the continuation", a.Metrics["flips"])
			}
			pa, _ := both.OpenArtifact(a.Artifacts["perturbed_graph"])
			pb, _ := alone.OpenArtifact(b.Artifacts["perturbed_graph"])
			ga, err1 := os.ReadFile(pa)
			gb, err2 := os.ReadFile(pb)
			if err1 != nil || err2 != nil || !bytes.Equal(ga, gb) {
				t.Fatalf("the continued run's graph differs from the one computed from the clean graph (%v %v)", err1, err2)
			}
		})
	}
}
