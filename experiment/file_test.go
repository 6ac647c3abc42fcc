package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/fixture"
)

const specYAML = `
name: t
seml: {executable: ignored}
fixed:
  dataset: cora_ml
  train: {max_epochs: 5}      # nested → train.max_epochs? no: see below
grid:
  seed: [0, 1]
  kind: [train, certify]
  p_del: {type: choice, options: [0.4, 0.6]}
gcn:
  fixed: {model: gcn, temperature: 0.7}
sm:
  fixed: {model: sm_gdc}
  grid:
    temperature: {type: range, min: 0.5, max: 1.5, step: 0.5}
`

func TestExpandSEMLStyle(t *testing.T) {
	_, err := Parse([]byte(specYAML))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := Parse([]byte(specYAML))
	if _, err := e.Expand(DefaultKinds()); err == nil || !strings.Contains(err.Error(), `unknown parameter "train.max_epochs"`) {
		t.Fatalf("nested fixed should flatten to an unknown dotted name, got %v", err)
	}
	e, err = Parse([]byte(strings.Replace(specYAML, "train: {max_epochs: 5}      # nested → train.max_epochs? no: see below", "max_epochs: 5", 1)))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := e.Expand(DefaultKinds())
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range runs {
		count[r.Block+"/"+r.Kind]++
		if r.Params["max_epochs"] != 5 || r.Params["dataset"] != "cora_ml" {
			t.Fatalf("fixed params lost: %+v", r.Params)
		}
		if r.Kind == "train" {
			if _, ok := r.Params["p_del"]; ok {
				t.Fatalf("train run kept certify parameter: %+v", r.Params)
			}
		}
		if r.Block == "gcn" && r.Params["temperature"] != 1.0 {
			t.Fatalf("gcn keeps a temperature: %+v", r.Params)
		}
	}
	// gcn: 2 seeds train, 2 seeds × 2 p_del certify; sm: × 2 temperatures (0.5, 1.0).
	want := map[string]int{"gcn/train": 2, "gcn/certify": 4, "sm/train": 4, "sm/certify": 8}
	for k, v := range want {
		if count[k] != v {
			t.Fatalf("run counts %v, want %v", count, want)
		}
	}
	if len(runs) != 18 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, bad := range []string{
		"fixed: {kind: train, bogus: 1}",
		"fixed: {kind: nope}",
		"fixed: {kind: train, seed: 0.5}",
		"grid: {seed: []}\nfixed: {kind: train}",
		"fixed: {kind: train, seed: 1}\ngrid: {seed: [1, 2]}",
		"random: {seed: 1}",
		"fixed: {model: gcn}",
	} {
		e, err := Parse([]byte(bad))
		if err == nil {
			_, err = e.Expand(DefaultKinds())
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestExecuteResumesAndReuses runs a tiny grid twice: the second run does
// nothing, and eval reuses the train artifact.
func TestExecuteResumesAndReuses(t *testing.T) {
	dir := fixture.DataDir(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := Parse([]byte(`
name: tiny
fixed: {dataset: citeseer, model: gcn, max_epochs: 3, attack: dice}
grid: {seed: [0, 1], kind: [eval, train, attack]}
`))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}
	ctx := context.Background()
	sum, err := Execute(ctx, env, e, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total != 6 || sum.Ran != 6 || sum.Unavailable != 0 || sum.Failed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	sum, err = Execute(ctx, env, e, RunOptions{Workers: 2})
	if err != nil || sum.AlreadyDone != 6 || sum.Ran != 0 {
		t.Fatalf("second run %+v %v", sum, err)
	}
	trains, _ := st.Query(ctx, store.Filter{Kind: "train"})
	evals, _ := st.Query(ctx, store.Filter{Kind: "eval"})
	if len(trains) != 2 || len(evals) != 2 {
		t.Fatalf("%d train, %d eval results", len(trains), len(evals))
	}
	for _, ev := range evals {
		if ev.Metrics["test_accuracy"] != ev.Metrics["clean_accuracy"] {
			t.Fatalf("eval on the clean graph differs from training: %+v", ev.Metrics)
		}
	}
	// Each attack run applies the perturbation of its own perturb run
	// (one per seed: it does not depend on the victim), with the full budget.
	attacks, _ := st.Query(ctx, store.Filter{Kind: "attack"})
	perturbs, _ := st.Query(ctx, store.Filter{Kind: "perturb"})
	if len(attacks) != 2 || len(perturbs) != 2 {
		t.Fatalf("%d attack, %d perturb results", len(attacks), len(perturbs))
	}
	for _, a := range attacks {
		m := a.Metrics
		if m["flips"] != m["budget"] || m["budget"] != float64(367) || m["mode"] != "model-free" ||
			m["clean_acc"] == nil || m["perturbed_acc"] == nil || a.Artifacts["perturbed_graph"] == "" {
			t.Fatalf("attack metrics %+v artifacts %+v", m, a.Artifacts)
		}
	}
}

// TestShippedExperiments parses and expands every example experiment and
// both reproduce files.
func TestShippedExperiments(t *testing.T) {
	files, err := filepath.Glob("../experiments/*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("experiments: %v %v", files, err)
	}
	counts := map[string]int{}
	for _, f := range files {
		e, err := ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := e.Expand(DefaultKinds())
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		counts[e.Name] = len(runs)
	}
	// Tables 1 and 6: 2 datasets × 3 seeds × (14 trainings + 14 models × 4
	// distributions: edges add, del., add & del., attributes).
	if counts["certification"] != 2*3*(14+14*4) {
		t.Errorf("certification: %d runs", counts["certification"])
	}
	if counts["gat_citeseer_seeds"] != 2*40 {
		t.Errorf("gat_citeseer_seeds: %d runs", counts["gat_citeseer_seeds"])
	}
	for _, quick := range []bool{true, false} {
		e, err := Reproduction("cora_ml", quick)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := e.Expand(DefaultKinds())
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, r := range runs {
			n[r.Kind]++
			if r.Params["dataset"] != "cora_ml" {
				t.Fatalf("dataset not substituted: %+v", r.Params)
			}
		}
		seeds, certs := 3, 3
		if quick {
			seeds, certs = 1, 2
		}
		// Listed trainings; the full run's binary-attribute trainings for the
		// certificates are dependencies, trained on demand.
		if n["train"] != 3*seeds {
			t.Errorf("quick=%v: %d train runs", quick, n["train"])
		}
		if n["certify"] != 3*seeds*certs || n["attack"] != 3*seeds*4 {
			t.Errorf("quick=%v: runs per kind %v", quick, n)
		}
	}
	if _, err := Reproduction("../etc", true); err == nil {
		t.Error("path-like dataset accepted")
	}
}

// TestCertifyAndEvalKinds runs a tiny certificate and an evaluation on a
// reference attacked graph; both reuse one training.
func TestCertifyAndEvalKinds(t *testing.T) {
	dir := fixture.DataDir(t)
	attacked := fixture.Reference(t, "attacks/cora_ml_fgsm_s0_eps0.25.npz")
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := Parse([]byte(`
name: kinds
fixed: {dataset: cora_ml, model: gcn, max_epochs: 60, seed: 0}
cert:
  fixed: {kind: certify, p_add: 0, p_del: 0.4, samples: 30, pre_samples: 10, degree_bins: 3}
clean:
  fixed: {kind: eval}
attacked:
  fixed: {kind: eval, graph: "` + attacked + `"}
`))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}
	ctx := context.Background()
	sum, err := Execute(ctx, env, e, RunOptions{})
	if err != nil || sum.Ran != 3 {
		t.Fatalf("%+v %v", sum, err)
	}
	trains, _ := st.Query(ctx, store.Filter{Kind: "train"})
	if len(trains) != 1 {
		t.Fatalf("%d trainings for three dependent runs", len(trains))
	}
	cs, _ := st.Query(ctx, store.Filter{Kind: "certify"})
	m := cs[0].Metrics
	ac, _ := m["accumulated_certifications"].(float64)
	sa, _ := m["smoothed_accuracy"].(float64)
	if len(cs) != 1 || !(ac > 0) || !(sa > 0.5) || len(m["degree_bins"].([]any)) == 0 || len(m["ratio"].([]any)) < 2 {
		t.Fatalf("certify metrics %+v", m)
	}
	if _, err := st.OpenArtifact(cs[0].Artifacts["votes"]); err != nil {
		t.Fatal(err)
	}
	clean, _ := st.Query(ctx, store.Filter{Kind: "eval", Params: map[string]string{"graph": ""}})
	att, _ := st.Query(ctx, store.Filter{Kind: "eval", Params: map[string]string{"graph": attacked}})
	if len(clean) != 1 || len(att) != 1 {
		t.Fatalf("eval results %d %d", len(clean), len(att))
	}
	ca, aa := clean[0].Metrics["test_accuracy"].(float64), att[0].Metrics["test_accuracy"].(float64)
	if !(ca > 0.7) || !(aa < ca-0.05) {
		t.Fatalf("clean accuracy %.3f, on the FGSM ε=0.25 graph %.3f", ca, aa)
	}
}

// A small file whose grids cross to millions of runs is refused before
// anything is built (it used to exhaust memory).
func TestExpandRefusesHugeGrids(t *testing.T) {
	src := "fixed: {kind: train}\ngrid:\n"
	for i := range 14 {
		src += fmt.Sprintf("  seed%d: [1, 2, 3]\n", i)
	}
	e, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Expand(DefaultKinds()); err == nil || !strings.Contains(err.Error(), "4782969") {
		t.Fatalf("3^14 runs: %v, want an error naming the count", err)
	}
}
