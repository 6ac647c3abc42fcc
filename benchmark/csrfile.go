package benchmark

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/rgnn/rgnn/tensor"
)

// csrMagic starts a CSR file: the header is the magic, rows, cols and nnz
// (little-endian uint64), then indptr (uint64), indices (int32) and values
// (float32 bits). The scale benchmark keeps its top-k PPR matrices in
// this form between its stages; it is not a user-facing format.
const csrMagic = "rgnn-csr-v1\n"

// writeCSR writes a to path (through a temporary file renamed at the end).
func writeCSR(path string, a *tensor.CSR) (err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var buf [8]byte
	u64 := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		w.Write(buf[:])
	}
	u32 := func(v uint32) {
		binary.LittleEndian.PutUint32(buf[:4], v)
		w.Write(buf[:4])
	}
	w.WriteString(csrMagic)
	u64(uint64(a.Rows))
	u64(uint64(a.Cols))
	u64(uint64(a.Nnz()))
	for _, p := range a.Indptr {
		u64(uint64(p))
	}
	for _, c := range a.Indices {
		u32(uint32(c))
	}
	for _, v := range a.Values {
		u32(math.Float32bits(v))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readCSR reads a file of writeCSR and checks its structure.
func readCSR(path string) (*tensor.CSR, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(csrMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != csrMagic {
		return nil, fmt.Errorf("%s: not a CSR file of the scale benchmark", path)
	}
	var buf [8]byte
	var rerr error
	u64 := func() uint64 {
		if _, err := io.ReadFull(r, buf[:]); err != nil && rerr == nil {
			rerr = err
		}
		return binary.LittleEndian.Uint64(buf[:])
	}
	u32 := func() uint32 {
		if _, err := io.ReadFull(r, buf[:4]); err != nil && rerr == nil {
			rerr = err
		}
		return binary.LittleEndian.Uint32(buf[:4])
	}
	rows, cols, nnz := u64(), u64(), u64()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if rerr != nil || rows > 1<<40 || cols > 1<<31 || uint64(len(csrMagic))+24+8*(rows+1)+8*nnz != uint64(st.Size()) {
		return nil, fmt.Errorf("%s: damaged CSR file", path)
	}
	a := &tensor.CSR{Rows: int(rows), Cols: int(cols), Indptr: make([]int, rows+1),
		Indices: make([]int32, nnz), Values: make([]float32, nnz)}
	for i := range a.Indptr {
		a.Indptr[i] = int(u64())
	}
	for i := range a.Indices {
		a.Indices[i] = int32(u32())
	}
	for i := range a.Values {
		a.Values[i] = math.Float32frombits(u32())
	}
	if rerr != nil {
		return nil, fmt.Errorf("%s: %w", path, rerr)
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// floatsMagic starts a file of float64 values (writeFloats): the magic,
// the count (little-endian uint64), then the values' bits.
const floatsMagic = "rgnn-f64-v1\n"

// writeFloats writes v to path (through a temporary file renamed at the
// end): the top-k PPR matrix's row sums beside the matrix.
func writeFloats(path string, v []float64) (err error) {
	tmp := path + ".tmp"
	b := make([]byte, 0, len(floatsMagic)+8+8*len(v))
	b = append(b, floatsMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readFloats reads a file of writeFloats.
func readFloats(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h := len(floatsMagic)
	if len(b) < h+8 || string(b[:h]) != floatsMagic {
		return nil, fmt.Errorf("%s: not a float file of the scale benchmark", path)
	}
	n := binary.LittleEndian.Uint64(b[h:])
	if uint64(len(b)) != uint64(h)+8+8*n {
		return nil, fmt.Errorf("%s: damaged float file", path)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[h+8+8*i:]))
	}
	return out, nil
}
