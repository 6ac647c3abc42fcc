package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

// TestProfileFlags: --cpuprofile and --memprofile write their profiles for
// any subcommand, and an unwritable path is an error naming the flag.
func TestProfileFlags(t *testing.T) {
	dataDir := fixture.DataDir(t)
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	if _, err := runRoot(t, "data", "info", "--data-dir", dataDir, "--dataset", "cora_ml", "--json",
		"--cpuprofile", cpu, "--memprofile", mem); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{cpu, mem} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (empty or missing)", f, err)
		}
	}
	_, err := runRoot(t, "data", "info", "--data-dir", dataDir, "--dataset", "cora_ml",
		"--cpuprofile", filepath.Join(dir, "missing", "cpu.out"))
	if err == nil {
		t.Error("--cpuprofile in a missing folder: no error")
	}
}
