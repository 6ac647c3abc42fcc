package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/rgnn/rgnn/npz"
)

// LoadWeights reads parameters from an .npz in the reference layout (one
// array per state-dict key, weights stored [in, out], biases as vectors) into
// m. Every parameter of m must be present with its shape ([rows, cols], or
// [cols] for a one-row parameter such as a bias) and every value finite;
// extra arrays are an error too, since they mean the file belongs to another
// architecture. On error m is left unchanged.
func LoadWeights(m Model, path string) error {
	a, err := npz.Open(path)
	if err != nil {
		return fmt.Errorf("load weights: %w", err)
	}
	params := m.Params()
	known := map[string]bool{}
	values := make([][]float32, len(params))
	for i, p := range params {
		known[p.Name] = true
		v, shape, err := a.Float32(p.Name)
		if err != nil {
			return fmt.Errorf("load weights for %s: %w", m.Name(), err)
		}
		rows, cols := p.Value.Rows, p.Value.Cols
		if !slices.Equal(shape, []int{rows, cols}) && !(rows == 1 && slices.Equal(shape, []int{cols})) {
			return fmt.Errorf("load weights: %s: %s has shape %v, the %s model needs [%d %d] (stored [in, out])",
				path, p.Name, shape, m.Name(), rows, cols)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("load weights: %s: %s has a non-finite value at %d", path, p.Name, j)
			}
		}
		values[i] = v
	}
	for _, k := range a.Keys() {
		if !known[k] {
			return fmt.Errorf("load weights: %s: unexpected array %q for model %s (wrong model?)", path, k, m.Name())
		}
	}
	for i, p := range params {
		copy(p.Value.Data, values[i])
	}
	return nil
}

// SaveWeights writes m's parameters in the reference layout, atomically.
func SaveWeights(m Model, path string) error {
	var es []npz.Entry
	for _, p := range m.Params() {
		shape := []int{p.Value.Rows, p.Value.Cols}
		if p.Value.Rows == 1 {
			shape = []int{p.Value.Cols} // biases are vectors, as in PyTorch
		}
		es = append(es, npz.F32(p.Name, shape, p.Value.Data))
	}
	if err := npz.WriteFile(path, es...); err != nil {
		return fmt.Errorf("save weights: %w", err)
	}
	return nil
}
