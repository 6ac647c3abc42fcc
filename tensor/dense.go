package tensor

import (
	"fmt"
	"math"
)

// Dense is a row-major float32 matrix. Data has length Rows*Cols and element
// (i, j) is Data[i*Cols+j].
type Dense struct {
	Rows, Cols int
	Data       []float32
}

// NewDense returns a zero Rows×Cols matrix.
func NewDense(rows, cols int) *Dense {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("tensor: negative shape %d×%d", rows, cols))
	}
	return &Dense{Rows: rows, Cols: cols, Data: make([]float32, rows*cols)}
}

// FromSlice wraps data (not copied) as a rows×cols matrix.
func FromSlice(rows, cols int, data []float32) (*Dense, error) {
	if rows < 0 || cols < 0 || len(data) != rows*cols {
		return nil, fmt.Errorf("tensor: %d values do not make a %d×%d matrix", len(data), rows, cols)
	}
	return &Dense{Rows: rows, Cols: cols, Data: data}, nil
}

// At returns element (i, j).
func (m *Dense) At(i, j int) float32 { return m.Data[i*m.Cols+j] }

// Set sets element (i, j).
func (m *Dense) Set(i, j int, v float32) { m.Data[i*m.Cols+j] = v }

// Row returns row i as a slice sharing m's storage.
func (m *Dense) Row(i int) []float32 { return m.Data[i*m.Cols : (i+1)*m.Cols] }

// Clone returns a deep copy.
func (m *Dense) Clone() *Dense {
	c := &Dense{Rows: m.Rows, Cols: m.Cols, Data: make([]float32, len(m.Data))}
	copy(c.Data, m.Data)
	return c
}

// Zero sets every element to 0.
func (m *Dense) Zero() { clear(m.Data) }

// SameShape reports whether m and o have the same shape.
func (m *Dense) SameShape(o *Dense) bool { return m.Rows == o.Rows && m.Cols == o.Cols }

// Shape returns "r×c" for messages.
func (m *Dense) Shape() string { return fmt.Sprintf("%d×%d", m.Rows, m.Cols) }

// CheckFinite returns an error naming the first NaN or Inf element.
func (m *Dense) CheckFinite(name string) error {
	for k, v := range m.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%s: non-finite value %v at (%d, %d)", name, v, k/max(m.Cols, 1), k%max(m.Cols, 1))
		}
	}
	return nil
}

// ArgmaxRow returns the index of the first maximum of row i.
func (m *Dense) ArgmaxRow(i int) int {
	r := m.Row(i)
	best := 0
	for j := 1; j < len(r); j++ {
		if r[j] > r[best] {
			best = j
		}
	}
	return best
}
