package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
)

// rgnn attack --targets: usage errors, and a tiny end-to-end run of both
// targeted attacks on cora_ml against the reference GCN (two targets, a
// short local PR-BCD), with the perturbed graphs saved and read back.
func TestAttackTargetedCommand(t *testing.T) {
	dir := fixture.DataDir(t)
	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin0.npz")
	tmp := t.TempDir()
	tf := filepath.Join(tmp, "targets.txt")
	if err := os.WriteFile(tf, []byte("12\n40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(tmp, "bad.txt")
	if err := os.WriteFile(bad, []byte("12 12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--attack", "nettack"},                                   // no --targets
		{"--attack", "prbcd", "--targets", "auto"},                // not targeted
		{"--attack", "dice", "--budget", "degree+2"},              // --budget on a global attack
		{"--attack", "nettack", "--targets", tf, "--budget", "x"}, // bad budget
		{"--attack", "nettack", "--targets", tf, "--budget", "degree+1", "--epsilon", "0.5"},
		{"--attack", "nettack", "--targets", tf, "--epsilon", "0"},
		{"--attack", "nettack", "--targets", tf, "--epsilon", "200"},
		{"--attack", "nettack", "--targets", bad},
		{"--attack", "nettack", "--targets", filepath.Join(tmp, "missing.txt")},
		{"--attack", "local_prbcd", "--targets", tf, "--lr-factor", "-1"},
		{"--attack", "nettack", "--targets", tf, "--degree-test", "loose"},
		{"--attack", "metattack", "--degree-test", "loose"},
		{"--attack", "local_prbcd", "--targets", tf, "--refine", "3"},
		{"--attack", "local_prbcd", "--targets", tf, "--degree-test", "off"},
		{"--attack", "nettack", "--targets", tf, "--perturb", "edges"},
		{"--attack", "local_prbcd", "--targets", tf, "--perturb", "features"},
		{"--attack", "local_prbcd", "--targets", tf, "--perturb", "structure"}, // explicit on an edge-only attack
		{"--attack", "dice", "--perturb", "both"},
		// flags nettack ignores
		{"--attack", "nettack", "--targets", tf, "--loss", "ce"},
		{"--attack", "nettack", "--targets", tf, "--epochs", "10"},
		{"--attack", "nettack", "--targets", tf, "--block-size", "10"},
		{"--attack", "nettack", "--targets", tf, "--lr-factor", "0.1"},
		{"--attack", "nettack", "--targets", tf, "--adaptive"},
		{"--attack", "nettack", "--targets", tf, "--surrogate-weights", w},
		{"--attack", "local_prbcd", "--targets", tf, "--adaptive", "--surrogate-weights", w},
	} {
		_, err := runRoot(t, append(append([]string{"attack"}, args...), "--data-dir", dir, "--weights", w, "--quiet")...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	// a bad --out fails before the attack (a file where the directory should be)
	badOut := filepath.Join(bad, "out")
	if _, err := runRoot(t, "attack", "--data-dir", dir, "--attack", "nettack", "--targets", tf, "--weights", w,
		"--out", badOut, "--quiet"); err == nil || !strings.Contains(err.Error(), "--out "+badOut) {
		t.Errorf("--out under a file: %v", err)
	}
	if testing.Short() {
		t.Skip("short: no end-to-end run")
	}
	for _, name := range []string{"nettack", "local_prbcd"} {
		out := filepath.Join(tmp, name)
		args := []string{"attack", "--data-dir", dir, "--attack", name, "--targets", tf, "--victim", "gcn", "--weights", w,
			"--seed", "0", "--out", out, "--quiet", "--json"}
		if name == "local_prbcd" {
			args = append(args, "--adaptive", "--epochs", "40")
		}
		s, err := runRoot(t, args...)
		if err != nil {
			t.Fatal(name, err, s)
		}
		var rep targetedReport
		if err := json.Unmarshal([]byte(s), &rep); err != nil {
			t.Fatal(err, s)
		}
		if len(rep.Rows) != 2 || len(rep.Summary) != 1 || len(rep.Files) != 2 {
			t.Fatalf("%s: %d rows, %d summaries, files %v", name, len(rep.Rows), len(rep.Summary), rep.Files)
		}
		wantMode := map[string]string{"nettack": "transfer", "local_prbcd": "direct"}[name]
		if rep.Mode != wantMode {
			t.Fatalf("%s: mode %s", name, rep.Mode)
		}
		for i, r := range rep.Rows {
			v := r.Victims[0]
			if r.Budget != r.Degree+2 || len(v.Flips) > r.Budget || v.Margin >= v.CleanMargin {
				t.Fatalf("%s target %d: budget %d degree %d, %d flips, margin %.3f → %.3f", name, r.Target, r.Budget, r.Degree,
					len(v.Flips), v.CleanMargin, v.Margin)
			}
			adj, err := data.LoadPerturbedAdj(rep.Files[i], 2810)
			if err != nil {
				t.Fatal(err)
			}
			if want := 2*7981 + 2*(v.Added-v.Removed); adj.Nnz() != want {
				t.Fatalf("%s: saved graph has %d entries, want %d", rep.Files[i], adj.Nnz(), want)
			}
			if !strings.Contains(filepath.Base(rep.Files[i]), "_node") {
				t.Fatalf("file %s", rep.Files[i])
			}
		}
		t.Logf("%s: %+v", name, rep.Summary[0])
	}
}

// rgnn attack --attack nettack --perturb both|features on the binarised
// cora_ml against the bin1 reference GCN: feature flips are reported per
// target and saved with the graph; the text output names them.
func TestAttackTargetedFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("short: no end-to-end run")
	}
	dir := fixture.DataDir(t)
	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin1.npz")
	tmp := t.TempDir()
	tf := filepath.Join(tmp, "targets.txt")
	if err := os.WriteFile(tf, []byte("12\n40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"attack", "--data-dir", dir, "--binary-attr", "--attack", "nettack", "--targets", tf, "--victim", "gcn",
		"--weights", w, "--seed", "0", "--quiet"}
	// without --binary-attr the TF-IDF features cannot be flipped: a runtime error
	noBin := append([]string{}, base[:3]...)
	noBin = append(noBin, base[4:]...)
	if _, err := runRoot(t, append(noBin, "--perturb", "features")...); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("TF-IDF features: %v", err)
	} else if errors.As(err, new(usageError)) {
		t.Errorf("TF-IDF features: %v is a usage error", err)
	}
	for _, perturb := range []string{"features", "both"} {
		out := filepath.Join(tmp, perturb)
		s, err := runRoot(t, append(base, "--perturb", perturb, "--out", out, "--json")...)
		if err != nil {
			t.Fatal(perturb, err, s)
		}
		var rep targetedReport
		if err := json.Unmarshal([]byte(s), &rep); err != nil {
			t.Fatal(err, s)
		}
		if rep.Perturb != perturb || len(rep.Rows) != 2 || len(rep.Files) != 2 {
			t.Fatalf("%s: perturb %q, %d rows, files %v", perturb, rep.Perturb, len(rep.Rows), rep.Files)
		}
		nf := 0
		for i, r := range rep.Rows {
			v := r.Victims[0]
			nf += len(v.FeatureFlips)
			if len(v.Flips)+len(v.FeatureFlips) > r.Budget || (perturb == "features" && len(v.Flips) > 0) {
				t.Fatalf("%s target %d: %d edge + %d feature flips, budget %d", perturb, r.Target, len(v.Flips), len(v.FeatureFlips), r.Budget)
			}
			a, err := npz.Open(rep.Files[i])
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Has("feature_flips"); got != (len(v.FeatureFlips) > 0) {
				t.Fatalf("%s: feature_flips saved %v, %d flips", rep.Files[i], got, len(v.FeatureFlips))
			}
			// eval --graph applies the saved feature flips
			es, err := runRoot(t, "eval", "--data-dir", dir, "--binary-attr", "--weights", w, "--split-seed", "0",
				"--graph", rep.Files[i], "--json")
			if err != nil {
				t.Fatal(err)
			}
			var ev evalReport
			if err := json.Unmarshal([]byte(es), &ev); err != nil || ev.FeatureFlips != len(v.FeatureFlips) {
				t.Fatalf("eval --graph %s: %+v (%v), want %d feature flips", rep.Files[i], ev, err, len(v.FeatureFlips))
			}
		}
		if perturb == "features" && nf == 0 {
			t.Fatalf("%s: no feature flip", perturb) // (with both, edges win at these two targets)
		}
		t.Logf("%s: %+v", perturb, rep.Summary[0])
	}
	s, err := runRoot(t, append(base, "--perturb", "both")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "perturb both") || !strings.Contains(s, "feature flips") {
		t.Fatalf("text output without the feature flips:\n%s", s)
	}
}

// rgnn attack --attack local_prbcd --adaptive on PPRGo and Soft Median
// PPRGo (trained here) on a generated Products-shaped graph: direct mode
// through the local engine, and every row with the relaxed-update margin
// beside the recomputed one (JSON and text).
func TestAttackTargetedPPRGo(t *testing.T) {
	if testing.Short() {
		t.Skip("short: no end-to-end run")
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, "p.npz")
	if s, err := runRoot(t, "data", "generate", "--preset", "products", "--nodes", "600", "--seed", "0", "--out", file); err != nil {
		t.Fatal(err, s)
	}
	args := []string{"attack", "--dataset", file, "--attack", "local_prbcd", "--adaptive", "--victim", "pprgo,softmedian_pprgo",
		"--targets", "auto", "--epsilon", "0.5", "--seed", "0", "--epochs", "30", "--max-epochs", "30", "--quiet"}
	s, err := runRoot(t, append(args, "--json")...)
	if err != nil {
		t.Fatal(err, s)
	}
	var rep targetedReport
	if err := json.Unmarshal([]byte(s), &rep); err != nil {
		t.Fatal(err, s)
	}
	if rep.Mode != "direct" || len(rep.Rows) == 0 || len(rep.Summary) != 2 {
		t.Fatalf("mode %s, %d rows, %d summaries", rep.Mode, len(rep.Rows), len(rep.Summary))
	}
	for _, r := range rep.Rows {
		for _, v := range r.Victims {
			if v.RelaxedMargin == nil || len(v.Flips) > r.Budget {
				t.Fatalf("target %d %s: %+v", r.Target, v.Name, v)
			}
		}
	}
	text, err := runRoot(t, args...)
	if err != nil {
		t.Fatal(err, text)
	}
	if !strings.Contains(text, "relaxed") {
		t.Errorf("text lacks the relaxed column:\n%s", text)
	}
}
