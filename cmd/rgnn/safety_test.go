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
	"github.com/rgnn/rgnn/internal/testio"
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

// fifo makes a FIFO at path and returns a channel receiving what is
// written to it (read until the writer closes).
func fifo(t *testing.T, path string) chan []byte { return testio.FIFO(t, path) }

// TestOutputsIntoSpecialFiles: `train --out` a FIFO and `certify
// --save-votes` a symlink to a FIFO write into them and leave them FIFOs
// (before, they were replaced by regular files — as a device like
// /dev/full would be, run as root).
func TestOutputsIntoSpecialFiles(t *testing.T) {
	dataDir := fixture.DataDir(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "weights.fifo")
	got := fifo(t, p)
	if _, err := runRoot(t, "train", "--data-dir", dataDir, "--dataset", "citeseer", "--max-epochs", "2", "--quiet",
		"--out", p); err != nil {
		t.Fatal(err)
	}
	if b := <-got; len(b) < 100 || string(b[:2]) != "PK" {
		t.Errorf("the FIFO's reader got %d bytes, not the weights archive", len(b))
	}
	votesFifo := filepath.Join(dir, "votes.fifo")
	link := filepath.Join(dir, "votes.npz")
	got = fifo(t, votesFifo)
	if err := os.Symlink(votesFifo, link); err != nil {
		t.Fatal(err)
	}
	if _, err := runRoot(t, "certify", "--data-dir", dataDir, "--dataset", "citeseer", "--train", "--max-epochs", "2",
		"--p-del", "0.4", "--samples", "10", "--pre-samples", "5", "--checkpoints", "none", "--save-votes", link); err != nil {
		t.Fatal(err)
	}
	if b := <-got; len(b) < 100 || string(b[:2]) != "PK" {
		t.Errorf("the FIFO's reader got %d bytes, not the votes archive", len(b))
	}
	for _, f := range []string{p, votesFifo} {
		if st, err := os.Lstat(f); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer a FIFO", f)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink %s was replaced", link)
	}
	if es, _ := os.ReadDir(dir); len(es) != 3 {
		t.Errorf("folder holds %d entries, want the two FIFOs and the link", len(es))
	}
}

// rgnnLimited runs `rgnn args...` in a child whose files may not grow
// beyond kib KiB (RLIMIT_FSIZE: writes beyond fail with EFBIG, like a
// full disk) and returns its exit error and output.
func rgnnLimited(t *testing.T, kib int, args ...string) (error, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{"-c", fmt.Sprintf(`ulimit -f %d && exec "$0" "$@"`, kib), exe}, args...)...)
	cmd.Env = append(os.Environ(), "RGNN_TEST_RUN_MAIN=1")
	out, err := cmd.CombinedOutput()
	return err, string(out)
}

// TestFullDiskLeavesNoEmptyFiles: when the disk fills up (simulated with a
// file-size limit), `certify --plot` leaves no 0-byte PNG and `results
// export x.db` no 0-byte x.db; both fail naming the file.
func TestFullDiskLeavesNoEmptyFiles(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dataDir := fixture.DataDir(t)
	votes := fixture.Reference(t, "smoothing_votes/cora_ml_Vanilla_GCN_s0_del.npz")
	plots := filepath.Join(t.TempDir(), "plots")
	err, out := rgnnLimited(t, 8, "certify", "--data-dir", dataDir, "--votes", votes, "--p-add", "0", "--p-del", "0.4",
		"--split-seed", "0", "--plot", plots)
	if err == nil || !strings.Contains(out, "file too large") || !strings.Contains(out, plots) {
		t.Errorf("certify --plot on a full disk: %v\n%s", err, out)
	}
	if es, _ := os.ReadDir(plots); len(es) != 0 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("a failed plot left %v", names)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	exp := filepath.Join(dir, "e.yaml")
	os.WriteFile(exp, []byte("fixed: {kind: bias, trials: 1, norms: [10], temperatures: [1], samples: 20}\ngrid: {seed: [0, 1, 2, 3, 4, 5, 6, 7]}\n"), 0o644)
	if _, err := runRoot(t, "run", exp, "--store", db, "--status-every", "0"); err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(dir, "x.db")
	err, out = rgnnLimited(t, 4, "results", "export", x, "--store", db)
	if err == nil {
		t.Fatalf("export to a full disk succeeded:\n%s", out)
	}
	for _, p := range []string{x, x + "-wal", x + "-shm"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a failed export left %s", p)
		}
	}
	jsonl := filepath.Join(dir, "x.jsonl")
	err, out = rgnnLimited(t, 1, "results", "export", jsonl, "--store", db)
	if _, serr := os.Stat(jsonl); err == nil || !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("export of a results file to a full disk: %v, file %v\n%s", err, serr, out)
	}
}

// TestVictimTrainedHereSaysSo: an attack victim without --weights is
// trained first, and the command says so (before: up to 3,000 epochs
// without a word).
func TestVictimTrainedHereSaysSo(t *testing.T) {
	cmd := rgnnCmd(t, "attack", "--data-dir", fixture.DataDir(t), "--attack", "dice", "--epsilon", "0.01",
		"--victim", "gcn", "--max-epochs", "2", "--quiet")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "victim gcn has no weights: training it here first (seed 0, up to 2 epochs") {
		t.Errorf("no notice that the victim is trained here:\n%s", out)
	}
}

// TestDataInfoReportsStandardisation: `data info` says what
// standardisation changed in the file (text and JSON).
func TestDataInfoReportsStandardisation(t *testing.T) {
	dir := fixture.DataDir(t)
	out, err := runRoot(t, "data", "info", "--data-dir", dir, "--dataset", "citeseer")
	if err != nil || !strings.Contains(out, "standardised   symmetrised 4481 edges (added the reverse direction), dropped 124 self-loops") {
		t.Errorf("%v\n%s", err, out)
	}
	out, err = runRoot(t, "data", "info", "--data-dir", dir, "--dataset", "citeseer", "--json")
	var info struct {
		Standardised map[string]int `json:"standardised"`
	}
	if err != nil || json.Unmarshal([]byte(out), &info) != nil || info.Standardised["self_loops_dropped"] != 124 ||
		info.Standardised["nodes_dropped"] != 1202 {
		t.Errorf("%v\n%s", err, out)
	}
}
