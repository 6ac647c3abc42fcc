package experiment_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/rgnn/rgnn/data/synth"
	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
)

// Run a small grid: GCN and Soft Medoid GCN trained on a generated
// PubMed-shaped graph, then attacked with DICE at two budgets. Every result
// lands in the store; running the grid again finds them there.
func Example() {
	dir, _ := os.MkdirTemp("", "rgnn-grid")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	preset, _ := synth.LookupPreset("pubmed")
	preset, _ = preset.Scaled(1500)
	graph := filepath.Join(dir, "pubmed_1500.npz")
	if _, err := synth.Generate(ctx, preset, 0, graph, synth.Options{}); err != nil {
		log.Fatal(err)
	}
	grid := `
name: small
fixed: {dataset: ` + graph + `, max_epochs: 100, attack: dice}
grid:
  kind: [train, attack]
  epsilon: [0.05, 0.2]
gcn: {fixed: {model: gcn}}
sm_gcn: {fixed: {model: sm_gcn, temperature: 0.5, k: 16}}
`
	e, err := experiment.Parse([]byte(grid))
	if err != nil {
		log.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "results.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	env := &experiment.Env{Store: st, Kinds: experiment.DefaultKinds()}
	sum, err := experiment.Execute(ctx, env, e, experiment.RunOptions{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d runs, %d ran, %d failed\n", sum.Total, sum.Ran, sum.Failed)
	attacks, _ := st.Query(ctx, store.Filter{Kind: "attack"})
	for _, r := range attacks {
		m := r.Metrics
		fmt.Printf("%s ε=%v: accuracy drops: %v\n", r.Params["model"], r.Params["epsilon"],
			m["perturbed_acc"].(float64) < m["clean_acc"].(float64))
	}
	again, _ := experiment.Execute(ctx, env, e, experiment.RunOptions{})
	fmt.Println(strings.Repeat("-", 3), "again:", again.AlreadyDone, "already done")
	// Unordered output:
	// 6 runs, 6 ran, 0 failed
	// gcn ε=0.05: accuracy drops: true
	// gcn ε=0.2: accuracy drops: true
	// sm_gcn ε=0.05: accuracy drops: true
	// sm_gcn ε=0.2: accuracy drops: true
	// --- again: 6 already done
}
