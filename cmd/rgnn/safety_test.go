package main

// Tests that nothing a user passes destroys a file, races, or is silently
// reinterpreted: each fails on the code before the checks it names.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/internal/fixture"
)

// TestReadOnlyCommandsCreateNoStore: `results` and `report` on a store
// that does not exist fail with an error naming it (and the store `rgnn
// reproduce` wrote), instead of creating an empty one and printing "0
// results".
func TestReadOnlyCommandsCreateNoStore(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	typo := filepath.Join(dir, "typo.db")
	for _, args := range [][]string{
		{"results", "--store", typo},
		{"results", "--store", typo, "--check"},
		{"report", "--store", typo},
		{"results", "export", filepath.Join(dir, "out.jsonl"), "--store", typo},
		{"results", "compare", filepath.Join(dir, "other.db"), "--store", typo},
		{"run", "--status", "--store", typo},
	} {
		_, err := runRoot(t, args...)
		if err == nil || !strings.Contains(err.Error(), typo+" does not exist") ||
			!strings.Contains(err.Error(), "results/reproduce-<dataset>") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("read-only commands created %v", es)
	}
	// After `rgnn reproduce` the error names the store it wrote.
	rep := filepath.Join("results", "reproduce-cora_ml-quick", "results.db")
	if _, err := runRoot(t, "results", "export", filepath.Join(dir, "x.db"), "--store", rep); err == nil {
		t.Fatal("export from a missing store accepted")
	}
	st, err := openStoreAt(rep)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err = runRoot(t, "results")
	if err == nil || !strings.Contains(err.Error(), "here: "+rep) {
		t.Errorf("results with the default store after reproduce: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a failed export left its new store behind")
	}
	// A dry run lists the runs without creating the store.
	exp := filepath.Join(t.TempDir(), "e.yaml")
	os.WriteFile(exp, []byte("fixed: {kind: bias, trials: 1}\n"), 0o644)
	out, err := runRoot(t, "run", exp, "--dry-run", "--store", typo)
	if err != nil || !strings.Contains(out, "not created yet") {
		t.Errorf("dry run: %v\n%s", err, out)
	}
	if _, err := os.Stat(typo); !errors.Is(err, os.ErrNotExist) {
		t.Error("--dry-run created the store")
	}
}

// TestUnknownStoreSchemeRefused: --store mysql://... is an error, not
// folders mysql:/x@y/ with an SQLite file in them.
func TestUnknownStoreSchemeRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	exp := filepath.Join(t.TempDir(), "e.yaml")
	os.WriteFile(exp, []byte("fixed: {kind: bias, trials: 1}\n"), 0o644)
	for _, args := range [][]string{
		{"run", exp, "--store", "mysql://x@y/z"},
		{"results", "--store", "mysql://x@y/z"},
		{"worker", "--store", "mysql://x@y/z"},
	} {
		_, err := runRoot(t, args...)
		if err == nil || !strings.Contains(err.Error(), "unknown URL scheme mysql://") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("created %v", es)
	}
}

// TestConcurrentRunsOnFreshStore starts 8 `rgnn run`s at once on a fresh
// SQLite store (a few rounds; the store package's TestConcurrentFirstOpen
// does 20 rounds in process): every one succeeds and the grid is done once.
// Before, most of the later ones failed with "migration 1: SQL logic
// error: table results already exists".
func TestConcurrentRunsOnFreshStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 24 processes")
	}
	exp := filepath.Join(t.TempDir(), "e.yaml")
	os.WriteFile(exp, []byte("fixed: {kind: bias, trials: 1, norms: [10], temperatures: [1], samples: 20}\ngrid: {seed: [0, 1, 2, 3]}\n"), 0o644)
	for round := range 3 {
		db := filepath.Join(t.TempDir(), "results.db")
		var wg sync.WaitGroup
		outs := make([]string, 8)
		errs := make([]error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := rgnnCmd(t, "run", exp, "--store", db, "--status-every", "0")
				b, err := cmd.CombinedOutput()
				outs[i], errs[i] = string(b), err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, run %d: %v\n%s", round, i, err, outs[i])
			}
		}
		out, err := runRoot(t, "results", "--store", db, "--json")
		if err != nil || strings.Count(out, `"key"`) != 4 {
			t.Fatalf("round %d: %v\n%s", round, err, out)
		}
	}
}

// openStoreAt creates a store at path (as rgnn reproduce does).
func openStoreAt(path string) (interface{ Close() error }, error) {
	c := newRunCmd()
	if err := c.Flags().Set("store", path); err != nil {
		return nil, fmt.Errorf("set --store: %w", err)
	}
	return openStore(c)
}

// TestStoreInReadOnlyFolder: a store in a folder the user cannot write
// names the folder and the permission problem, not "unable to open
// database file (14)". Run as root, the check runs the binary as nobody.
func TestStoreInReadOnlyFolder(t *testing.T) {
	dir, err := os.MkdirTemp("", "rgnn-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "ro"), 0o755); os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "e.yaml")
	os.WriteFile(exp, []byte("fixed: {kind: bias, trials: 1}\n"), 0o644)
	args := []string{"run", exp, "--store", filepath.Join(ro, "results.db"), "--status-every", "0"}
	var msg string
	if os.Geteuid() != 0 {
		_, err := runRoot(t, args...)
		if err == nil {
			t.Fatal("accepted")
		}
		msg = err.Error()
	} else {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, "rgnn")
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "RGNN_TEST_RUN_MAIN=1", "HOME="+dir)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("accepted:\n%s", out)
		}
		msg = string(out)
	}
	if !strings.Contains(msg, "cannot write in the folder "+ro) || !strings.Contains(msg, "permission denied") {
		t.Errorf("error %q does not name the folder and the permission problem", msg)
	}
}

