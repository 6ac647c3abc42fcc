package store

import (
	"context"
	"os"
	"path/filepath"
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
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
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
	p := Params{"model": "gcn", "seed": 0, "binary_attr": true, "temperature": 1.0}
	key, _ := Key("train", p)
	r := Result{Key: key, Kind: "train", Experiment: "e", Params: p, Metrics: map[string]any{"acc": 0.8},
		Artifacts: map[string]string{"weights": sha}, Started: time.Now(), Finished: time.Now()}
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
	for _, f := range []Filter{{Kind: "train"}, {Params: map[string]string{"model": "gcn", "seed": "0", "binary_attr": "true", "temperature": "1.0"}}} {
		rs, err := s.Query(ctx, f)
		if err != nil || len(rs) != 1 || rs[0].Metrics["acc"] != 0.8 || rs[0].Artifacts["weights"] != sha {
			t.Fatalf("query %+v: %v %+v", f, err, rs)
		}
	}
	if rs, _ := s.Query(ctx, Filter{Params: map[string]string{"model": "gdc"}}); len(rs) != 0 {
		t.Fatal("filter matched gdc")
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
	s, err = Open(filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok, err := s.Get(ctx, key); !ok || err != nil {
		t.Fatal("result lost on reopen", err)
	}
}
