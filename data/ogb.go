package data

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/rgnn/rgnn/tensor"
)

// OGBInfo describes an OGB node-property dataset in OGB's layout: the folder
// OGB's own loader leaves after extracting its zip, with raw/edge.csv.gz,
// raw/node-feat.csv.gz, raw/node-label.csv.gz, raw/num-node-list.csv.gz,
// raw/num-edge-list.csv.gz (gzipped CSV without a header) and
// split/<Split>/{train,valid,test}.csv.gz (one node id per line).
type OGBInfo struct {
	Dir   string // folder in the data directory, e.g. "ogbn_arxiv"
	Split string // split folder, e.g. "time"
	Nodes int    // OGB's published node count
	Edges int    // OGB's published edge count (rows of raw/edge.csv.gz)
	Year  bool   // has raw/node_year.csv.gz (one year per node)
}

// ogbShaFile records the sha256 of the zip a dataset folder was extracted
// from (OGB publishes no checksums).
const ogbShaFile = "download.sha256"

// ogbCacheFile is the binary cache written beside the OGB files.
const ogbCacheFile = "rgnn-cache.bin"

func (o *OGBInfo) sources() []string {
	s := []string{"raw/num-node-list.csv.gz", "raw/num-edge-list.csv.gz", "raw/edge.csv.gz",
		"raw/node-feat.csv.gz", "raw/node-label.csv.gz"}
	if o.Year {
		s = append(s, "raw/node_year.csv.gz")
	}
	for _, part := range []string{"train", "valid", "test"} {
		s = append(s, "split/"+o.Split+"/"+part+".csv.gz")
	}
	return s
}

// missing returns the first source file absent from root ("" if none).
func (o *OGBInfo) missing(root string) string {
	for _, s := range o.sources() {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(s))); err != nil {
			return s
		}
	}
	return ""
}

// fetchOGB returns the dataset's folder in dir, downloading OGB's zip and
// extracting it when the folder is absent.
func fetchOGB(ctx context.Context, info Info, dir string, opts FetchOptions) (string, error) {
	o := info.OGB
	root := filepath.Join(dir, o.Dir)
	if _, err := os.Stat(root); err == nil {
		if m := o.missing(root); m != "" {
			return "", fmt.Errorf("%s: %s is missing; delete the folder to download %s again", root, m, info.Name)
		}
		return root, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	url := info.URL
	if opts.URL != "" {
		url = opts.URL
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create data dir: %w", err)
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "downloading %s from %s\n", info.File, url)
	}
	zipPath := filepath.Join(dir, info.File)
	var sum string
	err := downloadTo(ctx, opts.Client, url, zipPath, func(got string) error {
		if info.SHA256 != "" && got != info.SHA256 {
			return fmt.Errorf("%s: sha256 %s, want %s (file discarded)", url, got, info.SHA256)
		}
		sum = got
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("download %s: %w", info.Name, err)
	}
	defer os.Remove(zipPath)
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "extracting %s into %s\n", info.File, root)
	}
	tmp, err := os.MkdirTemp(dir, "."+o.Dir+".extract*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // no-op after the rename
	if err := extractZip(zipPath, tmp); err != nil {
		return "", fmt.Errorf("extract %s: %w", zipPath, err)
	}
	if m := o.missing(tmp); m != "" {
		return "", fmt.Errorf("%s (from %s): %s is missing, not an OGB node-property dataset", info.File, url, m)
	}
	rec := fmt.Sprintf("%s  %s\n# %s downloaded from %s on %s\n", sum, info.File, info.Name, url,
		time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(tmp, ogbShaFile), []byte(rec), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, root); err != nil {
		return "", err
	}
	return root, nil
}

// extractZip extracts the zip at path into dst, dropping the top folder
// every entry shares (OGB's zips hold "arxiv/raw/...": its own loader then
// renames "arxiv" to "ogbn_arxiv"). Entries leaving dst are refused.
func extractZip(path, dst string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	top := ""
	for i, f := range zr.File {
		first, _, _ := strings.Cut(f.Name, "/")
		if i == 0 {
			top = first
		} else if first != top {
			top = ""
			break
		}
	}
	for _, f := range zr.File {
		name := f.Name
		if top != "" {
			name = strings.TrimPrefix(strings.TrimPrefix(name, top), "/")
		}
		if name == "" || strings.HasSuffix(name, "/") {
			continue
		}
		if !filepath.IsLocal(name) {
			return fmt.Errorf("entry %q leaves the target folder", f.Name)
		}
		out := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := extractFile(f, out); err != nil {
			return fmt.Errorf("entry %s: %w", f.Name, err)
		}
	}
	return nil
}

