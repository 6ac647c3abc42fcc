package reproduce

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/data"
)

// Run on a missing dataset returns the error and writes no report.
func TestRunMissingDataset(t *testing.T) {
	srv := httptest.NewServer(nil) // a mirror that is not listening: every download fails at once
	srv.Close()
	t.Setenv(data.MirrorEnv, srv.URL)
	dir := filepath.Join(t.TempDir(), "data")
	out := filepath.Join(t.TempDir(), "out")
	_, err := Run(context.Background(), Options{Dataset: "cora_ml", Quick: true, Out: out, DataDir: dir})
	var me *data.MissingError
	if !errors.As(err, &me) {
		t.Fatalf("%v, want a *data.MissingError", err)
	}
	for _, f := range []string{"report.md", "report.html", "figures"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s written for a dataset that is missing", f)
		}
	}
}

// Quick and paper exclude each other.
func TestRunQuickPaper(t *testing.T) {
	if _, err := Run(context.Background(), Options{Dataset: "cora_ml", Quick: true, Paper: true, Out: t.TempDir()}); err == nil {
		t.Fatal("quick and paper together: no error")
	}
}
