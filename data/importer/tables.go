package importer

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// maxArrayBytes bounds one .npy input array (16 GiB).
const maxArrayBytes = 16 << 30

func ext(path string) string { return strings.ToLower(filepath.Ext(path)) }

// ReadFeatures reads node features, one row per node, by the file's
// extension: .npy a dense [N, F] array, .npz a scipy sparse matrix
// (scipy.sparse.save_npz: CSR or COO), anything else text (CSV/TSV, one
// row per node, an optional header).
func ReadFeatures(path string) (*tensor.CSR, error) {
	switch ext(path) {
	case ".npy":
		arr, err := npz.ReadNpyFile(path, maxArrayBytes)
		if err != nil {
			return nil, err
		}
		return DenseFeatures(path, arr)
	case ".npz":
		a, err := npz.Open(path)
		if err != nil {
			return nil, err
		}
		return SparseFeatures(a)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFeaturesText(f, path)
}

// ReadFeaturesText reads a dense feature matrix as text: one row of numbers
// per node, every row as wide, an optional header line.
func ReadFeaturesText(r io.Reader, name string) (*tensor.CSR, error) {
	l := newLines(r, name)
	m := &tensor.CSR{Indptr: []int{0}, Cols: -1}
	for first := true; ; first = false {
		f, err := l.next()
		if err != nil {
			return nil, err
		}
		if f == nil {
			break
		}
		if first && isHeader(f) {
			continue
		}
		if m.Cols < 0 {
			m.Cols = len(f)
		} else if len(f) != m.Cols {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("%d features, the first row has %d", len(f), m.Cols),
				Fix: "every row holds one node's features, all rows equally wide"}
		}
		if m.Rows == maxNodes-1 {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("more than %d rows", maxNodes-1)}
		}
		for j, s := range f {
			v, ok := parseFloat(s)
			if !ok {
				return nil, &InputError{File: name, Row: l.line, Where: fmt.Sprintf("column %d", j+1),
					Msg: fmt.Sprintf("%q is not a number", s), Fix: fixFeature}
			}
			if !finite(float32(v)) {
				return nil, checkFeature(name, l.line, fmt.Sprintf("column %d", j+1), float64(float32(v)))
			}
			if v != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Values = append(m.Values, float32(v))
			}
		}
		m.Rows++
		m.Indptr = append(m.Indptr, len(m.Indices))
	}
	if m.Rows == 0 {
		return nil, &InputError{File: name, Msg: "no feature rows", Fix: "one row of numbers per node"}
	}
	return m, nil
}

// DenseFeatures converts a dense [N, F] array (np.save, or x of a PyG
// .npz) into sparse features, checking every value.
func DenseFeatures(name string, arr *npz.Array) (*tensor.CSR, error) {
	if len(arr.Shape) != 2 {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("features of shape %v", arr.Shape), Fix: "features are a 2-D array [nodes, features]"}
	}
	if arr.Kind() == 'b' {
		return nil, &InputError{File: name, Msg: "boolean features", Fix: "store features as numbers (x.astype(np.float32))"}
	}
	n, d := arr.Shape[0], arr.Shape[1]
	v := arr.Float32()
	m := &tensor.CSR{Rows: n, Cols: d, Indptr: make([]int, n+1)}
	for i := range n {
		for j, x := range v[i*d : (i+1)*d] {
			if !finite(x) {
				return nil, checkFeature(name, 0, fmt.Sprintf("row %d (node %d), column %d", i, i, j), float64(x))
			}
			if x != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Values = append(m.Values, x)
			}
		}
		m.Indptr[i+1] = len(m.Indices)
	}
	return m, nil
}

