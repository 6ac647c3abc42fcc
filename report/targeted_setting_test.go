package report

import (
	"testing"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
)

// TestPaperNettackPerDataset: the paper's Nettack cells are compared with
// the shipped file's setting of each dataset (cora_ml round(0.65·degree),
// citeseer round(1·degree)) when both are stored, and a dataset without
// its own setting falls back to the next one stored.
func TestPaperNettackPerDataset(t *testing.T) {
	run := func(dataset string, eps float64) row {
		return decodeRow(experiment.DefaultKinds(), store.Result{Kind: "targeted", Params: store.Params{"dataset": dataset, "attack": "nettack",
			"budget": "epsilon", "epsilon": eps, "targets_from": "gcn", "model": "gcn", "seed": 0}})
	}
	rs := []row{run("cora_ml", 0.65), run("cora_ml", 1), run("citeseer", 0.65), run("citeseer", 1), run("cora", 0.65)}
	for dataset, want := range map[string]string{"cora_ml": "round(0.65·degree)", "citeseer": "round(1·degree)", "cora": "round(0.65·degree)"} {
		s, ok := paperNettackOf(rs, dataset)
		if !ok || s.budget != want {
			t.Errorf("%s: setting %q (%v), want %q", dataset, s.budget, ok, want)
		}
	}
	if s, ok := paperNettackOf(rs[2:3], "citeseer"); !ok || s.budget != "round(0.65·degree)" {
		t.Errorf("citeseer with 0.65 runs only: %q (%v), want the 0.65 setting", s.budget, ok)
	}
}
