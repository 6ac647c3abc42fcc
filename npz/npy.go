package npz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Array is one decoded array: its name, dtype (numpy descr, e.g. "<f4"),
// shape and raw little-endian-normalised element bytes.
type Array struct {
	Name  string
	Dtype string
	Shape []int
	kind  byte // 'f', 'i', 'u', 'b'
	size  int  // bytes per element
	data  []byte
}

// Len returns the number of elements.
func (a *Array) Len() int { return len(a.data) / max(a.size, 1) }

var (
	descrRe = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	orderRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// errSkip marks entries of a dtype this package does not represent.
var errSkip = errors.New("unsupported dtype")

// maxElements bounds a single array and each of its dimensions (2^31
// elements) as a sanity limit.
const maxElements = 1 << 31

// parseNpy decodes one .npy file.
func parseNpy(name string, b []byte) (*Array, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, errors.New("not a .npy file (bad magic)")
	}
	major := b[6]
	var hlen, off int
	switch major {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, errors.New("truncated .npy header")
		}
		hlen, off = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		return nil, fmt.Errorf("unsupported .npy version %d", major)
	}
	if hlen < 0 || off+hlen > len(b) {
		return nil, fmt.Errorf("truncated .npy header (%d bytes declared, %d present)", hlen, len(b)-off)
	}
	header := string(b[off : off+hlen])
	data := b[off+hlen:]
	m := descrRe.FindStringSubmatch(header)
	if m == nil {
		if strings.Contains(header, "'descr'") {
			return nil, errSkip // structured dtype (a list), not representable
		}
		return nil, fmt.Errorf("header has no descr: %q", header)
	}
	descr := m[1]
	if o := orderRe.FindStringSubmatch(header); o != nil && o[1] == "True" {
		return nil, errors.New("Fortran-order arrays are not supported")
	}
	sm := shapeRe.FindStringSubmatch(header)
	if sm == nil {
		return nil, fmt.Errorf("header has no shape: %q", header)
	}
	shape := []int{}
	count := 1
	for _, f := range strings.Split(sm[1], ",") {
		f = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f), "L"))
		if f == "" {
			continue
		}
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("bad shape %q", sm[1])
		}
		// Each dimension is bounded on its own too: with a zero dimension
		// elsewhere the count stays 0, but a reader sizing buffers by one
		// dimension (e.g. classes) must not see 10^12.
		if d > maxElements || (d > 0 && count > maxElements/d) {
			return nil, fmt.Errorf("shape %q too large", sm[1])
		}
		shape = append(shape, d)
		count *= d
	}
	if len(descr) < 3 {
		return nil, errSkip
	}
	order, kind := descr[0], descr[1]
	size, err := strconv.Atoi(descr[2:])
	if err != nil {
		return nil, errSkip // e.g. "|O", "<U8"
	}
	switch kind {
	case 'f':
		if size != 4 && size != 8 {
			return nil, errSkip
		}
	case 'i', 'u':
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return nil, errSkip
		}
	case 'b':
		if size != 1 {
			return nil, errSkip
		}
	default:
		return nil, errSkip
	}
	need := count * size
	if len(data) < need {
		return nil, &shortData{descr: descr, shape: shape, count: count, size: size, have: len(data)}
	}
	data = data[:need]
	if order == '>' && size > 1 {
		swapped := make([]byte, need)
		for i := 0; i < need; i += size {
			for j := 0; j < size; j++ {
				swapped[i+j] = data[i+size-1-j]
			}
		}
		data = swapped
	}
	return &Array{Name: name, Dtype: descr, Shape: shape, kind: kind, size: size, data: data}, nil
}

// value returns element i as float64 (exact for all integer sizes ≤ 2^53).
func (a *Array) value(i int) float64 {
	b := a.data[i*a.size : (i+1)*a.size]
	switch a.kind {
	case 'f':
		if a.size == 4 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case 'i':
		switch a.size {
		case 1:
			return float64(int8(b[0]))
		case 2:
			return float64(int16(binary.LittleEndian.Uint16(b)))
		case 4:
			return float64(int32(binary.LittleEndian.Uint32(b)))
		}
		return float64(int64(binary.LittleEndian.Uint64(b)))
	case 'u':
		switch a.size {
		case 1:
			return float64(b[0])
		case 2:
			return float64(binary.LittleEndian.Uint16(b))
		case 4:
			return float64(binary.LittleEndian.Uint32(b))
		}
		return float64(binary.LittleEndian.Uint64(b))
	}
	if b[0] != 0 {
		return 1
	}
	return 0
}

// int64At returns element i of an integer or bool array.
func (a *Array) int64At(i int) int64 {
	b := a.data[i*a.size : (i+1)*a.size]
	if a.kind == 'i' && a.size == 8 {
		return int64(binary.LittleEndian.Uint64(b))
	}
	if a.kind == 'u' && a.size == 8 {
		return int64(binary.LittleEndian.Uint64(b))
	}
	return int64(a.value(i))
}

// Float32 returns the elements converted to float32.
func (a *Array) Float32() []float32 {
	out := make([]float32, a.Len())
	if a.kind == 'f' && a.size == 4 {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.data[4*i:]))
		}
		return out
	}
	for i := range out {
		out[i] = float32(a.value(i))
	}
	return out
}

// Float64 returns the elements converted to float64.
func (a *Array) Float64() []float64 {
	out := make([]float64, a.Len())
	for i := range out {
		out[i] = a.value(i)
	}
	return out
}

// Int32 returns the elements as int32; integers outside the int32 range and
// floats that are not integral are errors.
func (a *Array) Int32() ([]int32, error) {
	out := make([]int32, a.Len())
	if a.kind == 'i' && a.size == 4 {
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint32(a.data[4*i:]))
		}
		return out, nil
	}
	if a.kind == 'i' && a.size == 8 {
		for i := range out {
			v := int64(binary.LittleEndian.Uint64(a.data[8*i:]))
			if v != int64(int32(v)) {
				return nil, fmt.Errorf("%s: element %d = %d outside int32", a.Name, i, v)
			}
			out[i] = int32(v)
		}
		return out, nil
	}
	v, err := a.Int64()
	if err != nil {
		return nil, err
	}
	for i, x := range v {
		if x != int64(int32(x)) {
			return nil, fmt.Errorf("%s: element %d = %d outside int32", a.Name, i, x)
		}
		out[i] = int32(x)
	}
	return out, nil
}

// Int64 returns the elements as int64; floats must hold integral values.
func (a *Array) Int64() ([]int64, error) {
	out := make([]int64, a.Len())
	if a.kind == 'i' && (a.size == 8 || a.size == 4) {
		for i := range out {
			if a.size == 8 {
				out[i] = int64(binary.LittleEndian.Uint64(a.data[8*i:]))
			} else {
				out[i] = int64(int32(binary.LittleEndian.Uint32(a.data[4*i:])))
			}
		}
		return out, nil
	}
	for i := range out {
		if a.kind == 'f' {
			v := a.value(i)
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				return nil, fmt.Errorf("%s: element %d = %v is not an integer", a.Name, i, v)
			}
			out[i] = int64(v)
		} else {
			out[i] = a.int64At(i)
		}
	}
	return out, nil
}

// encodeNpy returns the .npy v1 encoding of little-endian data.
func encodeNpy(descr string, shape []int, data []byte) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	total := 10 + len(header) + 1
	pad := (64 - total%64) % 64
	header += strings.Repeat(" ", pad) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	buf.Write(data)
	return buf.Bytes()
}
