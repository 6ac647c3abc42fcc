package data

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedServer returns the URL of an HTTP server that is no longer
// listening: every download from it fails at once.
func closedServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(nil)
	srv.Close()
	return srv.URL
}

// A dataset that is not in the data directory and cannot be downloaded ends
// in one error that names the dataset, the place looked in (and how it was
// chosen), the places not looked in, and the two ways to provide the file.
func TestMissingDatasetError(t *testing.T) {
	t.Setenv(MirrorEnv, closedServer(t))
	env := t.TempDir()
	t.Setenv("RGNN_DATA_DIR", env)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache dir on this system")
	}
	cache = filepath.Join(cache, "rgnn", "datasets")
	flag := filepath.Join(t.TempDir(), "data")

	for _, c := range []struct {
		flag, env, looked, from string
		notLooked               []string
	}{
		{flag, env, flag, "--data-dir", []string{"$RGNN_DATA_DIR (" + env + ")", "the user cache dir (" + cache + ")"}},
		{"", env, env, "$RGNN_DATA_DIR", []string{"the user cache dir (" + cache + ")"}},
		{"", "", cache, "the user cache dir", nil},
	} {
		t.Setenv("RGNN_DATA_DIR", c.env)
		_, err := Load(context.Background(), "cora_ml", Options{Dir: c.flag})
		var me *MissingError
		if !errors.As(err, &me) {
			t.Fatalf("%s: %v, want a *MissingError", c.from, err)
		}
		msg := err.Error()
		for _, want := range append([]string{"dataset cora_ml", "looked in: " + c.looked + " (" + c.from + ")",
			"rgnn data fetch --dataset cora_ml", "put cora_ml.npz", "into " + c.looked, "connection refused"},
			c.notLooked...) {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: message lacks %q:\n%s", c.from, want, msg)
			}
		}
		if c.notLooked == nil && strings.Contains(msg, "not looked in") {
			t.Errorf("%s: nothing else applies, yet:\n%s", c.from, msg)
		}
		if me.Dataset != "cora_ml" || me.Dir != c.looked || me.From != c.from {
			t.Errorf("%s: %+v", c.from, me)
		}
		if entries, _ := os.ReadDir(c.looked); len(entries) != 0 {
			t.Errorf("%s: files left in %s: %v", c.from, c.looked, entries)
		}
	}
	// OGB datasets are folders.
	_, err = Load(context.Background(), "ogbn-arxiv", Options{Dir: flag})
	var me *MissingError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "ogbn_arxiv") ||
		!strings.Contains(err.Error(), "rgnn data fetch --dataset ogbn-arxiv") {
		t.Fatalf("ogbn-arxiv: %v", err)
	}
}

// Fetch (rgnn data fetch) reports the same error for the directory it was
// given; a cancelled download and a damaged present file are not "missing".
func TestFetchMissingError(t *testing.T) {
	dir := t.TempDir()
	_, err := Fetch(context.Background(), "citeseer", dir, FetchOptions{URL: closedServer(t)})
	var me *MissingError
	if !errors.As(err, &me) || me.Dir != dir || !strings.Contains(err.Error(), "looked in: "+dir+"\n") {
		t.Fatalf("%v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fetch(ctx, "citeseer", dir, FetchOptions{URL: closedServer(t)}); err == nil || errors.As(err, &me) {
		t.Fatalf("cancelled: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "citeseer.npz"), []byte("junk"), 0o644)
	if _, err := Fetch(context.Background(), "citeseer", dir, FetchOptions{}); err == nil || errors.As(err, &me) {
		t.Fatalf("damaged file: %v", err)
	}
}
