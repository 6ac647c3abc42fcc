package experiment

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/task"
)

// TestPerturbContinuesSmallerBudget: a perturb run of an incremental
// attack continues from the stored run of a smaller ε, or from the flips a
// stopped run saved, and stores the same perturbed graph, bit for bit, as a
// run from the clean graph.
func TestPerturbContinuesSmallerBudget(t *testing.T) {
	dir := fixture.DataDir(t)
	ctx := context.Background()
	for _, name := range []string{"fgsm", "metattack"} {
		t.Run(name, func(t *testing.T) {
			open := func() (*store.Store, *Env) {
				st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				return st, &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}
			}
			run := func(env *Env, eps string) {
				e, err := Parse([]byte(`
name: cont
fixed: {dataset: citeseer, kind: perturb, attack: ` + name + `, seed: 1}
grid: {epsilon: ` + eps + `}
`))
				if err != nil {
					t.Fatal(err)
				}
				if sum, err := Execute(ctx, env, e, RunOptions{Workers: 1}); err != nil || sum.Ran != sum.Total {
					t.Fatalf("%+v %v", sum, err)
				}
			}
			get := func(st *store.Store, eps string) store.Result {
				rs, err := st.Query(ctx, store.Filter{Kind: "perturb", Params: map[string]string{"epsilon": eps}})
				if err != nil || len(rs) != 1 {
					t.Fatalf("%d results, %v", len(rs), err)
				}
				return rs[0]
			}
			graph := func(st *store.Store, r store.Result) []byte {
				path, err := st.OpenArtifact(r.Artifacts["perturbed_graph"])
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			both, envBoth := open()
			run(envBoth, "[0.001, 0.0025]")
			alone, envAlone := open()
			run(envAlone, "[0.0025]")
			a, b := get(both, "0.0025"), get(alone, "0.0025")
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
			if !bytes.Equal(graph(both, a), graph(alone, b)) {
				t.Fatal("the continued run's graph differs from the one computed from the clean graph")
			}

			// A stopped run's saved flips: the smaller budget's (the first
			// flips of the larger one) saved as the checkpoint of the
			// larger run, in a store without the smaller run.
			small := get(both, "0.001")
			k, _ := envBoth.Kinds.Lookup("perturb")
			spec, err := k.Decode(small.Params)
			if err != nil {
				t.Fatal(err)
			}
			ps := *spec.(*task.Perturb)
			p, err := envBoth.Problem(ctx, ps.Data, ps.Seed)
			if err != nil {
				t.Fatal(err)
			}
			path, _ := both.OpenArtifact(small.Artifacts["perturbed_graph"])
			adj, err := data.LoadPerturbedGraph(path, p.Adj)
			if err != nil {
				t.Fatal(err)
			}
			first, err := attack.FlipsBetween(p.Adj, adj)
			if err != nil || len(first) == 0 {
				t.Fatalf("%d flips, %v", len(first), err)
			}
			resumed, envResumed := open()
			envResumed.checkpointAfter = time.Nanosecond
			cp := newFlipCheckpoint(envResumed, b.Key)
			cp.origin(0.001, 12.5) // as a run that continued from ε = 0.001 after 12.5 s
			cp.save(b.Key)(first)
			if got, from, secs := cp.load(b.Key, p.Adj.Rows, 1000); len(got) != len(first) || from != 0.001 || secs < 12.5 {
				t.Fatalf("saved %d flips from ε = 0.001 after 12.5 s, loaded %d from %v after %v s", len(first), len(got), from, secs)
			}
			if got, _, _ := cp.load("another run", p.Adj.Rows, 1000); got != nil {
				t.Fatal("flips of another run loaded")
			}
			run(envResumed, "[0.0025]")
			c := get(resumed, "0.0025")
			if c.Metrics["resumed_flips"] != float64(len(first)) {
				t.Fatalf("resumed_flips %v, want %d", c.Metrics["resumed_flips"], len(first))
			}
			// It records what the saved flips say of their run, as the run
			// would have uninterrupted.
			if c.Metrics["continued_from"] != 0.001 || !(c.Metrics["attack_seconds"].(float64) >= 12.5) {
				t.Fatalf("continued_from %v, attack_seconds %v; want 0.001 and at least 12.5", c.Metrics["continued_from"], c.Metrics["attack_seconds"])
			}
			if !bytes.Equal(graph(resumed, c), graph(alone, b)) {
				t.Fatal("the resumed run's graph differs from the one computed from the clean graph")
			}
			if _, err := os.Stat(cp.path); !os.IsNotExist(err) {
				t.Fatalf("the saved flips are still there after the run: %v", err)
			}
		})
	}
}

// TestExecuteAllOnePool: several experiments run as one grid on one pool:
// every run once, recorded with the first experiment that has it, and
// resumed as a whole.
func TestExecuteAllOnePool(t *testing.T) {
	dir := fixture.DataDir(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := Parse([]byte("name: a\nfixed: {dataset: citeseer, model: gcn, max_epochs: 3, kind: train}\ngrid: {seed: [0, 1, 5]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte("name: b\nfixed: {dataset: citeseer, model: gcn, max_epochs: 3}\ngrid: {seed: [0, 1, 5], kind: [train, eval]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}
	sum, err := ExecuteAll(ctx, env, []*Experiment{a, b}, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total != 6 || sum.Ran != 6 || sum.Failed != 0 || sum.Experiment != "a, b" {
		t.Fatalf("summary %+v, want 6 distinct runs of a, b", sum)
	}
	rs, err := st.Query(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if want := map[string]string{"train": "a", "eval": "b"}[r.Kind]; r.Experiment != want {
			t.Errorf("%s run recorded by %q, want %q", r.Kind, r.Experiment, want)
		}
	}
	sum, err = ExecuteAll(ctx, env, []*Experiment{a, b}, RunOptions{Workers: 2})
	if err != nil || sum.AlreadyDone != 6 || sum.Ran != 0 {
		t.Fatalf("second run %+v %v", sum, err)
	}
}
