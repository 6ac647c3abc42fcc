package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/fixture"
)

// TestCommandsMatchExperimentRuns runs train, eval, certify and an
// adaptive attack once as commands and once as experiment runs with the
// same parameters: the results are the same bits (one pipeline, two front
// ends).
func TestCommandsMatchExperimentRuns(t *testing.T) {
	dir := fixture.DataDir(t)
	tmp := t.TempDir()
	common := []string{"--data-dir", dir, "--dataset", "citeseer", "--seed", "1", "--max-epochs", "30", "--patience", "30"}
	run := func(args ...string) []byte {
		t.Helper()
		out, err := runRoot(t, append(args, "--json")...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return []byte(out)
	}
	// A perturbed graph to evaluate on: model-free DICE, no victims.
	run("attack", "--data-dir", dir, "--dataset", "citeseer", "--attack", "dice", "--epsilon", "0.1", "--seed", "1",
		"--victim", "", "--out", tmp, "--quiet")
	graph := filepath.Join(tmp, "citeseer_dice_s1_eps0.1.npz")

	var tr trainReport
	json.Unmarshal(run(append([]string{"train", "--quiet"}, common...)...), &tr)
	var ev evalReport
	json.Unmarshal(run(append([]string{"eval", "--quiet", "--graph", graph}, common...)...), &ev)
	var ce certifyReport
	json.Unmarshal(run(append([]string{"certify", "--train", "--p-del", "0.4", "--samples", "30", "--pre-samples", "10"},
		common...)...), &ce)
	var at attackReport
	json.Unmarshal(run(append([]string{"attack", "--attack", "prbcd", "--adaptive", "--epsilon", "0.05", "--epochs", "10",
		"--block-size", "10000", "--victim", "gcn", "--quiet"}, common...)...), &at)

	exp := `name: parity
fixed: {dataset: citeseer, seed: 1, max_epochs: 30, patience: 30, model: gcn}
train: {fixed: {kind: train}}
eval: {fixed: {kind: eval, graph: ` + graph + `}}
certify: {fixed: {kind: certify, p_add: 0, p_del: 0.4, samples: 30, pre_samples: 10}}
attack: {fixed: {kind: attack, attack: prbcd, epsilon: 0.05, adaptive: true, attack_epochs: 10, block_size: 10000, attack_seed: 1}}
`
	file := filepath.Join(tmp, "parity.yaml")
	if err := os.WriteFile(file, []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "results.db")
	if out, err := runRoot(t, "run", file, "--data-dir", dir, "--store", db); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rs []store.Result
	json.Unmarshal(run("results", "--store", db), &rs)
	byKind := map[string]map[string]any{}
	for _, r := range rs {
		byKind[r.Kind] = r.Metrics
	}
	same := func(what string, cli any, exp any) {
		t.Helper()
		c, _ := json.Marshal(cli)
		e, _ := json.Marshal(exp)
		if string(c) != string(e) || string(c) == "null" {
			t.Errorf("%s: command %s, experiment %s", what, c, e)
		}
	}
	same("train test accuracy", tr.TestAccuracy, byKind["train"]["test_accuracy"])
	same("train val accuracy", tr.ValAccuracy, byKind["train"]["val_accuracy"])
	same("train epochs", tr.Fit.Epochs, byKind["train"]["epochs"])
	same("eval accuracy", ev.TestAccuracy, byKind["eval"]["test_accuracy"])
	same("accumulated certifications", ce.AccumulatedCertifications, byKind["certify"]["accumulated_certifications"])
	same("smoothed accuracy", ce.SmoothedAccuracy, byKind["certify"]["smoothed_accuracy"])
	same("certification ratio", ce.CertificationRatio, byKind["certify"]["ratio"])
	if len(at.Budgets) != 1 || len(at.Budgets[0].Victims) != 1 {
		t.Fatalf("attack report %+v", at)
	}
	same("attacked accuracy", at.Budgets[0].Victims[0].Accuracy, byKind["attack"]["perturbed_acc"])
	same("attack flips", at.Budgets[0].NumFlips, byKind["attack"]["flips"])
}
