package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/npz"
)

// LoadWeights reads parameters from an .npz in the reference layout (one
// array per state-dict key, weights stored [in, out], biases as vectors) into
// m. Every parameter of m must be present with its shape ([rows, cols], or
// [cols] for a one-row parameter such as a bias) and every value finite;
// extra arrays are an error too, since they mean the file belongs to another
// architecture. On error m is left unchanged.
//
// A file saved by SaveWeightsOf records its model (the zip comment); it
// loads only into that model, since models of the same layer names and
// shapes (gcn, gdc, sm_gcn, sm_gdc, ...) would silently compute something
// else with it. Files without the record (the reference's, or saved by
// SaveWeights) are checked by names and shapes alone.
func LoadWeights(m Model, path string) error {
	a, err := npz.Open(path)
	if err != nil {
		return fmt.Errorf("load weights: %w", err)
	}
	if rec, ok := WeightsModel(a.Comment); ok && rec != m.Name() {
		return fmt.Errorf("load weights: %s: weights of model %s (recorded in the file), not %s: give --model %s",
			path, rec, m.Name(), rec)
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

// weightsComment starts the zip comment of a weights file that records its
// model: "rgnn weights: model=<name>".
const weightsComment = "rgnn weights: model="

// WeightsModel returns the model a weights file's zip comment records.
func WeightsModel(comment string) (string, bool) {
	name, ok := strings.CutPrefix(comment, weightsComment)
	return name, ok && name != ""
}

// SaveWeightsOf is SaveWeights that also records m's model name in the
// file (its zip comment, which numpy ignores), so LoadWeights refuses the
// weights for another model of the same shapes. What a user saves
// (`rgnn train --out`) is written so.
func SaveWeightsOf(m Model, path string) error { return saveWeights(m, path, weightsComment+m.Name()) }

// SaveWeights writes m's parameters in the reference layout, atomically,
// without recording the model (the bytes of the store's weight artifacts,
// whose hashes results record).
func SaveWeights(m Model, path string) error { return saveWeights(m, path, "") }

func saveWeights(m Model, path, comment string) error {
	var es []npz.Entry
	for _, p := range m.Params() {
		shape := []int{p.Value.Rows, p.Value.Cols}
		if p.Value.Rows == 1 {
			shape = []int{p.Value.Cols} // biases are vectors, as in PyTorch
		}
		es = append(es, npz.F32(p.Name, shape, p.Value.Data))
	}
	if err := npz.WriteFileComment(path, comment, es...); err != nil {
		return fmt.Errorf("save weights: %w", err)
	}
	return nil
}
