package synth

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rgnn/rgnn/internal/outfile"
)

// npyEntry is one array of the archive, streamed from src or from a file.
type npyEntry struct {
	name  string
	descr string // "<f4", "<i4", "<i8"
	shape []int64
	src   io.Reader
	file  string
}

// npyHeader returns the .npy v1 header (numpy's padding to 64 bytes).
func npyHeader(descr string, shape []int64) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.FormatInt(d, 10)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	pad := (64 - (10+len(h)+1)%64) % 64
	h += strings.Repeat(" ", pad) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(h)))
	return append(b, h...)
}

// writeNpz writes an uncompressed .npz of the entries to path through
// package outfile (a regular file atomically: a temporary file beside it,
// fsync, rename; a special file directly). Each entry's source must hold
// exactly its shape's bytes.
func writeNpz(path string, entries []npyEntry) error {
	return outfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		zw := zip.NewWriter(bw)
		for _, e := range entries {
			if err := writeEntry(zw, e); err != nil {
				return err
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
		return bw.Flush()
	})
}

func writeEntry(zw *zip.Writer, e npyEntry) error {
	size := int64(1)
	for _, d := range e.shape {
		size *= d
	}
	width, _ := strconv.Atoi(e.descr[2:])
	size *= int64(width)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name + ".npy", Method: zip.Store})
	if err != nil {
		return err
	}
	if _, err := w.Write(npyHeader(e.descr, e.shape)); err != nil {
		return err
	}
	src := e.src
	if e.file != "" {
		f, err := os.Open(e.file)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	n, err := io.Copy(w, io.LimitReader(src, size))
	if err != nil {
		return fmt.Errorf("entry %s: %w", e.name, err)
	}
	if n != size {
		return fmt.Errorf("entry %s: %d bytes for shape %v of %s, want %d", e.name, n, e.shape, e.descr, size)
	}
	return nil
}

// i64Reader streams int64 values little-endian.
func i64Reader(v []int64) io.Reader { return &i64Stream{v: v} }

type i64Stream struct{ v []int64 }

func (s *i64Stream) Read(p []byte) (int, error) {
	if len(s.v) == 0 {
		return 0, io.EOF
	}
	k := min(len(p)/8, len(s.v))
	if k == 0 {
		return 0, io.ErrShortBuffer
	}
	for i := range k {
		binary.LittleEndian.PutUint64(p[8*i:], uint64(s.v[i]))
	}
	s.v = s.v[k:]
	return 8 * k, nil
}

// onesF32 streams n float32 ones.
func onesF32(n int64) io.Reader { return &onesStream{left: n} }

type onesStream struct{ left int64 }

func (s *onesStream) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)/4), s.left)
	if k == 0 {
		return 0, io.ErrShortBuffer
	}
	for i := range k {
		binary.LittleEndian.PutUint32(p[4*i:], 0x3f800000)
	}
	s.left -= k
	return int(4 * k), nil
}