// SparseFeatures reads a scipy sparse matrix saved by scipy.sparse.save_npz
// (CSR: data, indices, indptr, shape; or COO: row, col, data, shape).
func SparseFeatures(a *npz.Archive) (*tensor.CSR, error) {
	name := a.Path
	shape, _, err := a.Int64("shape")
	if err != nil {
		return nil, &InputError{File: name, Msg: "no 'shape' array: not a scipy sparse matrix", Fix: "save features with scipy.sparse.save_npz, or as a dense .npy"}
	}
	if len(shape) != 2 || shape[0] < 1 || shape[1] < 1 || shape[0] >= maxNodes || shape[1] >= maxFeatures {
		return nil, &InputError{File: name, Where: "shape", Msg: fmt.Sprintf("bad shape %v", shape), Fix: "features are [nodes, features]"}
	}
	n, d := int(shape[0]), int(shape[1])
	vals, _, err := a.Float32("data")
	if err != nil {
		return nil, err
	}
	var rows, cols []int64
	switch {
	case a.Has("indptr") && a.Has("indices"):
		ptr, _, err := a.Int64("indptr")
		if err != nil {
			return nil, err
		}
		if cols, _, err = a.Int64("indices"); err != nil {
			return nil, err
		}
		if len(ptr) != n+1 || ptr[0] != 0 || ptr[n] != int64(len(cols)) || len(cols) != len(vals) {
			return nil, &InputError{File: name, Msg: fmt.Sprintf("inconsistent CSR: indptr of %d for %d rows, %d indices, %d values", len(ptr), n, len(cols), len(vals)),
				Fix: "save a CSR matrix with scipy.sparse.save_npz (m.tocsr())"}
		}
		rows = make([]int64, len(cols))
		for i := range n {
			if ptr[i+1] < ptr[i] || ptr[i+1] > int64(len(cols)) {
				return nil, &InputError{File: name, Where: "indptr", Msg: fmt.Sprintf("decreases at row %d", i), Fix: "save a CSR matrix with scipy.sparse.save_npz (m.tocsr())"}
			}
			for k := ptr[i]; k < ptr[i+1]; k++ {
				rows[k] = int64(i)
			}
		}
	case a.Has("row") && a.Has("col"):
		if rows, _, err = a.Int64("row"); err != nil {
			return nil, err
		}
		if cols, _, err = a.Int64("col"); err != nil {
			return nil, err
		}
		if len(rows) != len(vals) || len(cols) != len(vals) {
			return nil, &InputError{File: name, Msg: fmt.Sprintf("inconsistent COO: %d rows, %d cols, %d values", len(rows), len(cols), len(vals))}
		}
	default:
		return nil, &InputError{File: name, Msg: "neither CSR (indptr, indices) nor COO (row, col) arrays",
			Fix: "convert with m.tocsr() and save with scipy.sparse.save_npz"}
	}
	es := make([]tensor.Entry, 0, len(vals))
	for k, x := range vals {
		where := func() string { return fmt.Sprintf("entry %d (row %d, column %d)", k, rows[k], cols[k]) }
		if rows[k] < 0 || rows[k] >= int64(n) || cols[k] < 0 || cols[k] >= int64(d) {
			return nil, &InputError{File: name, Where: where(), Msg: fmt.Sprintf("outside the %d×%d shape", n, d), Fix: "the shape must hold every entry"}
		}
		if !finite(x) {
			return nil, checkFeature(name, 0, where(), float64(x))
		}
		if x != 0 {
			es = append(es, tensor.Entry{Row: int32(rows[k]), Col: int32(cols[k]), Val: x})
		}
	}
	m, err := tensor.FromCOO(n, d, es)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for k, x := range m.Values { // duplicates are summed, as scipy does
		if math.IsInf(float64(x), 0) {
			return nil, &InputError{File: name, Where: fmt.Sprintf("stored entry %d", k), Msg: "repeated entries sum to infinity", Fix: fixFeature}
		}
	}
	return m, nil
}

// ReadLabels reads one class label per node: .npy an integer array [N] (or
// [N, 1], as OGB stores them), else text: one label per line in node
// order, or two columns "node, label" listing every node once.
func ReadLabels(path string) ([]int64, error) {
	if ext(path) == ".npy" {
		arr, err := npz.ReadNpyFile(path, maxArrayBytes)
		if err != nil {
			return nil, err
		}
		return ArrayLabels(path, arr)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLabelsText(f, path)
}

// ArrayLabels checks an integer label array [N] or [N, 1].
func ArrayLabels(name string, arr *npz.Array) ([]int64, error) {
	if !(len(arr.Shape) == 1 || len(arr.Shape) == 2 && arr.Shape[1] == 1) {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("labels of shape %v", arr.Shape), Fix: "labels are one integer per node: an array [N]"}
	}
	if arr.Kind() == 'f' {
		for i, v := range arr.Float64() {
			if v != math.Trunc(v) || math.IsInf(v, 0) {
				return nil, &InputError{File: name, Where: fmt.Sprintf("entry %d (node %d)", i, i), Msg: fmt.Sprintf("label %v is not an integer", v), Fix: fixLabel}
			}
		}
	}
	y, err := arr.Int64()
	if err != nil {
		return nil, &InputError{File: name, Msg: err.Error(), Fix: fixLabel}
	}
	for i, v := range y {
		if err := checkLabel(name, 0, fmt.Sprintf("entry %d (node %d)", i, i), v); err != nil {
			return nil, err
		}
	}
	if len(y) == 0 {
		return nil, &InputError{File: name, Msg: "no labels"}
	}
	return y, nil
}

