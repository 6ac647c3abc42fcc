package npz

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npz")
	err := WriteFile(path,
		F32("w", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6.5}),
		I64("idx", []int{4}, []int64{-1, 0, 1 << 40, 7}),
		F64("s", []int{}, []float64{3.25}),
		I32("i", []int{2}, []int32{5, -6}))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	w, shape, err := a.Float32("w")
	if err != nil || len(shape) != 2 || shape[0] != 2 || shape[1] != 3 || w[5] != 6.5 {
		t.Fatalf("w = %v %v %v", w, shape, err)
	}
	idx, _, err := a.Int64("idx")
	if err != nil || idx[2] != 1<<40 || idx[0] != -1 {
		t.Fatalf("idx = %v %v", idx, err)
	}
	s, shape, _ := a.Float64("s")
	if len(shape) != 0 || s[0] != 3.25 {
		t.Fatalf("scalar = %v %v", s, shape)
	}
	if _, err := a.Array("missing"); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing key error: %v", err)
	}
	if err := WriteFile(path, F32("bad", []int{3}, []float32{1})); err == nil {
		t.Fatal("wrong shape accepted")
	}
}

// deflated returns an archive whose entries are compressed, plus a pickled
// object entry and a unicode entry that must be skipped.
func deflated(t testing.TB) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, 5) })
	add := func(name string, b []byte, m uint16) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	add("a.data.npy", encodeNpy("<f8", []int{3}, F64("", []int{3}, []float64{1, 2, 3}).data), zip.Deflate)
	add("labels.npy", encodeNpy("|i1", []int{2}, []byte{3, 0xff}), zip.Deflate)
	add("meta.npy", encodeNpy("|O", []int{}, []byte("\x80\x02N.")), zip.Store)
	add("names.npy", encodeNpy("<U3", []int{1}, make([]byte, 12)), zip.Store)
	add("big.npy", encodeNpy(">i4", []int{1}, []byte{0, 0, 1, 2}), zip.Store)
	zw.Close()
	return buf.Bytes()
}

func TestCompressedAndSkipped(t *testing.T) {
	b := deflated(t)
	a, err := Read(bytes.NewReader(b), int64(len(b)), "mem.npz")
	if err != nil {
		t.Fatal(err)
	}
	v, _, _ := a.Float32("a.data")
	l, _, _ := a.Int64("labels")
	big, _, _ := a.Int64("big")
	if v[2] != 3 || l[0] != 3 || l[1] != -1 || big[0] != 258 {
		t.Fatalf("values %v %v %v", v, l, big)
	}
	if got := a.Skipped(); len(got) != 2 {
		t.Fatalf("skipped %v", got)
	}
}

func TestCorrupt(t *testing.T) {
	good, _ := Encode(F32("w", []int{100}, make([]float32, 100)))
	cases := map[string][]byte{
		"empty":     {},
		"garbage":   []byte("hello world, not a zip"),
		"truncated": good[:len(good)/2],
	}
	// A header declaring more data than present.
	lying, _ := Encode(Entry{Name: "w", Shape: []int{1}, descr: "<f4", data: make([]byte, 4)})
	lying = bytes.Replace(lying, []byte("(1,)"), []byte("(9,)"), 1)
	cases["short data"] = lying
	for name, b := range cases {
		if _, err := Read(bytes.NewReader(b), int64(len(b)), name+".npz"); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
	if _, err := Open(filepath.Join(t.TempDir(), "nope.npz")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestReadSharedFiles(t *testing.T) {
	dir := fixture.DataDir(t)
	for _, name := range []string{"cora_ml", "citeseer", "cora", "polblogs"} {
		a, err := Open(filepath.Join(dir, name+".npz"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(a.Keys()) == 0 {
			t.Fatalf("%s: no arrays", name)
		}
	}
	ref := fixture.ReferenceDir(t)
	files, _ := filepath.Glob(filepath.Join(ref, "*", "*.npz"))
	for _, f := range files {
		if _, err := Open(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}
