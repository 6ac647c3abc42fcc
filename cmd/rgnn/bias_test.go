package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/bias"
)

func TestBiasCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bias")
	out, err := runRoot(t, "bias", "--out", dir, "--trials", "5", "--seed", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep bias.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if len(rep.Eps) != 26 || len(rep.Curves) != 2*9 || len(rep.Files) != 5 {
		t.Fatalf("report: %d ε, %d curves, files %v", len(rep.Eps), len(rep.Curves), rep.Files)
	}
	// The qualitative result of Figure 3 on the command's output: at
	// ε = 0.48 the Medoid and Soft Medoid stay bounded, the mean does not.
	for _, c := range rep.Curves {
		b := c.Bias[24]
		switch {
		case c.Norm == 1000 && c.Estimator == "mean" && b < 400:
			t.Errorf("mean bias %.3g at ε=0.48 (norm 1000), want ≈ 480", b)
		case c.Norm == 1000 && (c.Estimator == "medoid" || c.Estimator == "soft_medoid") && b > 5:
			t.Errorf("%s bias %.3g at ε=0.48 (norm 1000), want bounded", c.Label, b)
		}
	}
	for _, name := range []string{"bias_norm1000.png", "bias_norm10.png"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bias_norm10.svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("svg: %v", err)
	}
	f, err := os.Open(filepath.Join(dir, "bias.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 1+18*26 || recs[0][6] != "bias" {
		t.Fatalf("csv: %d records, %v", len(recs), err)
	}

	// Text output: a table per norm.
	out, err = runRoot(t, "bias", "--out", dir, "--trials", "1", "--norms", "10", "--temperatures", "2")
	if err != nil || !strings.Contains(out, "Soft Medoid T=2") || !strings.Contains(out, "norm 10 ") {
		t.Fatalf("text output %v:\n%s", err, out)
	}

	var ue usageError
	for _, args := range [][]string{
		{"bias", "--trials", "0"},
		{"bias", "--temperatures", "0"},
		{"bias", "--norms", "-1"},
		{"bias", "--max-perturbed", "99"},
		{"bias", "--samples", "x"},
	} {
		if _, err := runRoot(t, append(args, "--out", dir)...); !errors.As(err, &ue) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
