package experiment

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

func TestReproduceWritesResults(t *testing.T) {
	out := t.TempDir()
	rep, err := Reproduce(context.Background(), ReproduceConfig{
		Dataset: "citeseer", DataDir: fixture.DataDir(t), OutDir: out, Seeds: []int{0, 1},
		Models:   []ModelSpec{{Label: "Vanilla GCN", Name: "gcn"}, {Label: "Broken", Name: "no_such_model"}},
		Registry: model.Default(nil), Train: train.Config{MaxEpochs: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 4 || rep.Runs[0].Error != "" || rep.Runs[3].Error == "" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	var back Report
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil || json.Unmarshal(b, &back) != nil || len(back.Runs) != 4 {
		t.Fatalf("results.json: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "| Vanilla GCN |") || !strings.Contains(string(md), "failed") {
		t.Fatalf("report.md:\n%s", md)
	}
	if _, err := os.Stat(rep.Runs[0].Weights); err != nil {
		t.Fatalf("weights not saved: %v", err)
	}
}
