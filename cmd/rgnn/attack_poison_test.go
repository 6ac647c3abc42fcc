package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
)

// rgnn attack --attack metattack: poisoning end to end on cora_ml with a
// short inner training (3 steps) and tiny budgets: victims retrained per
// budget, incremental flips, saved graphs, --json (its usage errors are in
// TestAttackCommand).
func TestAttackMetattackCommand(t *testing.T) {
	dir := fixture.DataDir(t)
	outDir := t.TempDir()
	out, err := runRoot(t, "attack", "--data-dir", dir, "--attack", "metattack", "--epochs", "3", "--epsilon", "0.0005,0.001", "--hidden", "16",
		"--victim", "gcn", "--seed", "0", "--out", outDir, "--quiet", "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var rep attackReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	if rep.Mode != "poisoning" || len(rep.Budgets) != 2 || rep.Budgets[0].Budget != 4 || rep.Budgets[1].Budget != 8 ||
		len(rep.Files) != 2 || len(rep.Clean) != 1 {
		t.Fatalf("report %+v", rep)
	}
	for _, b := range rep.Budgets {
		if b.NumFlips != b.Budget || b.Added+b.Removed != b.NumFlips || len(b.Victims) != 1 || !(b.Victims[0].Accuracy > 0.5) {
			t.Fatalf("budget %+v", b)
		}
	}
	if filepath.Base(rep.Files[1]) != "cora_ml_metattack_s0_eps0.001.npz" {
		t.Fatalf("file %s", rep.Files[1])
	}
	g, err := data.Load(t.Context(), "cora_ml", data.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	small, err1 := data.LoadPerturbedAdj(rep.Files[0], g.NumNodes())
	big, err2 := data.LoadPerturbedAdj(rep.Files[1], g.NumNodes())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	// incremental: every edge added at ε = 0.0005 is still there at 0.001
	for u := range g.NumNodes() {
		for k := small.Indptr[u]; k < small.Indptr[u+1]; k++ {
			v := int(small.Indices[k])
			_, inClean := g.Adj.Find(u, v)
			if _, inBig := big.Find(u, v); !inClean && !inBig {
				t.Fatalf("edge (%d, %d) added at ε=0.0005 is gone at ε=0.001", u, v)
			}
		}
	}
	if _, err := os.Stat(rep.Files[0]); err != nil {
		t.Fatal(err)
	}
}
