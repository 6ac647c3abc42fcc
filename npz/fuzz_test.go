package npz

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/internal/zipseed"

	"github.com/rgnn/rgnn/internal/fixture"
)

// referenceSeeds returns the contents of up to perGlob reference fixtures
// per pattern (none when the fixtures are absent).
func referenceSeeds(tb testing.TB, perGlob int, patterns ...string) [][]byte {
	var out [][]byte
	for _, p := range patterns {
		files := fixture.ReferenceFiles(p)
		for _, f := range files[:min(perGlob, len(files))] {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// checkArray verifies the invariants of a decoded array: its shape holds
// its elements and every conversion returns one value per element.
func checkArray(t *testing.T, arr *Array) {
	t.Helper()
	for _, d := range arr.Shape {
		if d < 0 || d > maxElements {
			t.Fatalf("%s: dimension %d in shape %v", arr.Name, d, arr.Shape)
		}
	}
	if n := shapeCount(arr.Shape); n != arr.Len() {
		t.Fatalf("%s: shape %v holds %d elements, the data %d", arr.Name, arr.Shape, n, arr.Len())
	}
	if len(arr.Float32()) != arr.Len() || len(arr.Float64()) != arr.Len() {
		t.Fatalf("%s: conversions disagree with Len %d", arr.Name, arr.Len())
	}
	if v, err := arr.Int64(); err == nil && len(v) != arr.Len() {
		t.Fatalf("%s: Int64 gave %d values for %d", arr.Name, len(v), arr.Len())
	}
}

// FuzzRead: Read never panics, and every array it decodes is consistent.
// Seeds: small archives built here and, when present, reference fixtures.
func FuzzRead(f *testing.F) {
	good, _ := Encode(F32("w", []int{2, 2}, []float32{1, 2, 3, 4}), I64("i", []int{2}, []int64{1, 2}))
	f.Add(good)
	f.Add(zipseed.NoCRC(f, good))
	f.Add(good[:len(good)-7])
	f.Add(deflated(f))
	f.Add([]byte("PK\x03\x04"))
	scalar, _ := Encode(F64("s", []int{}, []float64{0.5}), I32("e", []int{0, 3}, nil))
	f.Add(scalar)
	// Not the pretrained weights (740 KB each): inputs that large slow the
	// fuzzer to a few executions a second; FuzzLoadWeights seeds from them.
	for _, b := range referenceSeeds(f, 1, "attacks/*.npz", "smoothing_votes/*.npz", "splits_*.npz") {
		f.Add(b)
		f.Add(zipseed.NoCRC(f, b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Read(bytes.NewReader(b), int64(len(b)), "fuzz.npz")
		if err != nil {
			return
		}
		for _, k := range a.Keys() {
			arr, err := a.Array(k)
			if err != nil {
				t.Fatal(err)
			}
			checkArray(t, arr)
		}
	})
}

// npyV2 is the .npy version 2 encoding (32-bit header length).
func npyV2(descr string, shape []int, data []byte) []byte {
	v1 := encodeNpy(descr, shape, data)
	hlen := binary.LittleEndian.Uint16(v1[8:10])
	out := append([]byte("\x93NUMPY\x02\x00"), binary.LittleEndian.AppendUint32(nil, uint32(hlen))...)
	return append(out, v1[10:]...)
}

// FuzzParseNpy fuzzes the .npy decoder directly (inside an archive the
// CRC check rejects almost every mutation before it reaches the header):
// it never panics, never accepts a header whose data is missing, and what
// it decodes re-encodes to the same values.
func FuzzParseNpy(f *testing.F) {
	for _, e := range []Entry{
		F32("f", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
		F64("d", []int{}, []float64{2.5}),
		I64("i", []int{3}, []int64{-1, 0, 1 << 40}),
		I32("j", []int{0}, nil),
	} {
		f.Add(encodeNpy(e.descr, e.Shape, e.data))
	}
	f.Add(encodeNpy(">i4", []int{1}, []byte{0, 0, 1, 2}))
	f.Add(encodeNpy("|b1", []int{2}, []byte{0, 1}))
	f.Add(encodeNpy("<u2", []int{1, 1}, []byte{7, 0}))
	f.Add(encodeNpy("|O", []int{}, []byte("\x80\x02N.")))
	f.Add(npyV2("<f4", []int{1}, []byte{0, 0, 128, 63}))
	f.Add(encodeNpy("<f8", []int{1 << 20, 1 << 20}, nil)) // a header claiming 2^40 elements
	for _, b := range referenceSeeds(f, 1, "attacks/*.npz", "splits_*.npz", "smoothing_votes/*.npz") {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range zr.File {
			if e.UncompressedSize64 > 64<<10 {
				continue
			}
			rc, err := e.Open()
			if err != nil {
				f.Fatal(err)
			}
			npy, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(npy)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		arr, err := parseNpy("x", b)
		if err != nil {
			return
		}
		checkArray(t, arr)
		if len(arr.data) > len(b) {
			t.Fatalf("%d data bytes from a %d-byte file", len(arr.data), len(b))
		}
		descr := arr.Dtype
		if arr.size > 1 {
			descr = fmt.Sprintf("<%c%d", arr.kind, arr.size)
		}
		back, err := parseNpy("x", encodeNpy(descr, arr.Shape, arr.data))
		if err != nil {
			t.Fatalf("re-encoded %s %v: %v", descr, arr.Shape, err)
		}
		if !slices.Equal(back.Shape, arr.Shape) || !bytes.Equal(back.data, arr.data) {
			t.Fatalf("round trip changed %s %v", descr, arr.Shape)
		}
	})
}

// TestHugeDimensions: a header may not claim a dimension above the limit,
// even when another dimension is 0 and the array is empty (found by
// FuzzParseNpy's invariant).
func TestHugeDimensions(t *testing.T) {
	for _, shape := range [][]int{{0, 1 << 40}, {1 << 40, 0}, {1 << 20, 1 << 20}, {maxElements + 1}} {
		if arr, err := parseNpy("x", encodeNpy("<f4", shape, nil)); err == nil {
			t.Errorf("shape %v accepted: %v", shape, arr.Shape)
		}
	}
	if _, err := parseNpy("x", encodeNpy("<f4", []int{0, maxElements}, nil)); err != nil {
		t.Errorf("shape (0, 2^31): %v", err)
	}
}
