package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/report"
)

// TestMain lets tests run the real binary: with RGNN_TEST_RUN_MAIN=1 the
// test binary re-executed as a child behaves exactly like `rgnn`.
func TestMain(m *testing.M) {
	if os.Getenv("RGNN_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{"rgnn"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	code := m.Run()
	fixture.Summary()
	os.Exit(code)
}

// rgnnCmd returns a command running `rgnn args...` as a child process (the
// test binary re-executed).
func rgnnCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "RGNN_TEST_RUN_MAIN=1")
	return cmd
}

const killGrid = `
name: killtest
fixed: {dataset: citeseer, model: gcn, patience: 1000}
grid:
  seed: [0, 1, 2, 3]
  max_epochs: [40, 60]
  kind: [train, eval]
`

// TestRunSurvivesSIGKILL kills `rgnn run` with SIGKILL at random moments
// mid-grid several times, resumes it, and checks that the store ends with
// every result exactly once, none corrupt, every artifact intact.
func TestRunSurvivesSIGKILL(t *testing.T) {
	dataDir := fixture.DataDir(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "kill.yaml")
	if err := os.WriteFile(spec, []byte(killGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "results.db")
	args := []string{"run", spec, "--store", db, "--data-dir", dataDir, "--workers", "2", "--status-every", "0"}

	e, err := experiment.Parse([]byte(killGrid))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := e.Expand(experiment.DefaultKinds())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, r := range runs {
		want[r.Key] = true
	}
	if len(want) != 16 {
		t.Fatalf("%d runs", len(want))
	}

	count := func() int {
		st, err := store.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		rs, err := st.Query(context.Background(), store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	kills, partial := 0, 0
	for attempt := 0; attempt < 12 && kills < 4; attempt++ {
		cmd := rgnnCmd(t, args...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random number (1-3) of runs completed in this
		// invocation plus a random few milliseconds, so the kill lands
		// mid-grid (often mid-run) however fast the machine is.
		target, delay := 1+rng.IntN(3), time.Duration(rng.IntN(40))*time.Millisecond
		reached, readDone := make(chan struct{}), make(chan struct{})
		var log bytes.Buffer
		go func() {
			defer close(readDone)
			sc := bufio.NewScanner(stderr)
			done := 0
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), "] ok ") {
					if done++; done == target {
						close(reached)
					}
				}
			}
		}()
		select {
		case <-readDone: // the grid finished before the kill
			if err := cmd.Wait(); err != nil {
				t.Fatalf("rgnn run exited early: %v\n%s", err, log.String())
			}
			attempt = 99
		case <-reached:
			time.Sleep(delay)
			cmd.Process.Signal(syscall.SIGKILL)
			<-readDone
			cmd.Wait()
			kills++
			n := count()
			if n < len(want) {
				partial++
			}
			t.Logf("kill %d after %d runs + %v: %d/%d results", kills, target, delay, n, len(want))
		}
	}
	if partial == 0 {
		t.Fatalf("no kill landed mid-grid (%d kills): the grid is too fast for this test", kills)
	}
	// Resume to completion.
	out, err := rgnnCmd(t, append(args, "--json")...).Output()
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	var sum experiment.Summary
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if sum.Total != 16 || sum.AlreadyDone+sum.Ran != 16 || sum.Failed != 0 {
		t.Fatalf("resume summary %+v", sum)
	}

	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	rs, err := st.Query(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range rs {
		seen[r.Key]++
		if !want[r.Key] {
			t.Errorf("unexpected result %s %+v", r.Key, r.Params)
		}
		acc, ok := r.Metrics["test_accuracy"].(float64)
		if !ok || !(acc > 0.3 && acc <= 1) {
			t.Errorf("result %s: test accuracy %v", r.Key, r.Metrics["test_accuracy"])
		}
		if r.Kind == "train" {
			p, err := st.OpenArtifact(r.Artifacts["weights"])
			if err != nil {
				t.Fatal(err)
			}
			m, _ := model.Default(nil).New("gcn", 3703, 6, model.Options{})
			if err := model.LoadWeights(m, p); err != nil {
				t.Errorf("result %s: weights: %v", r.Key, err)
			}
		}
	}
	for k := range want {
		if seen[k] != 1 {
			t.Errorf("result %s present %d times", k, seen[k])
		}
	}
	if probs, err := st.Check(ctx); err != nil || len(probs) > 0 {
		t.Fatalf("check: %v %v", err, probs)
	}
	// `rgnn results --check` agrees, and a rerun has nothing to do.
	if out, err := rgnnCmd(t, "results", "--store", db, "--check").CombinedOutput(); err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("results --check: %v\n%s", err, out)
	}
	t.Logf("%d kills (%d mid-grid), resumed: %+v", kills, partial, sum)
}

func TestResultsCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []string{"gcn", "sm_gdc"} {
		p := store.Params{"model": m, "seed": i}
		k, _ := store.Key("train", p)
		st.Put(context.Background(), store.Result{Key: k, Kind: "train", Experiment: "x", Params: p,
			Metrics: map[string]any{"test_accuracy": 0.5 + float64(i)/10, "ratio": []float64{1, 2}}})
	}
	st.Close()
	out, err := runRoot(t, "results", "--store", db, "--format", "csv", "--where", "model=sm_gdc")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "metric.test_accuracy") || !strings.Contains(lines[1], "0.6") ||
		!strings.Contains(lines[1], `"[1,2]"`) {
		t.Fatalf("csv:\n%s", out)
	}
	out, err = runRoot(t, "results", "--store", db, "--json")
	var rs []store.Result
	if err != nil || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 2 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if out, err = runRoot(t, "results", "--store", db); err != nil || !strings.Contains(out, "2 results") {
		t.Fatalf("table: %v\n%s", err, out)
	}
	if _, err := runRoot(t, "results", "--store", db, "--where", "nonsense"); err == nil {
		t.Fatal("bad --where accepted")
	}
}

func TestReportAndReproduceCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"gcn", "sm_gdc"} {
		for seed := range 2 {
			p := store.Params{"dataset": "cora_ml", "model": m, "temperature": 0.5, "seed": seed, "p_add": 0.001, "p_del": 0.4}
			k, _ := store.Key("certify", p)
			acc := map[string]float64{"gcn": 1.5, "sm_gdc": 4.5}[m] + float64(seed)
			st.Put(context.Background(), store.Result{Key: k, Kind: "certify", Params: p, Metrics: map[string]any{
				"accumulated_certifications": acc, "clean_accuracy": 0.8, "ratio": [][]float64{{0.8, 0.5}, {0.3, 0.1}}}})
		}
	}
	rs, _ := st.Query(context.Background(), store.Filter{})
	st.Close()
	out, err := runRoot(t, "report", "--store", db, "--out", filepath.Join(dir, "rep"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| Soft Medoid GDC (T=0.5) | 5.00 ± 0.50 |") || !strings.Contains(out, "| Vanilla GCN | 2.00 ± 0.50 |") {
		t.Fatalf("report:\n%s", out)
	}
	for _, f := range []string{"report.md", "report.html", "figures/cert_ratio_cora_ml_pa0.001_pd0.4.png"} {
		if _, err := os.Stat(filepath.Join(dir, "rep", f)); err != nil {
			t.Error(err)
		}
	}
	vs := report.Verdicts(rs)
	if len(vs) != 1 || !vs[0].SMBetter || vs[0].SMGDC != 5 || vs[0].GCN != 2 {
		t.Fatalf("verdicts %+v", vs)
	}
	out, err = runRoot(t, "reproduce", "--quick", "--print-experiment", "--dataset", "citeseer")
	if err != nil || !strings.Contains(out, "dataset: citeseer") || !strings.Contains(out, "samples: 150") {
		t.Fatalf("print-experiment: %v\n%s", err, out)
	}
	if _, err := runRoot(t, "run", filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("missing experiment file accepted")
	}
}
