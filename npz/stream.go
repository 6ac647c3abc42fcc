package npz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Kind is the element kind of the array's dtype: 'f' (float), 'i' (signed
// integer), 'u' (unsigned integer) or 'b' (bool).
func (a *Array) Kind() byte { return a.kind }

// ParseNpy decodes the bytes of one .npy file (np.save's format) named name
// in errors.
func ParseNpy(name string, b []byte) (*Array, error) {
	arr, err := parseNpy(name, b)
	if errors.Is(err, errSkip) {
		return nil, fmt.Errorf("%s: unsupported dtype (want a float, integer or bool array; not object or string)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return arr, nil
}

// ReadNpyFile reads a .npy file (at most maxBytes; ≤ 0: no limit).
func ReadNpyFile(path string, maxBytes int64) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadNpy(f, path, maxBytes)
}

// ReadNpy reads one .npy array from a stream (np.lib.format.write_array's
// output), consuming exactly its bytes: the header tells how many data bytes
// follow. Arrays of more than maxBytes data bytes (≤ 0: no limit) are
// refused before anything is allocated for them.
func ReadNpy(r io.Reader, name string, maxBytes int64) (*Array, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("%s: reading the .npy preamble: %w", name, err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("%s: not a .npy array (bad magic %q)", name, pre[:6])
	}
	var hlen int
	head := pre[:]
	switch pre[6] {
	case 1:
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		var more [2]byte
		if _, err := io.ReadFull(r, more[:]); err != nil {
			return nil, fmt.Errorf("%s: reading the .npy preamble: %w", name, err)
		}
		head = append(head, more[:]...)
		hlen = int(binary.LittleEndian.Uint32(head[8:12]))
	default:
		return nil, fmt.Errorf("%s: unsupported .npy version %d", name, pre[6])
	}
	if hlen > 1<<16 {
		return nil, fmt.Errorf("%s: .npy header of %d bytes", name, hlen)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, fmt.Errorf("%s: reading the .npy header: %w", name, err)
	}
	head = append(head, hb...)
	// Parse the header alone (no data yet) to learn the data size.
	probe, err := parseNpyHeader(name, head)
	if err != nil {
		return nil, err
	}
	need := int64(probe.count) * int64(probe.size)
	if maxBytes > 0 && need > maxBytes {
		return nil, fmt.Errorf("%s: array %v of %s is %d bytes, more than the %d allowed", name, probe.shape, probe.descr, need, maxBytes)
	}
	buf := make([]byte, len(head)+int(need))
	copy(buf, head)
	if _, err := io.ReadFull(r, buf[len(head):]); err != nil {
		return nil, fmt.Errorf("%s: reading %d data bytes: %w", name, need, err)
	}
	return ParseNpy(name, buf)
}

type npyHeader struct {
	descr       string
	shape       []int
	count, size int
}

// parseNpyHeader decodes a .npy preamble and header without data: parseNpy
// on the header alone, which fails only for the missing data (or reports
// the header's own problem).
func parseNpyHeader(name string, head []byte) (*npyHeader, error) {
	_, err := parseNpy(name, head)
	var short *shortData
	switch {
	case err == nil: // an empty array
		a, _ := parseNpy(name, head)
		return &npyHeader{descr: a.Dtype, shape: a.Shape, size: a.size}, nil
	case errors.As(err, &short):
		return &npyHeader{descr: short.descr, shape: short.shape, count: short.count, size: short.size}, nil
	case errors.Is(err, errSkip):
		return nil, fmt.Errorf("%s: unsupported dtype (want a float, integer or bool array; not object or string)", name)
	}
	return nil, fmt.Errorf("%s: %w", name, err)
}

// shortData is parseNpy's error for data shorter than the header says.
type shortData struct {
	descr       string
	shape       []int
	count, size int
	have        int
}

func (e *shortData) Error() string {
	return fmt.Sprintf("truncated data: shape %v of %s needs %d bytes, %d present", e.shape, e.descr, e.count*e.size, e.have)
}

// WriteNpy writes e as one .npy array (version 1.0) to w.
func WriteNpy(w io.Writer, e Entry) error {
	size := len(e.data) / max(1, int(e.descr[2]-'0'))
	if shapeCount(e.Shape) != size {
		return fmt.Errorf("npy: entry %s: shape %v does not hold %d values", e.Name, e.Shape, size)
	}
	_, err := w.Write(encodeNpy(e.descr, e.Shape, e.data))
	return err
}

// Npy returns e encoded as a .npy file.
func (e Entry) Npy() []byte { return encodeNpy(e.descr, e.Shape, e.data) }

// Bool makes an entry of bool values (numpy's |b1).
func Bool(name string, shape []int, v []bool) Entry {
	b := make([]byte, len(v))
	for i, x := range v {
		if x {
			b[i] = 1
		}
	}
	return Entry{Name: name, Shape: shape, descr: "|b1", data: b}
}
