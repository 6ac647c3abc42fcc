package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/benchmark"
)

// `rgnn bench --scale --sizes 2000` runs every stage in a child process
// and prints the command, the machine and one row per stage (JSON and
// table); a second run reuses the generated graph.
func TestBenchScale(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := rgnnCmd(t, append([]string{"bench", "--scale", "--sizes", "2000", "--scale-dir", dir, "--quiet"}, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, errOut.String())
		}
		return out.String()
	}
	var rep benchmark.ScaleReport
	if err := json.Unmarshal([]byte(run("--json")), &rep); err != nil {
		t.Fatal(err)
	}
	var stages []string
	for _, r := range rep.Rows {
		stages = append(stages, r.Stage)
		if r.Nodes != 2000 || r.Edges < 30_000 || r.PeakRSS <= 0 || r.Seconds < 0 || r.CPUSeconds < 0 {
			t.Errorf("row %+v", r)
		}
		if isTraining := r.Stage == "gcn" || r.Stage == "prbcd" || strings.Contains(r.Stage, "gdc") || strings.Contains(r.Stage, "pprgo"); isTraining != (r.Epochs == 2) {
			t.Errorf("row %+v: epochs", r)
		}
	}
	want := []string{"generate", "convert", "load", "ppr", "gcn", "prbcd", "sm_gdc", "prbcd_sm_gdc", "pprgo", "sm_pprgo", "local_prbcd"}
	if !reflect.DeepEqual(stages, want) {
		t.Errorf("stages %v, want %v", stages, want)
	}
	if !strings.Contains(rep.Command, "bench --scale --sizes 2000") || rep.Machine.CPUs < 1 || rep.Machine.GoVersion == "" ||
		rep.Preset != "products" || rep.Started == "" || rep.Finished == "" {
		t.Errorf("header %+v", rep)
	}
	table := run()
	for _, w := range []string{"command: ", "machine: ", "load average", "stage", "peak RSS", "sm_pprgo", "chance", "per target"} {
		if !strings.Contains(table, w) {
			t.Errorf("table lacks %q:\n%s", w, table)
		}
	}
	if strings.Contains(table, "generate") {
		t.Errorf("second run generated again:\n%s", table)
	}
}

// Bad --sizes are usage errors naming the flag.
func TestBenchScaleBadSizes(t *testing.T) {
	for _, sizes := range []string{"10k", "0", "20000000"} {
		cmd := rgnnCmd(t, "bench", "--scale", "--sizes", sizes, "--scale-dir", t.TempDir())
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !strings.Contains(string(out), "sizes") {
			t.Errorf("--sizes %s: %v\n%s", sizes, err, out)
		}
	}
}

// A bad --scale-engine-eps is a usage error naming the flag.
func TestBenchScaleBadEngineEps(t *testing.T) {
	for _, eps := range []string{"-1e-4", "NaN", "+Inf"} {
		cmd := rgnnCmd(t, "bench", "--scale", "--sizes", "10000", "--scale-engine-eps", eps, "--scale-dir", t.TempDir())
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !strings.Contains(string(out), "--scale-engine-eps") {
			t.Errorf("--scale-engine-eps %s: %v\n%s", eps, err, out)
		}
	}
}
