package npz

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/internal/outfile"
)

// Archive is a decoded .npz file.
type Archive struct {
	// Path names the file in error messages.
	Path string
	// Comment is the zip archive's comment (numpy writes none; rgnn records
	// what a file holds there, e.g. the model of a weights file).
	Comment string
	arrays  map[string]*Array
	skipped []string
}

// Open reads and decodes the archive at path.
func Open(path string) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Read(f, st.Size(), path)
}

// maxEntryBytes bounds one decompressed entry (4 GiB).
const maxEntryBytes = 4 << 30

// Read decodes an archive of the given size; name is used in errors.
func Read(r io.ReaderAt, size int64, name string) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid .npz (zip) file: %w", name, err)
	}
	a := &Archive{Path: name, Comment: zr.Comment, arrays: map[string]*Array{}}
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if f.UncompressedSize64 > maxEntryBytes {
			return nil, fmt.Errorf("%s: entry %s declares %d bytes", name, f.Name, f.UncompressedSize64)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: entry %s: %w", name, f.Name, err)
		}
		// Read the declared size, then to the end: the zip reader verifies
		// the size and CRC there. The buffer starts at what the entry's
		// compressed bytes can hold (stored: themselves; deflate: at most
		// 1032 times as much), so a damaged size field does not allocate
		// gigabytes that no data follows.
		b := bytes.NewBuffer(make([]byte, 0, min(f.UncompressedSize64, entryBound(f, size))+bytes.MinRead))
		var k int64
		k, err = io.Copy(b, io.LimitReader(rc, int64(f.UncompressedSize64)+1))
		switch {
		case err != nil:
		case k > int64(f.UncompressedSize64):
			err = errors.New("entry longer than declared")
		case k < int64(f.UncompressedSize64):
			err = io.ErrUnexpectedEOF
		}
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: entry %s: %w", name, f.Name, err)
		}
		arr, err := parseNpy(key, b.Bytes())
		if errors.Is(err, errSkip) {
			a.skipped = append(a.skipped, key)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: entry %s: %w", name, f.Name, err)
		}
		a.arrays[key] = arr
	}
	return a, nil
}

// entryBound bounds the decompressed size of a zip entry by its compressed
// bytes (within an archive of size bytes): a stored entry is its compressed
// bytes, deflate expands at most 1032-fold.
func entryBound(f *zip.File, size int64) uint64 {
	c := min(f.CompressedSize64, uint64(max(size, 0)))
	if f.Method == zip.Store {
		return c
	}
	return c*1032 + 1<<16
}

// Keys lists the decoded arrays in sorted order.
func (a *Archive) Keys() []string {
	keys := make([]string, 0, len(a.arrays))
	for k := range a.arrays {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Skipped lists the entries that were skipped (pickled objects, strings).
func (a *Archive) Skipped() []string { return slices.Clone(a.skipped) }

// Has reports whether the archive holds a decoded array under key.
func (a *Archive) Has(key string) bool { _, ok := a.arrays[key]; return ok }

// Array returns the array under key.
func (a *Archive) Array(key string) (*Array, error) {
	arr, ok := a.arrays[key]
	if !ok {
		return nil, fmt.Errorf("%s: no array %q (has %v)", a.Path, key, a.Keys())
	}
	return arr, nil
}

// Float32 returns the array under key as float32 with its shape.
func (a *Archive) Float32(key string) ([]float32, []int, error) {
	arr, err := a.Array(key)
	if err != nil {
		return nil, nil, err
	}
	return arr.Float32(), arr.Shape, nil
}

// Float64 returns the array under key as float64 with its shape.
func (a *Archive) Float64(key string) ([]float64, []int, error) {
	arr, err := a.Array(key)
	if err != nil {
		return nil, nil, err
	}
	return arr.Float64(), arr.Shape, nil
}

// Int32 returns the array under key as int32 with its shape.
func (a *Archive) Int32(key string) ([]int32, []int, error) {
	arr, err := a.Array(key)
	if err != nil {
		return nil, nil, err
	}
	v, err := arr.Int32()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", a.Path, err)
	}
	return v, arr.Shape, nil
}

// Int64 returns the array under key as int64 with its shape.
func (a *Archive) Int64(key string) ([]int64, []int, error) {
	arr, err := a.Array(key)
	if err != nil {
		return nil, nil, err
	}
	v, err := arr.Int64()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", a.Path, err)
	}
	return v, arr.Shape, nil
}

// Entry is an array to write.
type Entry struct {
	Name  string
	Shape []int
	descr string
	data  []byte
}

func shapeCount(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// F32 makes an entry of float32 values.
func F32(name string, shape []int, v []float32) Entry {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Entry{Name: name, Shape: shape, descr: "<f4", data: b}
}

// F64 makes an entry of float64 values.
func F64(name string, shape []int, v []float64) Entry {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return Entry{Name: name, Shape: shape, descr: "<f8", data: b}
}

// I64 makes an entry of int64 values.
func I64(name string, shape []int, v []int64) Entry {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return Entry{Name: name, Shape: shape, descr: "<i8", data: b}
}

// I32 makes an entry of int32 values.
func I32(name string, shape []int, v []int32) Entry {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return Entry{Name: name, Shape: shape, descr: "<i4", data: b}
}

// Encode returns the bytes of an uncompressed .npz holding entries.
func Encode(entries ...Entry) ([]byte, error) { return EncodeComment("", entries...) }

// EncodeComment is Encode with a zip archive comment (invisible to
// numpy.load; Archive.Comment reads it back).
func EncodeComment(comment string, entries ...Entry) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if comment != "" {
		if err := zw.SetComment(comment); err != nil {
			return nil, fmt.Errorf("npz: %w", err)
		}
	}
	for _, e := range entries {
		size := len(e.data) / max(1, int(e.descr[2]-'0'))
		if shapeCount(e.Shape) != size {
			return nil, fmt.Errorf("npz: entry %s: shape %v does not hold %d values", e.Name, e.Shape, size)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name + ".npy", Method: zip.Store})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(encodeNpy(e.descr, e.Shape, e.data)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes entries to path with [AtomicWrite].
func WriteFile(path string, entries ...Entry) error { return WriteFileComment(path, "", entries...) }

// WriteFileComment is WriteFile with a zip archive comment (EncodeComment).
func WriteFileComment(path, comment string, entries ...Entry) error {
	b, err := EncodeComment(comment, entries...)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return AtomicWrite(path, b)
}

// AtomicWrite writes b to path through package outfile: a regular file (or
// a new path) via a temporary file in the same directory, fsync and
// rename, so readers never see a partial file; a device, FIFO or "-"
// (standard output) directly, never replaced. A failed write leaves
// nothing behind and names the path.
func AtomicWrite(path string, b []byte) error { return outfile.WriteFile(path, b) }