// TestCertifyKill9LosesAtMost10s kills a sampling `rgnn certify` with
// SIGKILL after some 20 s: its votes were checkpointed at most 10 s (plus
// the write) before, the same command resumes from them, and the progress
// it wrote into a pipe is plain lines (no carriage returns or escape
// codes). Before, a kill lost every sample drawn.
func TestCertifyKill9LosesAtMost10s(t *testing.T) {
	if testing.Short() {
		t.Skip("samples for about half a minute")
	}
	dataDir := fixture.DataDir(t)
	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin0.npz")
	cps := t.TempDir()
	args := []string{"certify", "--data-dir", dataDir, "--dataset", "cora_ml", "--model", "gcn", "--weights", w,
		"--p-del", "0.4", "--samples", "1000000", "--pre-samples", "20", "--workers", "2", "--checkpoints", cps}
	start := func() (*exec.Cmd, *bufio.Scanner) {
		cmd := rgnnCmd(t, args...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, bufio.NewScanner(stderr)
	}
	cmd, sc := start()
	var log strings.Builder
	began := time.Time{}
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		if began.IsZero() && strings.HasPrefix(line, "votes ") {
			began = time.Now()
			go func() {
				time.Sleep(20 * time.Second)
				cmd.Process.Kill() // SIGKILL
			}()
		}
	}
	killed := time.Now()
	cmd.Wait()
	if began.IsZero() {
		t.Fatalf("sampling never began:\n%s", log.String())
	}
	if strings.ContainsAny(log.String(), "\r\x1b") {
		t.Errorf("progress into a pipe holds carriage returns or escape codes:\n%q", log.String())
	}
	files, _ := filepath.Glob(filepath.Join(cps, "*.npz"))
	if len(files) != 1 {
		t.Fatalf("checkpoints %v after the kill", files)
	}
	st, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if lost := killed.Sub(st.ModTime()); lost > 11*time.Second {
		t.Errorf("the last checkpoint was written %v before the kill, want ≤ 10 s (+ the write)", lost)
	}
	part, err := certify.LoadPartial(files[0])
	if err != nil || part.Done == 0 {
		t.Fatalf("checkpoint: %v, %+v", err, part)
	}
	// The same command resumes from it.
	cmd, sc = start()
	want := fmt.Sprintf("%d of 1000000 samples done", part.Done)
	resumed := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "resuming the votes from") {
			resumed = strings.Contains(sc.Text(), want)
			break
		}
	}
	cmd.Process.Kill()
	if !resumed {
		t.Errorf("the second run did not resume from %s (%s)", files[0], want)
	}
}

// TestTrainInterruptSavesBestWeights: SIGINT stops `rgnn train` at the end
// of an epoch; with --out the best weights so far are saved, it says so,
// and exits with 130. Before, Ctrl-C kept nothing.
func TestTrainInterruptSavesBestWeights(t *testing.T) {
	dataDir := fixture.DataDir(t)
	out := filepath.Join(t.TempDir(), "w.npz")
	cmd := rgnnCmd(t, "train", "--data-dir", dataDir, "--dataset", "citeseer", "--model", "gcn",
		"--max-epochs", "100000", "--patience", "100000", "--out", out)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(pipe)
	for sc.Scan() { // the dataset is loaded: training runs; interrupt it a few seconds later
		stderr.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "standardised") {
			time.AfterFunc(4*time.Second, func() { cmd.Process.Signal(os.Interrupt) })
			break
		}
	}
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "best weights so far saved to "+out) {
		t.Errorf("stderr does not say the weights were saved:\n%s", stderr.String())
	}
	res, err := runRoot(t, "eval", "--data-dir", dataDir, "--dataset", "citeseer", "--model", "gcn", "--weights", out, "--json")
	if err != nil || !strings.Contains(res, "test_accuracy") {
		t.Fatalf("the saved weights do not evaluate: %v\n%s", err, res)
	}
}

// TestJSONFailures: under --json a failure prints {"error", "code",
// "field"} on stdout as well as the text on stderr, for usage errors, flag
// parsing errors and runtime errors alike.
func TestJSONFailures(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.npz")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	for _, c := range []struct {
		args  []string
		code  int
		field string
	}{
		{[]string{"train", "--lr", "abc", "--json"}, exitUsage, "--lr"},
		{[]string{"train", "--model", "gcn", "--temperature", "0.5", "--json"}, exitUsage, "--temperature"},
		{[]string{"train", "--bogus", "--json"}, exitUsage, "--bogus"},
		{[]string{"results", "--store", filepath.Join(dir, "none.db"), "--json"}, exitUsage, "--store"},
		{[]string{"eval", "--weights", bad, "--json"}, exitFailure, ""},
		{[]string{"data", "info", "--dataset", "nope", "--json"}, exitUsage, ""},
	} {
		var stdout, stderr strings.Builder
		code := execute(append(c.args, "--data-dir", fixture.DataDir(t)), &stdout, &stderr)
		var got jsonError
		if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
			t.Errorf("%v: stdout is not the JSON error: %v\n%s", c.args, err, stdout.String())
			continue
		}
		if code != c.code || got.Code != c.code || got.Field != c.field || got.Error == "" ||
			!strings.Contains(stderr.String(), "rgnn: "+got.Error) {
			t.Errorf("%v: exit %d, %+v, stderr %q", c.args, code, got, stderr.String())
		}
	}
	// Without --json stdout stays empty.
	var stdout, stderr strings.Builder
	if code := execute([]string{"train", "--lr", "abc"}, &stdout, &stderr); code != exitUsage || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q", code, stdout.String())
	}
}
