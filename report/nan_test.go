package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
)

// TestGlobalAttackNaNMark: a global-attack cell one of whose seeds had
// NaN logits as the reference has (perturbed_nan_logits) is marked ‡ and
// the caption says why; the other cells are not.
func TestGlobalAttackNaNMark(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, seed := range []int{0, 1} {
		for _, eps := range []float64{0.1, 0.25} {
			p := store.Params{"dataset": "citeseer", "model": "svd_gcn", "seed": seed, "attack": "prbcd", "epsilon": eps}
			m := map[string]any{"clean_acc": 0.65, "perturbed_acc": 0.6 - eps}
			if seed == 1 && eps == 0.25 {
				m["perturbed_acc"], m["perturbed_nan_logits"] = 0.04, "the rank-50 SVD graph has 1 node(s) with a negative row sum"
			}
			k, _ := store.Key("attack", p)
			if _, err := st.Put(ctx, store.Result{Key: k, Kind: "attack", Experiment: "x", Params: p, Metrics: m,
				Started: t0, Finished: t0, Seconds: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep, err := Build(ctx, st, Options{Title: "nan"})
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown("figures")
	if !strings.Contains(md, "0.195 ± 0.155 ‡") || strings.Contains(md, "0.500 ± 0.000 ‡") {
		t.Errorf("want only the ε=0.25 cell marked:\n%s", md)
	}
	if !strings.Contains(md, "‡: in at least one seed") {
		t.Errorf("the caption does not explain ‡:\n%s", md)
	}
}
