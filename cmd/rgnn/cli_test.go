package main

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/spf13/cobra"
)

func TestDataInfo(t *testing.T) {
	dir := fixture.DataDir(t)
	out, err := runRoot(t, "data", "info", "--data-dir", dir, "--dataset", "citeseer", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var info data.Summary
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	if info.Nodes != 2110 || info.Edges != 3668 || info.Classes != 6 || !info.BinaryFeatures {
		t.Fatalf("citeseer info %+v", info)
	}
}

func TestEvalAndTrainCommands(t *testing.T) {
	dir := fixture.DataDir(t)
	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin0.npz")
	out, err := runRoot(t, "eval", "--data-dir", dir, "--model", "gcn", "--weights", w, "--split-seed", "0", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.NTest != 2530 || math.Abs(rep.TestAccuracy-0.8031620553359684)*2530 > 1.01 || rep.Dataset != "cora_ml" {
		t.Fatalf("eval report %+v", rep)
	}
	g := fixture.Reference(t, "attacks/cora_ml_fgsm_s0_eps0.25.npz")
	if out, err = runRoot(t, "eval", "--data-dir", dir, "--weights", w, "--split-seed", "0", "--graph", g, "--json"); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(out), &rep)
	if rep.TestAccuracy > 0.75 {
		t.Fatalf("accuracy on the FGSM ε=0.25 graph %.4f: the perturbation was not applied", rep.TestAccuracy)
	}

	// Train a few epochs, save, and evaluate the saved weights.
	saved := filepath.Join(t.TempDir(), "w.npz")
	if out, err = runRoot(t, "train", "--data-dir", dir, "--dataset", "citeseer", "--max-epochs", "5", "--quiet",
		"--out", saved, "--json"); err != nil {
		t.Fatal(err)
	}
	var tr trainReport
	json.Unmarshal([]byte(out), &tr)
	if tr.Fit.Epochs != 5 || tr.Weights != saved || tr.NTest != 1870 {
		t.Fatalf("train report %+v", tr)
	}
	if out, err = runRoot(t, "eval", "--data-dir", dir, "--dataset", "citeseer", "--weights", saved, "--json"); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(out), &rep)
	if rep.TestAccuracy != tr.TestAccuracy {
		t.Fatalf("saved weights evaluate to %v, training reported %v", rep.TestAccuracy, tr.TestAccuracy)
	}

	// Train on a perturbed graph (poisoning evaluation of a saved attack):
	// the saved weights evaluate to the same accuracy on that graph.
	if out, err = runRoot(t, "train", "--data-dir", dir, "--max-epochs", "5", "--quiet", "--graph", g,
		"--out", saved, "--json"); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(out), &tr)
	if tr.Graph != g || tr.NTest != 2530 {
		t.Fatalf("train --graph report %+v", tr)
	}
	if out, err = runRoot(t, "train", "--data-dir", dir, "--max-epochs", "1", "--quiet", "--graph", g); err != nil ||
		!strings.Contains(out, "(seed 0, graph "+g+")") {
		t.Fatalf("train --graph text output does not name the graph: %q (%v)", out, err)
	}
	if out, err = runRoot(t, "eval", "--data-dir", dir, "--weights", saved, "--graph", g, "--json"); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(out), &rep)
	if rep.TestAccuracy != tr.TestAccuracy {
		t.Fatalf("weights trained on the perturbed graph evaluate to %v there, training reported %v", rep.TestAccuracy, tr.TestAccuracy)
	}
	if _, err = runRoot(t, "train", "--data-dir", dir, "--max-epochs", "1", "--quiet", "--graph", filepath.Join(t.TempDir(), "none.npz")); err == nil ||
		!strings.Contains(err.Error(), "none.npz") {
		t.Fatalf("missing --graph file: %v", err)
	}
}

func TestCommandErrors(t *testing.T) {
	dir := fixture.DataDir(t)
	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin0.npz")
	var ue usageError
	for _, args := range [][]string{
		{"train", "--data-dir", dir, "--model", "nope"},
		{"train", "--data-dir", dir, "--dataset", "nope"},
		{"train", "--data-dir", dir, "--model", "sm_gdc", "--temperature", "0", "--max-epochs", "1"},
		{"train", "--data-dir", dir, "--model", "sm_gcn", "--k", "0", "--max-epochs", "1"},
		{"train", "--data-dir", dir, "--max-epochs", "0"},
		{"eval", "--data-dir", dir, "--split-seed", "-1"},
		{"train", "--no-such-flag"},
	} {
		if _, err := runRoot(t, args...); !errors.As(err, &ue) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	// A parameter the model does not use (task.Applies) is not validated
	// for it: given as a flag, it is refused as ignored, not as out of range.
	if _, err := runRoot(t, "train", "--data-dir", dir, "--model", "gcn", "--k", "0", "--temperature", "-1",
		"--max-epochs", "1", "--quiet"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "gcn takes no temperature, so it would be ignored") {
		t.Errorf("gcn with --k 0 --temperature -1 (unused): %v, want a usage error saying gcn takes no temperature", err)
	}
	// Runtime errors name the file and the problem.
	bad := filepath.Join(t.TempDir(), "bad.npz")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	_, err := runRoot(t, "eval", "--data-dir", dir, "--weights", bad)
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "bad.npz") {
		t.Errorf("garbage weights: %v", err)
	}
	_, err = runRoot(t, "eval", "--data-dir", dir, "--model", "gdc", "--weights", fixture.Reference(t, "pretrained/cora_ml_RGCN_s0_bin0.npz"))
	if err == nil || !strings.Contains(err.Error(), "layers.0.gcn_0.weight") {
		t.Errorf("weights of another model: %v", err)
	}
	_, err = runRoot(t, "eval", "--data-dir", dir, "--weights", w, "--graph", w)
	if err == nil || !strings.Contains(err.Error(), "edge_index") {
		t.Errorf("a weights file as --graph: %v", err)
	}
}

// TestEveryCommandHasJSON: every command that does work takes --json.
func TestEveryCommandHasJSON(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			walk(s)
		}
		if !c.Runnable() || c.Name() == "help" || c.Name() == "completion" || c.HasParent() && c.Parent().Name() == "completion" {
			return
		}
		if c.Flags().Lookup("json") == nil && c.InheritedFlags().Lookup("json") == nil {
			t.Errorf("%s has no --json", c.CommandPath())
		}
	}
	walk(newRootCmd())
}
