package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

// rgnn attack: DICE on cora_ml against the reference GCN, saved graphs that
// `rgnn eval --graph` reads back with the same accuracy, and usage errors.
func TestAttackCommand(t *testing.T) {
	dir := fixture.DataDir(t)
	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin0.npz")
	outDir := t.TempDir()
	out, err := runRoot(t, "attack", "--data-dir", dir, "--attack", "dice", "--epsilon", "0.1,0.25", "--victim", "gcn",
		"--weights", w, "--seed", "0", "--out", outDir, "--quiet", "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var rep attackReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	if len(rep.Budgets) != 2 || rep.Budgets[0].Budget != 798 || rep.Budgets[1].Budget != 1995 || len(rep.Files) != 2 {
		t.Fatalf("report %+v", rep)
	}
	b := rep.Budgets[1]
	if b.Added+b.Removed != b.NumFlips || b.Victims[0].Accuracy >= rep.Clean[0].Accuracy {
		t.Fatalf("ε=0.25: %+v (clean %+v)", b, rep.Clean)
	}
	if filepath.Base(rep.Files[1]) != "cora_ml_dice_s0_eps0.25.npz" {
		t.Fatalf("file %s", rep.Files[1])
	}
	out, err = runRoot(t, "eval", "--data-dir", dir, "--weights", w, "--split-seed", "0", "--graph", rep.Files[1], "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ev evalReport
	json.Unmarshal([]byte(out), &ev)
	if ev.TestAccuracy != b.Victims[0].Accuracy {
		t.Fatalf("eval --graph %.4f, attack reported %.4f", ev.TestAccuracy, b.Victims[0].Accuracy)
	}
	for _, args := range [][]string{
		{"attack", "--attack", "nope"},
		{"attack", "--epsilon", "1.5"},
		{"attack", "--loss", "hinge"},
		{"attack", "--surrogate", "gat"},
		{"attack", "--attack", "fgsm", "--refine", "5"},
		{"attack", "--refine", "-1"},
		{"attack", "--attack", "metattack", "--degree-test", "strict"},
		{"attack", "--attack", "fgsm", "--degree-test", "off"},
		{"attack", "--attack", "pgd", "--variant", "approx"},
		{"attack", "--attack", "metattack", "--variant", "exact"},
		{"attack", "--attack", "metattack", "--weights", "w.npz"}, // poisoning: victims are trained here
		// flags the attack ignores
		{"attack", "--attack", "dice", "--loss", "ce"},
		{"attack", "--attack", "metattack", "--loss", "ce"},
		{"attack", "--attack", "dice", "--adaptive"},
		{"attack", "--attack", "metattack", "--adaptive"},
		{"attack", "--attack", "dice", "--surrogate-weights", "w.npz"},
		{"attack", "--attack", "metattack", "--surrogate-weights", "w.npz"},
		{"attack", "--attack", "prbcd", "--adaptive", "--surrogate-weights", "w.npz"},
		{"attack", "--attack", "dice", "--epochs", "10"},
		{"attack", "--attack", "fgsm", "--epochs", "10"},
		{"attack", "--attack", "metattack", "--block-size", "10"},
		{"attack", "--attack", "pgd", "--block-size", "10"},
		{"attack", "--attack", "dice", "--block-size", "10"},
		{"attack", "--attack", "prbcd", "--lr-factor", "2"},
		{"attack", "--attack", "metattack", "--epsilon", "0.002,0.001"}, // incremental: ε must increase
		{"attack", "--attack", "fgsm", "--epsilon", "0.25,0.1"},
	} {
		_, err := runRoot(t, append(args, "--data-dir", dir, "--quiet")...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}
