package asmcheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Generated checks that the assembly file asm of the package under test
// (its folder the working directory, pkg its path for the message, e.g.
// ./tensor) is what the generator gen (a `//go:build ignore` program
// taking -o FILE) writes. It is skipped in -short mode and without the go
// tool.
func Generated(t *testing.T, gen, asm, pkg string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the generator")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Skipf("no go tool: %v", err)
	}
	out := filepath.Join(t.TempDir(), asm)
	cmd := exec.Command(goTool, "run", gen, "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run %s: %v\n%s", gen, err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(asm)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s's output: run go generate %s", asm, gen, pkg)
	}
}