func extractFile(f *zip.File, out string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, rc)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// loadOGB loads an OGB dataset: from the binary cache beside it when that
// is valid for the present files, else by parsing the CSV files (and then
// writing the cache).
func loadOGB(ctx context.Context, info Info, dir string, o Options) (*Graph, error) {
	root, err := fetchOGB(ctx, info, dir, o.Fetch)
	if err != nil {
		return nil, err
	}
	fp, err := ogbFingerprint(root, info.OGB)
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(root, ogbCacheFile)
	g, cerr := readCache(cache, fp)
	if cerr != nil {
		if o.Fetch.Progress != nil && !errors.Is(cerr, os.ErrNotExist) {
			fmt.Fprintf(o.Fetch.Progress, "rebuilding %s: %v\n", cache, cerr)
		}
		if o.Fetch.Progress != nil {
			fmt.Fprintf(o.Fetch.Progress, "converting %s (once; cached in %s)\n", root, ogbCacheFile)
		}
		if g, err = parseOGB(ctx, root, info); err != nil {
			return nil, err
		}
		if err := writeCache(cache, fp, g); err != nil && o.Fetch.Progress != nil {
			fmt.Fprintf(o.Fetch.Progress, "not cached: %v\n", err)
		}
	}
	g.Name, g.Path = info.Name, root
	if o.BinaryAttr {
		for i, v := range g.Features.Values {
			if v != 0 {
				g.Features.Values[i] = 1
			}
		}
	}
	return g, nil
}

// ogbFingerprint identifies the source files (name, size, modification
// time), so a cache built from other files is not trusted.
func ogbFingerprint(root string, o *OGBInfo) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "ogb split=%s nodes=%d edges=%d year=%v\n", o.Split, o.Nodes, o.Edges, o.Year)
	for _, s := range o.sources() {
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(s)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %d %d\n", s, st.Size(), st.ModTime().UnixNano())
	}
	return b.String(), nil
}

// parseOGB reads the CSV files, checks them against OGB's published sizes
// and builds the graph: every node kept, edges made undirected without self
// loops or repeats, the official split.
func parseOGB(ctx context.Context, root string, info Info) (*Graph, error) {
	o := info.OGB
	file := func(s string) string { return filepath.Join(root, filepath.FromSlash(s)) }
	nn, err := readCount(file("raw/num-node-list.csv.gz"))
	if err != nil {
		return nil, err
	}
	ne, err := readCount(file("raw/num-edge-list.csv.gz"))
	if err != nil {
		return nil, err
	}
	if o.Nodes > 0 && (nn != o.Nodes || ne != o.Edges) { // a named dataset: OGB's published sizes
		return nil, fmt.Errorf("%s: %d nodes and %d edges, but OGB publishes %d and %d for %s; delete the folder to download it again",
			root, nn, ne, o.Nodes, o.Edges, info.Name)
	}
	n := nn
	adj, err := readOGBEdges(ctx, file("raw/edge.csv.gz"), n, ne)
	if err != nil {
		return nil, err
	}
	feats, err := readOGBFeatures(ctx, file("raw/node-feat.csv.gz"), n)
	if err != nil {
		return nil, err
	}
	labels, err := readInts(file("raw/node-label.csv.gz"), 1<<20, n)
	if err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, fmt.Errorf("%s: %d labels for %d nodes", file("raw/node-label.csv.gz"), len(labels), n)
	}
	if o.Year {
		if ys, err := readInts(file("raw/node_year.csv.gz"), 1<<30, n); err != nil {
			return nil, err
		} else if len(ys) != n {
			return nil, fmt.Errorf("%s: %d years for %d nodes", file("raw/node_year.csv.gz"), len(ys), n)
		}
	}
	g := &Graph{Adj: adj, Features: feats, Labels: make([]int32, n), RawNodes: n, LCCNodes: make([]int, n)}
	for i := range g.LCCNodes {
		g.LCCNodes[i] = i
	}
	for i, y := range labels {
		g.Labels[i] = int32(y)
		g.NumClasses = max(g.NumClasses, y+1)
	}
	sp := &FixedSplit{Name: o.Split}
	for _, part := range []struct {
		name string
		dst  *[]int
	}{{"train", &sp.Train}, {"valid", &sp.Val}, {"test", &sp.Test}} {
		if *part.dst, err = readInts(file("split/"+o.Split+"/"+part.name+".csv.gz"), n-1, n); err != nil {
			return nil, err
		}
	}
	g.Split = sp
	return g, nil
}

// lineReader yields the lines of a gzipped text file without holding it.
type lineReader struct {
	path string
	f    *os.File
	gz   *gzip.Reader
	r    *bufio.Reader
	line int
}

func openLines(path string) (*lineReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &lineReader{path: path, f: f, gz: gz, r: bufio.NewReaderSize(gz, 1<<20)}, nil
}

// next returns the next non-empty line (valid until the following call),
// or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	for {
		b, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("%s: line %d longer than %d bytes", l.path, l.line+1, l.r.Size())
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", l.path, err)
		}
		if len(b) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		l.line++
		b = bytes.TrimRight(b, "\r\n")
		if len(bytes.TrimSpace(b)) > 0 {
			return b, nil
		}
		if err == io.EOF {
			return nil, io.EOF
		}
	}
}

func (l *lineReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: line %d: %s", l.path, l.line, fmt.Sprintf(format, args...))
}

func (l *lineReader) close() { l.gz.Close(); l.f.Close() }

