package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/data"
)

func TestDataGenerateAndInfo(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.npz")
	res, err := runRoot(t, "data", "generate", "--preset", "arxiv", "--nodes", "3000", "--seed", "4", "--out", out, "--quiet", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var gen dataGenerateOutput
	if err := json.Unmarshal([]byte(res), &gen); err != nil {
		t.Fatal(err)
	}
	if gen.Stats.Nodes != 3000 || gen.Preset.Features != 128 || gen.Stats.Edges < 15000 {
		t.Fatalf("generate output %+v", gen)
	}
	res, err = runRoot(t, "data", "info", "--dataset", out, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var info data.Summary
	if err := json.Unmarshal([]byte(res), &info); err != nil {
		t.Fatal(err)
	}
	if info.RawNodes != 3000 || info.Nodes != gen.Stats.LargestComponent || info.Features != 128 || info.Classes != 40 ||
		info.Split != "fixed" || info.SplitSizes.Train != 1611 || info.SplitSizes.Valid != 528 || info.SplitSizes.Test != 861 {
		t.Fatalf("info %+v", info)
	}
	// Same seed, same bytes.
	again := filepath.Join(dir, "h.npz")
	if _, err := runRoot(t, "data", "generate", "--preset", "arxiv", "--nodes", "3000", "--seed", "4", "--out", again, "--quiet"); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed wrote different files")
	}
	for _, args := range [][]string{
		{"data", "generate", "--preset", "nope", "--out", out},
		{"data", "generate", "--preset", "arxiv"},
		{"data", "generate", "--preset", "arxiv", "--nodes", "1", "--out", out},
	} {
		if _, err := runRoot(t, args...); err == nil {
			t.Fatalf("%v: no error", args)
		} else if _, ok := err.(usageError); !ok {
			t.Fatalf("%v: %v is not a usage error", args, err)
		}
	}
}
