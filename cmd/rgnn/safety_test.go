package main

// Tests that nothing a user passes destroys a file, races, or is silently
// reinterpreted: each fails on the code before the checks it names.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
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
