package data

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/tensor"
)

// ogbFixture is a small dataset written in OGB's layout.
type ogbFixture struct {
	n, d, classes     int
	src, dst          []int
	feats             [][]float32
	labels            []int
	train, val, test  []int
	info              Info
	dir, root         string
	featText, edgeExt string // overrides for bad-file tests
}

func newOGBFixture(t *testing.T, dir string) *ogbFixture {
	rng := rand.New(rand.NewPCG(3, 4))
	f := &ogbFixture{n: 60, d: 5, classes: 4, dir: dir}
	for range 150 {
		f.src = append(f.src, rng.IntN(f.n))
		f.dst = append(f.dst, rng.IntN(f.n))
	}
	// A self loop, a repeated edge and an edge listed in both directions.
	f.src = append(f.src, 7, 3, 3, 9)
	f.dst = append(f.dst, 7, 4, 4, 3)
	for i := range f.n {
		row := make([]float32, f.d)
		for j := range row {
			if rng.IntN(3) > 0 {
				row[j] = float32(rng.NormFloat64())
			}
		}
		f.feats = append(f.feats, row)
		f.labels = append(f.labels, i%f.classes)
	}
	perm := rng.Perm(f.n)
	f.train, f.val, f.test = perm[:30], perm[30:42], perm[42:]
	f.info = Info{Name: "ogbn-fixture", File: "fixture.zip", URL: "http://invalid.test/fixture.zip",
		OGB: &OGBInfo{Dir: "ogbn_fixture", Split: "time", Nodes: f.n, Edges: len(f.src), Year: true}}
	f.root = filepath.Join(dir, f.info.OGB.Dir)
	return f
}

func gz(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	w.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ints(v []int) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return s
}

// write writes the fixture's files under root.
func (f *ogbFixture) write(t *testing.T, root string) {
	p := func(s string) string { return filepath.Join(root, filepath.FromSlash(s)) }
	gz(t, p("raw/num-node-list.csv.gz"), []string{fmt.Sprint(f.n)})
	gz(t, p("raw/num-edge-list.csv.gz"), []string{fmt.Sprint(len(f.src))})
	var es []string
	for k := range f.src {
		es = append(es, fmt.Sprintf("%d,%d", f.src[k], f.dst[k]))
	}
	if f.edgeExt != "" {
		es = append(es[:len(es)-1], f.edgeExt)
	}
	gz(t, p("raw/edge.csv.gz"), es)
	var fs []string
	for _, row := range f.feats {
		parts := make([]string, len(row))
		for j, v := range row {
			parts[j] = fmt.Sprint(v)
		}
		fs = append(fs, strings.Join(parts, ","))
	}
	if f.featText != "" {
		fs[len(fs)-1] = f.featText
	}
	gz(t, p("raw/node-feat.csv.gz"), fs)
	gz(t, p("raw/node-label.csv.gz"), ints(f.labels))
	years := make([]int, f.n)
	for i := range years {
		years[i] = 1990 + i%30
	}
	gz(t, p("raw/node_year.csv.gz"), ints(years))
	gz(t, p("split/time/train.csv.gz"), ints(f.train))
	gz(t, p("split/time/valid.csv.gz"), ints(f.val))
	gz(t, p("split/time/test.csv.gz"), ints(f.test))
}

// check compares a loaded graph with the fixture.
func (f *ogbFixture) check(t *testing.T, g *Graph) {
	t.Helper()
	var es []tensor.Entry
	for k := range f.src {
		es = append(es, tensor.Entry{Row: int32(f.src[k]), Col: int32(f.dst[k]), Val: 1})
	}
	raw, _ := tensor.FromCOO(f.n, f.n, es)
	if want := standardizeCOO(raw); !equalCSR(g.Adj, want) {
		t.Fatal("adjacency is not the undirected edge set without self loops or repeats")
	}
	if g.NumNodes() != f.n || g.RawNodes != f.n || len(g.LCCNodes) != f.n || g.NumClasses != f.classes {
		t.Fatalf("%d nodes (raw %d), %d classes", g.NumNodes(), g.RawNodes, g.NumClasses)
	}
	if err := g.Adj.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := g.Features.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Features.Cols != f.d {
		t.Fatalf("%d features, want %d", g.Features.Cols, f.d)
	}
	for i, row := range f.feats {
		got := make([]float32, f.d)
		for k := g.Features.Indptr[i]; k < g.Features.Indptr[i+1]; k++ {
			got[g.Features.Indices[k]] = g.Features.Values[k]
		}
		if !slices.Equal(got, row) {
			t.Fatalf("feature row %d = %v, want %v", i, got, row)
		}
	}
	for i, y := range f.labels {
		if int(g.Labels[i]) != y {
			t.Fatalf("label %d = %d, want %d", i, g.Labels[i], y)
		}
	}
	tr, va, te, err := SplitFor(g, 3)
	if err != nil || !slices.Equal(tr, f.train) || !slices.Equal(va, f.val) || !slices.Equal(te, f.test) {
		t.Fatalf("split %v %v %v (%v), want the files'", tr, va, te, err)
	}
}