// ReadLabelsText reads labels as text (ReadLabels).
func ReadLabelsText(r io.Reader, name string) ([]int64, error) {
	l := newLines(r, name)
	var y []int64
	var byNode map[int64]int64
	var rowOf map[int64]int
	cols := 0
	for first := true; ; first = false {
		f, err := l.next()
		if err != nil {
			return nil, err
		}
		if f == nil {
			break
		}
		if first && isHeader(f) {
			continue
		}
		if cols == 0 {
			cols = len(f)
			if cols > 2 {
				return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("%d columns", cols), Fix: "one label per line, or two columns: node, label"}
			}
			if cols == 2 {
				byNode, rowOf = map[int64]int64{}, map[int64]int{}
			}
		} else if len(f) != cols {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("%d columns, the first row has %d", len(f), cols), Fix: "one label per line, or two columns: node, label"}
		}
		lab := f[len(f)-1]
		v, ok := parseInt(lab)
		if !ok {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("label %q is not an integer", lab), Fix: fixLabel}
		}
		if err := checkLabel(name, l.line, "", v); err != nil {
			return nil, err
		}
		if cols == 1 {
			y = append(y, v)
			continue
		}
		id, ok := parseInt(f[0])
		if !ok || id < 0 || id >= maxNodes {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("node %q is not a node id", f[0]), Fix: fixNodeID}
		}
		if r, dup := rowOf[id]; dup {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("node %d already has a label (line %d)", id, r), Fix: "one label per node"}
		}
		byNode[id], rowOf[id] = v, l.line
	}
	if cols == 2 {
		y = make([]int64, len(byNode))
		for id, v := range byNode {
			if id >= int64(len(byNode)) {
				return nil, &InputError{File: name, Row: rowOf[id], Msg: fmt.Sprintf("node %d, but only %d nodes are labelled", id, len(byNode)),
					Fix: "label every node 0 … N−1 exactly once"}
			}
			y[id] = v
		}
	}
	if len(y) == 0 {
		return nil, &InputError{File: name, Msg: "no labels", Fix: "one label per line, or two columns: node, label"}
	}
	return y, nil
}

// ReadSplitPart reads one part of a split (training, validation or test
// nodes) of a graph with n nodes: .npy a boolean mask [n] (or a 0/1 integer
// array of n entries), or integer node ids; else a text list of node ids
// (data.ReadNodeList: whitespace or comma separated, # comments, or JSON).
func ReadSplitPart(path string, n int) ([]int, error) {
	if ext(path) != ".npy" {
		ids, err := data.ReadNodeListFile(path, n)
		if err != nil {
			return nil, &InputError{File: path, Msg: strings.TrimPrefix(err.Error(), path+": "), Fix: fixSplitID}
		}
		return ids, nil
	}
	arr, err := npz.ReadNpyFile(path, maxArrayBytes)
	if err != nil {
		return nil, err
	}
	return ArraySplitPart(path, arr, n)
}

// ArraySplitPart turns a mask or id array into sorted node ids: a boolean
// array (or an integer one of n entries, all 0 or 1) is a mask, any other
// integer array lists node ids.
func ArraySplitPart(name string, arr *npz.Array, n int) ([]int, error) {
	if len(arr.Shape) != 1 {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("shape %v", arr.Shape), Fix: fixSplitID}
	}
	if arr.Kind() == 'f' {
		return nil, &InputError{File: name, Msg: "float array", Fix: fixSplitID}
	}
	v, err := arr.Int64()
	if err != nil {
		return nil, &InputError{File: name, Msg: err.Error(), Fix: fixSplitID}
	}
	mask := arr.Kind() == 'b'
	if !mask && len(v) == n {
		mask = true
		for _, x := range v {
			if x != 0 && x != 1 {
				mask = false
				break
			}
		}
	}
	var ids []int
	if mask {
		if len(v) != n {
			return nil, &InputError{File: name, Msg: fmt.Sprintf("mask of %d entries for %d nodes", len(v), n), Fix: fixSplitID}
		}
		for i, x := range v {
			if x != 0 {
				ids = append(ids, i)
			}
		}
	} else {
		seen := make(map[int64]int, len(v))
		for i, x := range v {
			if err := checkNode(name, 0, fmt.Sprintf("entry %d", i), x, n); err != nil {
				err.(*InputError).Fix = fixSplitID
				return nil, err
			}
			if j, dup := seen[x]; dup {
				return nil, &InputError{File: name, Where: fmt.Sprintf("entry %d", i), Msg: fmt.Sprintf("node %d repeated (entry %d)", x, j), Fix: fixSplitID}
			}
			seen[x] = i
			ids = append(ids, int(x))
		}
	}
	if len(ids) == 0 {
		return nil, &InputError{File: name, Msg: "no nodes", Fix: fixSplitID}
	}
	return ids, nil
}

// finite reports whether a feature value is a finite float32.
func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
