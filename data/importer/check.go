package importer

import (
	"fmt"
	"math"
)

// InputError is a problem in a user's input file: the file, the row (a
// 1-based line of a text file, or the entry of an array; 0 when the whole
// file is at fault), what is wrong and how to fix it.
type InputError struct {
	File string
	Row  int
	// Where names the place within the row or array ("column 3",
	// "edge_index[:, 17]"); may be empty.
	Where string
	Msg   string
	Fix   string
}

func (e *InputError) Error() string {
	s := e.File
	if e.Row > 0 {
		s += fmt.Sprintf(":%d", e.Row)
	}
	if e.Where != "" {
		s += ": " + e.Where
	}
	s += ": " + e.Msg
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// Fixes shared by the readers.
const (
	fixWeight   = "edge weights must be finite and ≥ 0; rgnn's graphs are unweighted, a weight 0 drops the edge: remove or correct the row"
	fixFeature  = "features must be finite numbers: replace NaN/Inf, e.g. by 0, before importing"
	fixLabel    = "labels are class numbers 0, 1, …, C−1 (integers): map class names or negative 'unlabelled' markers to classes first"
	fixNodeID   = "node ids are 0-based row numbers of the feature and label files: renumber the edges, or add the node's features and label"
	fixSplitID  = "split files list node ids 0 … N−1 (or are boolean masks of N entries)"
	maxLabel    = 1 << 20 // the loader's bound on a class number
	maxNodes    = 1 << 31 // int32 node ids
	maxFeatures = 1 << 31
)

// checkWeight checks one edge weight.
func checkWeight(file string, row int, where string, w float64) error {
	if math.IsNaN(w) || math.IsInf(w, 0) {
		return &InputError{File: file, Row: row, Where: where, Msg: fmt.Sprintf("edge weight %v is not finite", w), Fix: fixWeight}
	}
	if w < 0 {
		return &InputError{File: file, Row: row, Where: where, Msg: fmt.Sprintf("negative edge weight %v", w), Fix: fixWeight}
	}
	return nil
}

// checkFeature checks one feature value.
func checkFeature(file string, row int, where string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return &InputError{File: file, Row: row, Where: where, Msg: fmt.Sprintf("feature %v is not finite", v), Fix: fixFeature}
	}
	return nil
}

// checkLabel checks one class label.
func checkLabel(file string, row int, where string, y int64) error {
	if y < 0 || y >= maxLabel {
		return &InputError{File: file, Row: row, Where: where,
			Msg: fmt.Sprintf("label %d out of range [0, %d)", y, maxLabel), Fix: fixLabel}
	}
	return nil
}

// checkNode checks a node id of a graph with n nodes.
func checkNode(file string, row int, where string, id int64, n int) error {
	if id < 0 {
		return &InputError{File: file, Row: row, Where: where, Msg: fmt.Sprintf("negative node id %d", id), Fix: fixNodeID}
	}
	if id >= int64(n) {
		return &InputError{File: file, Row: row, Where: where,
			Msg: fmt.Sprintf("node id %d is beyond the %d nodes (ids 0 … %d)", id, n, n-1), Fix: fixNodeID}
	}
	return nil
}
