package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentFirstOpen starts 8 processes' worth of opens (separate
// connections) on a fresh store at once, 20 times: every one must succeed
// and the store must end at the current schema version. Before the
// migrations ran under the write lock, the later opens failed with
// "migration 1: SQL logic error: table results already exists".
func TestConcurrentFirstOpen(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		for round := range 20 {
			target := b.target(t)
			opts := b.opts(t)
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := OpenWith(target, opts)
					if err != nil {
						errs[i] = err
						return
					}
					defer s.Close()
					if _, err := s.Query(bg(), Filter{}); err != nil {
						errs[i] = err
					}
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("round %d, open %d: %v", round, i, err)
				}
			}
			s := b.open(t, target)
			if v, err := s.Version(); err != nil || v != len(migrations) {
				t.Fatalf("round %d: schema version %d (%v), want %d", round, v, err, len(migrations))
			}
		}
	})
}

// TestOpenExistingCreatesNothing: a read-only open of a missing store is a
// NotFoundError naming it, and leaves no file or folder behind.
func TestOpenExistingCreatesNothing(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		target := b.target(t)
		if b.name == "sqlite" {
			target = filepath.Join(t.TempDir(), "sub", "typo.db")
		}
		_, err := OpenWith(target, Options{Existing: true})
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("open of a missing store: %v, want a NotFoundError", err)
		}
		if b.name == "sqlite" {
			if !strings.Contains(err.Error(), target) {
				t.Errorf("%v does not name %s", err, target)
			}
			if _, err := os.Stat(filepath.Dir(target)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the read-only open created %s", filepath.Dir(target))
			}
			return
		}
		// PostgreSQL: still nothing there for a later open to find.
		if _, err := OpenWith(target, Options{Existing: true}); !errors.As(err, &nf) {
			t.Fatalf("second open: %v", err)
		}
		s := b.open(t, target)
		s.Close()
		s2, err := OpenWith(target, Options{Existing: true, Artifacts: b.opts(t).Artifacts})
		if err != nil {
			t.Fatalf("an existing store: %v", err)
		}
		s2.Close()
	})
}

// TestUnknownSchemeRefused: a URL of another database is an error, not a
// folder "mysql:" with an SQLite file in it.
func TestUnknownSchemeRefused(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for _, target := range []string{"mysql://x@y/z", "sqlite://r.db", "http://host/db"} {
		_, err := Open(target)
		if err == nil || !strings.Contains(err.Error(), "unknown URL scheme") {
			t.Errorf("%s: %v", target, err)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("created %v", es)
	}
}

// TestStoreNotARegularFile: a FIFO (or other special file) given as the
// store is refused instead of being opened as a database.
func TestStoreNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder as the store: %v", err)
	}
}