// str views b as a string without copying (only for immediate parsing).
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// readInts reads one integer in [0, maxVal] per line; a first line giving
// a count hint sizes the slice.
func readInts(path string, maxVal, hint int) ([]int, error) {
	l, err := openLines(path)
	if err != nil {
		return nil, err
	}
	defer l.close()
	out := make([]int, 0, min(hint, 1<<24))
	for {
		b, err := l.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		v, err := strconv.Atoi(str(bytes.TrimSpace(b)))
		if err != nil || v < 0 || v > maxVal {
			return nil, l.errorf("%q is not an integer in [0, %d]", b, maxVal)
		}
		out = append(out, v)
	}
}

// readCount reads a file holding one count.
func readCount(path string) (int, error) {
	v, err := readInts(path, 1<<31-1, 1)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("%s: %d lines, want one count", path, len(v))
	}
	return v[0], nil
}

// readOGBEdges reads the edge list (two node ids per line, exactly ne
// lines) as a symmetric 0/1 CSR without self loops or repeats.
func readOGBEdges(ctx context.Context, path string, n, ne int) (*tensor.CSR, error) {
	l, err := openLines(path)
	if err != nil {
		return nil, err
	}
	defer l.close()
	src := make([]int32, 0, ne)
	dst := make([]int32, 0, ne)
	for {
		b, err := l.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(src)%(1<<20) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		a, c, ok := bytes.Cut(b, []byte{','})
		u, e1 := strconv.Atoi(str(bytes.TrimSpace(a)))
		v, e2 := strconv.Atoi(str(bytes.TrimSpace(c)))
		if !ok || e1 != nil || e2 != nil || u < 0 || v < 0 || u >= n || v >= n {
			return nil, l.errorf("%q is not an edge between two of %d nodes", b, n)
		}
		if len(src) == ne {
			return nil, l.errorf("more than the %d edges num-edge-list.csv.gz announces", ne)
		}
		src = append(src, int32(u))
		dst = append(dst, int32(v))
	}
	if len(src) != ne {
		return nil, fmt.Errorf("%s: %d edges, num-edge-list.csv.gz announces %d", path, len(src), ne)
	}
	return undirected(n, src, dst), nil
}

// undirected builds the symmetric pattern of the edges (both directions,
// self loops dropped, repeats merged) by a counting sort on rows.
func undirected(n int, src, dst []int32) *tensor.CSR {
	ptr := make([]int, n+1)
	for k, u := range src {
		if v := dst[k]; u != v {
			ptr[u+1]++
			ptr[v+1]++
		}
	}
	for i := range n {
		ptr[i+1] += ptr[i]
	}
	ind := make([]int32, ptr[n])
	next := slices.Clone(ptr[:n])
	for k, u := range src {
		if v := dst[k]; u != v {
			ind[next[u]] = v
			next[u]++
			ind[next[v]] = u
			next[v]++
		}
	}
	// Sort each row and drop repeats in place, compacting the rows.
	w := 0
	for i := range n {
		row := ind[ptr[i]:ptr[i+1]]
		slices.Sort(row)
		row = slices.Compact(row)
		ptr[i] = w
		w += copy(ind[w:], row)
	}
	ptr[n] = w
	ind = slices.Clip(ind[:w])
	vals := make([]float32, w)
	for i := range vals {
		vals[i] = 1
	}
	return &tensor.CSR{Rows: n, Cols: n, Indptr: ptr, Indices: ind, Values: vals}
}

// readOGBFeatures reads n rows of comma-separated floats (all rows the same
// width) into a CSR of their nonzeros.
func readOGBFeatures(ctx context.Context, path string, n int) (*tensor.CSR, error) {
	l, err := openLines(path)
	if err != nil {
		return nil, err
	}
	defer l.close()
	m := &tensor.CSR{Rows: n, Cols: -1, Indptr: make([]int, n+1)}
	row := 0
	for {
		b, err := l.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if row == n {
			return nil, l.errorf("more than %d feature rows", n)
		}
		if row%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		col := 0
		for len(b) > 0 {
			tok := b
			if i := bytes.IndexByte(b, ','); i >= 0 {
				tok, b = b[:i], b[i+1:]
			} else {
				b = nil
			}
			v, err := strconv.ParseFloat(str(bytes.TrimSpace(tok)), 32)
			if err != nil {
				return nil, l.errorf("feature %d: %q is not a number", col, tok)
			}
			if v != 0 {
				m.Indices = append(m.Indices, int32(col))
				m.Values = append(m.Values, float32(v))
			}
			col++
		}
		if m.Cols < 0 {
			m.Cols = col // the first row tells the width: reserve every row's (within reason)
			reserve := min(n*col, 1<<29)
			m.Indices = slices.Grow(m.Indices, reserve-len(m.Indices))
			m.Values = slices.Grow(m.Values, reserve-len(m.Values))
		} else if col != m.Cols {
			return nil, l.errorf("%d features, earlier rows have %d", col, m.Cols)
		}
		row++
		m.Indptr[row] = len(m.Indices)
	}
	if row != n {
		return nil, fmt.Errorf("%s: %d feature rows for %d nodes", path, row, n)
	}
	return m, nil
}
