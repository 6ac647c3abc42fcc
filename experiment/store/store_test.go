package store

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestKeyCanonical(t *testing.T) {
	a, _ := Key("train", Params{"seed": 1, "model": "gcn", "temperature": 0.5})
	b, _ := Key("train", Params{"temperature": 0.50, "model": "gcn", "seed": 1.0})
	c, _ := Key("certify", Params{"seed": 1, "model": "gcn", "temperature": 0.5})
	if a != b || a == c || len(a) != 20 {
		t.Fatalf("keys %s %s %s", a, b, c)
	}
}

func TestPutQueryArtifacts(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		ctx := bg()
		target := b.target(t)
		s := b.open(t, target)
		sha, err := s.PutArtifact(func(p string) error { return os.WriteFile(p, []byte("weights"), 0o644) })
		if err != nil {
			t.Fatal(err)
		}
		sha2, _ := s.PutArtifact(func(p string) error { return os.WriteFile(p, []byte("weights"), 0o644) })
		if sha != sha2 {
			t.Fatal("same content, different address")
		}
		if _, err := s.OpenArtifact(sha); err != nil {
			t.Fatal(err)
		}
		p := Params{"model": "gcn", "seed": 0, "binary_attr": true, "temperature": 1.0, "p_del": 0.4}
		key, _ := Key("train", p)
		r := Result{Key: key, Kind: "train", Experiment: "e", Params: p, Metrics: map[string]any{"acc": 0.8},
			Artifacts: map[string]string{"weights": sha}, Started: time.Now(), Finished: time.Now(), Seconds: 1.25}
		if ok, err := s.Put(ctx, r); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if ok, err := s.Put(ctx, r); err != nil || ok {
			t.Fatal("second put inserted", ok, err)
		}
		bad := r
		bad.Key, bad.Artifacts = "x", map[string]string{"w": "00"}
		if _, err := s.Put(ctx, bad); err == nil {
			t.Fatal("put with a missing artifact succeeded")
		}
		for _, f := range []Filter{{Kind: "train"}, {Experiment: "e"},
			{Params: map[string]string{"model": "gcn", "seed": "0", "binary_attr": "true", "temperature": "1.0", "p_del": "0.40"}},
			{Params: map[string]string{"binary_attr": "1", "seed": "0e0"}}} {
			rs, err := s.Query(ctx, f)
			if err != nil || len(rs) != 1 || rs[0].Metrics["acc"] != 0.8 || rs[0].Artifacts["weights"] != sha || rs[0].Seconds != 1.25 {
				t.Fatalf("query %+v: %v %+v", f, err, rs)
			}
		}
		for _, f := range []Filter{{Params: map[string]string{"model": "gdc"}}, {Params: map[string]string{"model": "1"}},
			{Params: map[string]string{"seed": "x"}}, {Params: map[string]string{"missing": "0"}}, {Kind: "certify"}} {
			if rs, err := s.Query(ctx, f); err != nil || len(rs) != 0 {
				t.Fatalf("filter %+v matched: %v %v", f, rs, err)
			}
		}
		if probs, err := s.Check(ctx); err != nil || len(probs) != 0 {
			t.Fatal(probs, err)
		}
		os.WriteFile(s.ArtifactPath(sha), []byte("tampered"), 0o644)
		if probs, _ := s.Check(ctx); len(probs) != 1 {
			t.Fatalf("tampered artifact not reported: %v", probs)
		}
		s.Close()
		// Reopen: migrations are not re-applied, data persists.
		s = b.open(t, target)
		if _, ok, err := s.Get(ctx, key); !ok || err != nil {
			t.Fatal("result lost on reopen", err)
		}
	})
}

func TestPostgresNeedsArtifactFolder(t *testing.T) {
	for _, b := range backends(t) {
		if b.name != "postgres" {
			continue
		}
		target := b.target(t)
		if _, err := Open(target); err == nil || !strings.Contains(err.Error(), "--artifacts") {
			t.Fatalf("open without an artifact folder: %v", err)
		}
		dir := t.TempDir()
		s, err := OpenWith(target, Options{Artifacts: dir})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = Open(target) // the store names the folder now
		if err != nil || s.ArtifactDir() != dir {
			t.Fatalf("reopen: %v, artifacts %q want %q", err, s.ArtifactDir(), dir)
		}
		s.Close()
	}
}

func TestSQLiteArtifactsDefaultBeside(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ArtifactDir() != filepath.Join(dir, "artifacts") {
		t.Fatal(s.ArtifactDir())
	}
}

// TestResultWrittenOnce: eight concurrent Puts of one key store it once.
func TestResultWrittenOnce(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		target := b.target(t)
		p := Params{"seed": 1}
		key, _ := Key("train", p)
		var wg sync.WaitGroup
		var mu sync.Mutex
		inserted := 0
		for i := range 8 {
			s := b.open(t, target)
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.Put(bg(), Result{Key: key, Kind: "train", Params: p, Metrics: map[string]any{"i": float64(i)}})
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				if ok {
					inserted++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		s := b.open(t, target)
		rs, err := s.Query(bg(), Filter{})
		if inserted != 1 || err != nil || len(rs) != 1 {
			t.Fatalf("inserted %d times, %d rows (%v)", inserted, len(rs), err)
		}
	})
}

// TestCopyResultsBothWays: export from an SQLite store into each backend and
// back copies results and artifacts once; a second copy adds nothing.
func TestCopyResultsBothWays(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		ctx := bg()
		laptop, err := Open(filepath.Join(t.TempDir(), "laptop.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer laptop.Close()
		shared := b.open(t, b.target(t))
		sha, _ := laptop.PutArtifact(func(p string) error { return os.WriteFile(p, []byte("w"), 0o644) })
		for i := range 3 {
			p := Params{"seed": float64(i)}
			k, _ := Key("train", p)
			laptop.Put(ctx, Result{Key: k, Kind: "train", Params: p, Metrics: map[string]any{"acc": 0.1 * float64(i)},
				Artifacts: map[string]string{"weights": sha}})
		}
		if c, s, err := CopyResults(ctx, shared, laptop, Filter{}); c != 3 || s != 0 || err != nil {
			t.Fatal(c, s, err)
		}
		if c, s, err := CopyResults(ctx, shared, laptop, Filter{}); c != 0 || s != 3 || err != nil {
			t.Fatal("second copy", c, s, err)
		}
		back, _ := Open(filepath.Join(t.TempDir(), "back.db"))
		defer back.Close()
		if c, _, err := CopyResults(ctx, back, shared, Filter{Params: map[string]string{"seed": "1"}}); c != 1 || err != nil {
			t.Fatal("filtered copy back", c, err)
		}
		a, _ := laptop.Query(ctx, Filter{})
		s, _ := shared.Query(ctx, Filter{})
		if d := DiffMetrics(a, s); len(d) != 0 {
			t.Fatal(d)
		}
		if probs, _ := shared.Check(ctx); len(probs) != 0 {
			t.Fatal(probs)
		}
		s[0].Metrics["acc"] = 0.7
		if d := DiffMetrics(a, s); len(d) != 1 {
			t.Fatal("a changed metric not found", d)
		}
	})
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://me:secret@db/rgnn":                 "postgres://me:xxxxx@db/rgnn",
		"postgresql://db/rgnn?password=secret&user=me": "postgresql://db/rgnn?password=xxxxx&user=me",
		"postgres:///rgnn?host=/tmp/pg&user=postgres":  "postgres:///rgnn?host=/tmp/pg&user=postgres",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
