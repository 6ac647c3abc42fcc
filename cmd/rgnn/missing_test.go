package main

import (
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
)

// runCaptured is runRoot with the progress (stderr) captured too.
func runCaptured(t *testing.T, args ...string) (out, progress string, err error) {
	t.Helper()
	r, w, perr := os.Pipe()
	if perr != nil {
		t.Fatal(perr)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	out, err = runRoot(t, args...)
	os.Stderr = saved
	w.Close()
	return out, <-done, err
}

// `rgnn reproduce` and `rgnn run` on a machine without the dataset and
// without network: one error naming the dataset, where rgnn looked and how
// to provide the file; no empty report.
func TestMissingDatasetCLI(t *testing.T) {
	srv := httptest.NewServer(nil)
	srv.Close()
	t.Setenv(data.MirrorEnv, srv.URL)
	dir := filepath.Join(t.TempDir(), "empty")
	out := filepath.Join(t.TempDir(), "out")
	check := func(what, stdout, progress string, err error) {
		t.Helper()
		var me *data.MissingError
		if !errors.As(err, &me) {
			t.Fatalf("%s: %v, want a *data.MissingError", what, err)
		}
		msg := err.Error()
		for _, want := range []string{"dataset cora_ml is not available", "looked in: " + dir + " (--data-dir)",
			"rgnn data fetch --dataset cora_ml", "put cora_ml.npz", "into " + dir} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the error lacks %q:\n%s", what, want, msg)
			}
		}
		all := stdout + progress + msg
		if n := strings.Count(all, "not available") + strings.Count(all, "connection refused"); n != 2 {
			t.Errorf("%s: the failure is told %d times (want once):\nstdout:\n%s\nstderr:\n%s\nerror:\n%s",
				what, n, stdout, progress, msg)
		}
	}
	stdout, progress, err := runCaptured(t, "reproduce", "--dataset", "cora_ml", "--quick", "--data-dir", dir, "--out", out)
	check("reproduce", stdout, progress, err)
	for _, f := range []string{"report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("reproduce wrote %s without results", f)
		}
	}

	exp := filepath.Join(t.TempDir(), "exp.yaml")
	os.WriteFile(exp, []byte("fixed: {dataset: cora_ml, model: gcn}\ngrid: {seed: [0, 1, 2], kind: [train, eval]}\n"), 0o644)
	stdout, progress, err = runCaptured(t, "run", exp, "--data-dir", dir, "--store", filepath.Join(out, "run.db"))
	check("run", stdout, progress, err)
	if errors.As(err, new(usageError)) {
		t.Error("a missing dataset is not a usage error")
	}
}
