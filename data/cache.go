package data

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/rgnn/rgnn/tensor"
)

// The binary graph cache (OGB datasets, large .npz files): a fixed header —
// magic, format version, CRC-32C (Castagnoli) and length of everything
// after the header — then a JSON description (the source fingerprint and
// the array lengths) and the arrays, little-endian: adjacency indptr
// (int64) and indices (int32), feature indptr (int64), indices (int32) and
// values (float32), labels (int32), the kept nodes' raw ids (int32), and the
// train, validation and test node ids (int32) of a fixed split. A cache
// whose magic, version, checksum, length or fingerprint does not match is
// rebuilt.
const (
	cacheMagic      = "RGNNGRF\x00"
	cacheVersion    = 1
	cacheHeaderSize = 8 + 4 + 4 + 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type cacheMeta struct {
	Fingerprint string `json:"fingerprint"`
	Nodes       int    `json:"nodes"`
	AdjNnz      int    `json:"adj_nnz"`
	FeatCols    int    `json:"feat_cols"`
	FeatNnz     int    `json:"feat_nnz"`
	Classes     int    `json:"classes"`
	RawNodes    int    `json:"raw_nodes"`
	HasSplit    bool   `json:"has_split"`
	Split       string `json:"split"`
	Train       int    `json:"train"`
	Valid       int    `json:"valid"`
	Test        int    `json:"test"`
	// Changes of the standardisation (absent in caches written before they
	// were recorded: then none are reported).
	Changes Changes `json:"changes"`
}

// writeCache writes g's cache to path atomically (its values as loaded,
// before any binarisation).
func writeCache(path, fingerprint string, g *Graph) error {
	meta := cacheMeta{Fingerprint: fingerprint, Nodes: g.NumNodes(), AdjNnz: g.Adj.Nnz(),
		FeatCols: g.Features.Cols, FeatNnz: g.Features.Nnz(), Classes: g.NumClasses, RawNodes: g.RawNodes,
		Changes: g.Changes}
	sp := g.Split
	if sp != nil {
		meta.HasSplit, meta.Split, meta.Train, meta.Valid, meta.Test = true, sp.Name, len(sp.Train), len(sp.Val), len(sp.Test)
	} else {
		sp = &FixedSplit{}
	}
	if len(g.LCCNodes) != g.NumNodes() {
		return fmt.Errorf("write %s: %d kept nodes for %d", path, len(g.LCCNodes), g.NumNodes())
	}
	mj, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	if _, err := f.Write(make([]byte, cacheHeaderSize)); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	crc := crc32.New(castagnoli)
	cw := &countWriter{w: crc}
	bw := bufio.NewWriterSize(io.MultiWriter(f, cw), 1<<20)
	e := &leWriter{w: bw}
	e.u32(uint32(len(mj)))
	e.bytes(mj)
	e.ints64(g.Adj.Indptr)
	e.i32s(g.Adj.Indices)
	e.ints64(g.Features.Indptr)
	e.i32s(g.Features.Indices)
	e.f32s(g.Features.Values)
	e.i32s(g.Labels)
	for _, v := range g.LCCNodes {
		e.u32(uint32(v))
	}
	for _, part := range [][]int{sp.Train, sp.Val, sp.Test} {
		for _, v := range part {
			e.u32(uint32(v))
		}
	}
	err = e.err
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		var h [cacheHeaderSize]byte
		copy(h[:], cacheMagic)
		binary.LittleEndian.PutUint32(h[8:], cacheVersion)
		binary.LittleEndian.PutUint32(h[12:], crc.Sum32())
		binary.LittleEndian.PutUint64(h[16:], uint64(cw.n))
		_, err = f.WriteAt(h[:], 0)
	}
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 would hide a shared data dir's cache
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// leWriter writes little-endian values, remembering the first error.
type leWriter struct {
	w   *bufio.Writer
	b   [8]byte
	err error
}

func (e *leWriter) bytes(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}
func (e *leWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.b[:4], v)
	e.bytes(e.b[:4])
}
func (e *leWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.b[:], v)
	e.bytes(e.b[:])
}
func (e *leWriter) ints64(v []int) {
	for _, x := range v {
		e.u64(uint64(x))
	}
}
func (e *leWriter) i32s(v []int32) {
	if littleEndian && len(v) > 0 {
		e.bytes(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		return
	}
	for _, x := range v {
		e.u32(uint32(x))
	}
}
func (e *leWriter) f32s(v []float32) {
	if littleEndian && len(v) > 0 {
		e.bytes(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		return
	}
	for _, x := range v {
		e.u32(math.Float32bits(x))
	}
}

// errStale marks a cache built from other files or by another version.
var errStale = errors.New("stale cache")

// readCache loads a cache written by writeCache for the given fingerprint;
// any mismatch or damage is an error (the caller rebuilds).
func readCache(path, fingerprint string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var h [cacheHeaderSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if string(h[:8]) != cacheMagic || binary.LittleEndian.Uint32(h[8:]) != cacheVersion {
		return nil, fmt.Errorf("%s: not a version-%d rgnn graph cache: %w", path, cacheVersion, errStale)
	}
	want := binary.LittleEndian.Uint32(h[12:])
	size := int64(binary.LittleEndian.Uint64(h[16:]))
	if size != st.Size()-cacheHeaderSize {
		return nil, fmt.Errorf("%s: %d bytes after the header, %d recorded (truncated?)", path, st.Size()-cacheHeaderSize, size)
	}
	crc := crc32.New(castagnoli)
	d := &leReader{r: bufio.NewReaderSize(io.TeeReader(f, crc), 1<<20)}
	mlen := int(d.u32())
	if d.err != nil || mlen > 1<<20 {
		return nil, fmt.Errorf("%s: bad description length", path)
	}
	mj := make([]byte, mlen)
	d.read(mj)
	var meta cacheMeta
	if d.err != nil || json.Unmarshal(mj, &meta) != nil {
		return nil, fmt.Errorf("%s: bad description", path)
	}
	if meta.Fingerprint != fingerprint {
		return nil, fmt.Errorf("%s: built from other files: %w", path, errStale)
	}
	n := meta.Nodes
	// The lengths must account for the file size exactly before anything
	// is allocated from them.
	need := int64(4+mlen) + 8*int64(n+1) + 4*int64(meta.AdjNnz) + 8*int64(n+1) + 8*int64(meta.FeatNnz) +
		8*int64(n) + 4*int64(meta.Train+meta.Valid+meta.Test)
	if n < 0 || meta.RawNodes < n || meta.AdjNnz < 0 || meta.FeatNnz < 0 || meta.Train < 0 || meta.Valid < 0 || meta.Test < 0 || need != size {
		return nil, fmt.Errorf("%s: recorded lengths do not match the file", path)
	}
	g := &Graph{NumClasses: meta.Classes, RawNodes: meta.RawNodes, Changes: meta.Changes}
	g.Adj = &tensor.CSR{Rows: n, Cols: n, Indptr: d.ints64(n + 1), Indices: d.i32s(meta.AdjNnz)}
	g.Features = &tensor.CSR{Rows: n, Cols: meta.FeatCols, Indptr: d.ints64(n + 1),
		Indices: d.i32s(meta.FeatNnz), Values: d.f32s(meta.FeatNnz)}
	g.Labels = d.i32s(n)
	g.LCCNodes = widen(d.i32s(n))
	sp := &FixedSplit{Name: meta.Split}
	sp.Train, sp.Val, sp.Test = widen(d.i32s(meta.Train)), widen(d.i32s(meta.Valid)), widen(d.i32s(meta.Test))
	if meta.HasSplit {
		g.Split = sp
	}
	if d.err != nil {
		return nil, fmt.Errorf("%s: %w", path, d.err)
	}
	if _, err := d.r.Peek(1); err != io.EOF {
		return nil, fmt.Errorf("%s: trailing bytes", path)
	}
	if got := crc.Sum32(); got != want {
		return nil, fmt.Errorf("%s: checksum %08x, recorded %08x (damaged)", path, got, want)
	}
	g.Adj.Values = make([]float32, g.Adj.Nnz())
	for i := range g.Adj.Values {
		g.Adj.Values[i] = 1
	}
	if err := checkCached(g); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

func widen(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// checkCached verifies the bounds every consumer relies on (linear time,
// a fraction of the read): index pointers, column and label ranges, kept
// and split node ids.
func checkCached(g *Graph) error {
	n := g.Adj.Rows
	for _, m := range []*tensor.CSR{g.Adj, g.Features} {
		if m.Indptr[0] != 0 || m.Indptr[n] != len(m.Indices) {
			return errors.New("inconsistent index pointers")
		}
		for i := range n {
			if m.Indptr[i+1] < m.Indptr[i] {
				return fmt.Errorf("index pointer decreases at row %d", i)
			}
		}
		for _, c := range m.Indices {
			if c < 0 || int(c) >= m.Cols {
				return fmt.Errorf("column %d outside %d", c, m.Cols)
			}
		}
	}
	for _, y := range g.Labels {
		if y < 0 || int(y) >= g.NumClasses {
			return fmt.Errorf("label %d outside %d classes", y, g.NumClasses)
		}
	}
	for i, v := range g.LCCNodes {
		if v < i || v >= g.RawNodes || (i > 0 && v <= g.LCCNodes[i-1]) {
			return fmt.Errorf("kept node %d: raw id %d out of order or outside %d", i, v, g.RawNodes)
		}
	}
	if g.Split == nil {
		return nil
	}
	for _, part := range [][]int{g.Split.Train, g.Split.Val, g.Split.Test} {
		for _, v := range part {
			if v < 0 || v >= n {
				return fmt.Errorf("split node %d outside %d nodes", v, n)
			}
		}
	}
	return nil
}

// leReader reads little-endian arrays, remembering the first error.
type leReader struct {
	r   *bufio.Reader
	b   [8]byte
	err error
}

func (d *leReader) read(p []byte) {
	if d.err == nil {
		_, d.err = io.ReadFull(d.r, p)
	}
}

func (d *leReader) u32() uint32 {
	d.read(d.b[:4])
	return binary.LittleEndian.Uint32(d.b[:4])
}

// chunks calls fn with consecutive pieces of the next n·width bytes.
func (d *leReader) chunks(n, width int, fn func(off int, p []byte)) {
	buf := make([]byte, 1<<20)
	per := len(buf) / width
	for off := 0; off < n && d.err == nil; off += per {
		k := min(per, n-off)
		d.read(buf[:k*width])
		if d.err == nil {
			fn(off, buf[:k*width])
		}
	}
}

func (d *leReader) ints64(n int) []int {
	out := make([]int, n)
	d.chunks(n, 8, func(off int, p []byte) {
		for i := range len(p) / 8 {
			out[off+i] = int(int64(binary.LittleEndian.Uint64(p[8*i:])))
		}
	})
	return out
}

// littleEndian reports whether the host stores words little-endian, so the
// file's arrays can be read straight into typed slices.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// raw reads the next len(b) bytes into b (a typed slice's memory).
func (d *leReader) raw(b []byte) { d.read(b) }

func (d *leReader) i32s(n int) []int32 {
	out := make([]int32, n)
	if littleEndian && n > 0 {
		d.raw(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*n))
		return out
	}
	d.chunks(n, 4, func(off int, p []byte) {
		for i := range len(p) / 4 {
			out[off+i] = int32(binary.LittleEndian.Uint32(p[4*i:]))
		}
	})
	return out
}

func (d *leReader) f32s(n int) []float32 {
	out := make([]float32, n)
	if littleEndian && n > 0 {
		d.raw(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*n))
		return out
	}
	d.chunks(n, 4, func(off int, p []byte) {
		for i := range len(p) / 4 {
			out[off+i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		}
	})
	return out
}
