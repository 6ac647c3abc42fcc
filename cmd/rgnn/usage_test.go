package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/experiment"
)

// Every mistake in an experiment file is a usage error (exit code 2) that
// names the file and the line.
func TestExperimentFileMistakesAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{"fixed: {kind: train}\ngrid: [0, 1\n", ":2: "},
		{"fixed: a: b\n", ":1: "},
		{"fixd:\n  seed: 1\n", ":1: fixd: did you mean fixed?"},
		{"fixed: {dataset: cora_ml, bogus: 1}\ngcn:\n  fixed: {model: gcn, kind: train}\n", ":1: fixed: unknown parameter \"bogus\""},
		{"fixed: {kind: trian, dataset: cora_ml}\n", ":1: fixed: unknown kind \"trian\" (did you mean train?)"},
	} {
		p := filepath.Join(dir, "exp.yaml")
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := runRoot(t, "run", p, "--dry-run", "--store", filepath.Join(dir, "r.db"))
		if !errors.As(err, new(usageError)) {
			t.Errorf("%q: %v, want a usage error", c.src, err)
			continue
		}
		// The message reads "<file>: line N: ...".
		if msg := strings.Replace(err.Error(), ": line ", ":", 1); !strings.Contains(msg, p+c.want) {
			t.Errorf("%q: %q lacks %q", c.src, err, p+c.want)
		}
	}
}

// The help of run and results names every kind there is.
func TestHelpNamesEveryKind(t *testing.T) {
	for _, cmd := range []string{"run", "results"} {
		out, err := runRoot(t, cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range experiment.DefaultKinds().Names() {
			if !strings.Contains(out, k) {
				t.Errorf("rgnn %s --help does not name the kind %s", cmd, k)
			}
		}
	}
}