func TestOGBLoadAndCache(t *testing.T) {
	dir := t.TempDir()
	f := newOGBFixture(t, dir)
	f.write(t, f.root)
	var log bytes.Buffer
	load := func() *Graph {
		t.Helper()
		log.Reset()
		g, err := loadOGB(context.Background(), f.info, dir, Options{Fetch: FetchOptions{Progress: &log}})
		if err != nil {
			t.Fatal(err)
		}
		f.check(t, g)
		return g
	}
	load()
	if !strings.Contains(log.String(), "converting") {
		t.Fatalf("first load did not convert: %q", log.String())
	}
	cache := filepath.Join(f.root, ogbCacheFile)
	if _, err := os.Stat(cache); err != nil {
		t.Fatal("no cache written:", err)
	}
	load()
	if log.Len() != 0 {
		t.Fatalf("second load did not use the cache: %q", log.String())
	}
	// A damaged cache is rebuilt, never trusted.
	b, _ := os.ReadFile(cache)
	damaged := slices.Clone(b)
	damaged[len(damaged)/2] ^= 0x40
	for name, content := range map[string][]byte{"flipped": damaged, "truncated": b[:len(b)-3], "junk": []byte("junk")} {
		os.WriteFile(cache, content, 0o644)
		load()
		if !strings.Contains(log.String(), "rebuilding") {
			t.Fatalf("%s cache not rebuilt: %q", name, log.String())
		}
		if again, _ := os.ReadFile(cache); !bytes.Equal(again, b) {
			t.Fatalf("%s cache: rebuilt cache differs", name)
		}
	}
	// A cache of other source files (changed modification time) is stale.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(f.root, "raw", "node-label.csv.gz"), later, later)
	load()
	if !strings.Contains(log.String(), "other files") {
		t.Fatalf("stale cache not rebuilt: %q", log.String())
	}
	// BinaryAttr sets nonzero features to 1 also from the cache.
	g, err := loadOGB(context.Background(), f.info, dir, Options{BinaryAttr: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range g.Features.Values {
		if v != 1 {
			t.Fatalf("binary attr value %v", v)
		}
	}
}

// The registered datasets check OGB's published sizes.
func TestOGBRegisteredSizes(t *testing.T) {
	dir := t.TempDir()
	f := newOGBFixture(t, dir)
	f.write(t, filepath.Join(dir, "ogbn_arxiv"))
	_, err := Load(context.Background(), "ogbn-arxiv", Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "169343") {
		t.Fatalf("fixture accepted as ogbn-arxiv: %v", err)
	}
	for _, name := range []string{"ogbn-arxiv", "ogbn-products"} {
		info, err := Lookup(name)
		if err != nil || info.OGB == nil || info.SHA256 != "" {
			t.Fatalf("%s: %+v %v", name, info, err)
		}
	}
}

func TestOGBBadFiles(t *testing.T) {
	cases := map[string]func(f *ogbFixture){
		"node-feat.csv.gz": func(f *ogbFixture) { f.featText = "1,2,x,4,5" },
		"edge.csv.gz":      func(f *ogbFixture) { f.edgeExt = "3,600" },
	}
	for file, spoil := range cases {
		dir := t.TempDir()
		f := newOGBFixture(t, dir)
		spoil(f)
		f.write(t, f.root)
		_, err := loadOGB(context.Background(), f.info, dir, Options{})
		if err == nil || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: error does not name the file: %v", file, err)
		}
	}
	// More edges than announced.
	dir := t.TempDir()
	f := newOGBFixture(t, dir)
	f.info.OGB.Edges--
	f.write(t, f.root)
	gz(t, filepath.Join(f.root, "raw", "num-edge-list.csv.gz"), []string{fmt.Sprint(f.info.OGB.Edges)})
	if _, err := loadOGB(context.Background(), f.info, dir, Options{}); err == nil || !strings.Contains(err.Error(), "edges") {
		t.Errorf("extra edge accepted: %v", err)
	}
	// A missing file is named.
	os.Remove(filepath.Join(f.root, "split", "time", "valid.csv.gz"))
	if _, err := loadOGB(context.Background(), f.info, dir, Options{}); err == nil || !strings.Contains(err.Error(), "valid.csv.gz") {
		t.Errorf("missing split file: %v", err)
	}
}

// zipDir zips root's files under the top folder top, as OGB serves them.
func zipDir(t *testing.T, root, top string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		w, err := zw.Create(top + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		c, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(c)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return b.Bytes()
}

func TestOGBDownload(t *testing.T) {
	src := t.TempDir()
	f := newOGBFixture(t, src)
	f.write(t, filepath.Join(src, "layout"))
	body := zipDir(t, filepath.Join(src, "layout"), "fixture")
	os.Remove(filepath.Join(src, "layout", "split", "time", "test.csv.gz"))
	incomplete := zipDir(t, filepath.Join(src, "layout"), "fixture")
	mux := http.NewServeMux()
	mux.HandleFunc("/ok.zip", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	mux.HandleFunc("/incomplete.zip", func(w http.ResponseWriter, r *http.Request) { w.Write(incomplete) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	f.dir, f.root = dir, filepath.Join(dir, f.info.OGB.Dir)
	for _, path := range []string{"/incomplete.zip", "/missing.zip"} {
		_, err := loadOGB(context.Background(), f.info, dir, Options{Fetch: FetchOptions{URL: srv.URL + path}})
		if err == nil {
			t.Fatalf("%s: no error", path)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("%s: left %v", path, entries)
		}
	}
	g, err := loadOGB(context.Background(), f.info, dir, Options{Fetch: FetchOptions{URL: srv.URL + "/ok.zip"}})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, g)
	rec, err := os.ReadFile(filepath.Join(f.root, ogbShaFile))
	sum := sha256.Sum256(body)
	if err != nil || !strings.HasPrefix(string(rec), hex.EncodeToString(sum[:])+"  fixture.zip") {
		t.Fatalf("sha256 record %q (%v)", rec, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != f.info.OGB.Dir {
		t.Fatalf("data dir holds %v, want only %s", entries, f.info.OGB.Dir)
	}
	// Present now: no download (the server is gone).
	srv.Close()
	if _, err := loadOGB(context.Background(), f.info, dir, Options{Fetch: FetchOptions{URL: srv.URL + "/ok.zip"}}); err != nil {
		t.Fatal(err)
	}
}
