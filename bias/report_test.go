package bias

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReportFilesTable(t *testing.T) {
	r, err := Run(context.Background(), Config{Trials: 2, Seed: 3, MaxPerturbed: 4, Norms: []float64{10, 2.5}, Temperatures: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	files, err := r.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range []string{"bias.csv", "bias_norm10.png", "bias_norm10.svg", "bias_norm2.5.png", "bias_norm2.5.svg"} {
		want = append(want, filepath.Join(dir, n))
	}
	if !reflect.DeepEqual(files, want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	var csv bytes.Buffer
	if err := WriteCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(files[0]); err != nil || !bytes.Equal(b, csv.Bytes()) {
		t.Fatalf("bias.csv differs from WriteCSV (%v)", err)
	}

	b, err := json.Marshal(r.Report(files))
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Samples != 50 || rep.Trials != 2 || rep.Seed != 3 || len(rep.Eps) != 5 || len(rep.Curves) != 2*5 ||
		rep.Curves[4].Label != "Soft Medoid T=1" || rep.Curves[4].Temperature != 1 || !reflect.DeepEqual(rep.Files, files) {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(string(b), `"estimator":"mean","label":"Mean"`) {
		t.Errorf("JSON: the mean's zero temperature is not omitted: %s", b)
	}

	var tab bytes.Buffer
	if err := r.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(tab.String(), "\n")
	// Per norm: title, header, one line per ε, blank line.
	if len(lines) != 2*(2+5+1)+1 || lines[0] != "Empirical bias B(ε), point mass of norm 10 (50 samples, 2 trials, seed 3)" ||
		!strings.HasSuffix(lines[1], "  Soft Medoid T=1") || !strings.HasPrefix(strings.TrimSpace(lines[2]), "0.00  ") {
		t.Fatalf("table:\n%s", tab.String())
	}
}

// TestValidateNamesParameter: every error starts with the parameter's name
// (its param tag), so front ends can show it as their flag.
func TestValidateNamesParameter(t *testing.T) {
	for param, cfg := range map[string]Config{
		"samples": {Samples: 1}, "dim": {Dim: -1}, "trials": {Trials: -1}, "max_perturbed": {MaxPerturbed: -1},
		"norms": {Norms: []float64{5, -1}}, "temperatures": {Temperatures: []float64{0}},
	} {
		err := cfg.Defaults().Validate()
		if err == nil || !strings.HasPrefix(err.Error(), param+" ") {
			t.Errorf("%s: error %v", param, err)
		}
	}
	if err := (Config{}).Validate(); err == nil {
		t.Error("zero Config (without Defaults) validated")
	}
	if err := (Config{}).Defaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if d := (Config{}).Defaults(); d.MaxPerturbed != 0 {
		t.Errorf("Defaults set MaxPerturbed %d; 0 must stay (it follows Samples)", d.MaxPerturbed)
	}
}
