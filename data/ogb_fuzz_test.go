package data

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// ogbFiles are the files of the OGB layout a fuzz input may replace.
var ogbFiles = []string{"raw/num-node-list.csv.gz", "raw/num-edge-list.csv.gz", "raw/edge.csv.gz",
	"raw/node-feat.csv.gz", "raw/node-label.csv.gz", "raw/node_year.csv.gz", "split/time/train.csv.gz",
	"split/time/valid.csv.gz", "split/time/test.csv.gz"}

// FuzzOGB: any text in any one file of an OGB folder (the rest valid) is
// read without a panic, and what is accepted is a consistent graph; the
// binary cache written beside it is read back to the same graph or refused.
func FuzzOGB(f *testing.F) {
	f.Add(uint8(2), []byte("0,1\n1,2\n"))
	f.Add(uint8(3), []byte("1.5,2,nan,inf,-0\n"))
	f.Add(uint8(4), []byte("-1\n99999999999999999999\n"))
	f.Add(uint8(0), []byte("60\n"))
	f.Add(uint8(6), []byte("0\n0\n"))
	dir := f.TempDir()
	fx := newOGBFixture(&testing.T{}, dir)
	fx.write(&testing.T{}, fx.root)
	orig := map[string][]byte{}
	for _, name := range ogbFiles {
		b, err := os.ReadFile(filepath.Join(fx.root, filepath.FromSlash(name)))
		if err != nil {
			f.Fatal(err)
		}
		orig[name] = b
	}
	f.Fuzz(func(t *testing.T, which uint8, text []byte) {
		name := ogbFiles[int(which)%len(ogbFiles)]
		path := filepath.Join(fx.root, filepath.FromSlash(name))
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(text)
		w.Close()
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(path, orig[name], 0o644)
		g, err := parseOGB(context.Background(), fx.root, fx.info)
		if err != nil {
			return
		}
		n := g.NumNodes()
		if g.Features.Rows != n || len(g.Labels) != n || g.Adj.Cols != n {
			t.Fatalf("accepted an inconsistent graph: %d nodes, %d feature rows, %d labels", n, g.Features.Rows, len(g.Labels))
		}
		for _, l := range g.Labels {
			if l < 0 || int(l) >= g.NumClasses {
				t.Fatalf("label %d outside %d classes", l, g.NumClasses)
			}
		}
		if g.Split != nil {
			if _, _, _, err := SplitFor(g, 0); err != nil {
				t.Fatalf("accepted a split SplitFor refuses: %v", err)
			}
		}
		cache := filepath.Join(t.TempDir(), "c.bin")
		if err := writeCache(cache, "fp", g); err != nil {
			return
		}
		if _, err := readCache(cache, "fp"); err != nil {
			t.Fatalf("cache of an accepted graph does not read back: %v", err)
		}
	})
}

// FuzzOGBCache: a damaged binary cache is refused (and then rebuilt), never
// trusted and never a panic or an allocation beyond its size.
func FuzzOGBCache(f *testing.F) {
	dir := f.TempDir()
	fx := newOGBFixture(&testing.T{}, dir)
	fx.write(&testing.T{}, fx.root)
	g, err := parseOGB(context.Background(), fx.root, fx.info)
	if err != nil {
		f.Fatal(err)
	}
	good := filepath.Join(dir, "good.bin")
	if err := writeCache(good, "fp", g); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte{})
	path := filepath.Join(dir, "fuzz.bin")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readCache(path, "fp")
		if err == nil && (got.Adj == nil || got.Features == nil || len(got.Labels) != got.NumNodes()) {
			t.Fatalf("accepted an inconsistent cache")
		}
	})
}
