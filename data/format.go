package data

import (
	"fmt"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// FormatVersion is the version of rgnn's dataset .npz layout that this
// build writes (`rgnn data import`) and the newest it reads; docs/DATA_FORMAT.md
// describes it key by key. Files without the key (the shipped datasets, the
// reference's) are read as version 1.
const FormatVersion = 1

// Keys of the dataset layout beyond the scipy CSR matrices and labels.
const (
	// FormatKey holds FormatVersion (int64 scalar).
	FormatKey = "rgnn_format"
	// KeepAllNodesKey, when 1 (int64 or bool scalar), keeps every node at
	// load instead of the largest connected component (e.g. an OGB graph
	// whose official split covers all nodes).
	KeepAllNodesKey = "keep_all_nodes"
)

// checkFormatVersion refuses a file written by a newer layout.
func checkFormatVersion(a *npz.Archive) error {
	if !a.Has(FormatKey) {
		return nil
	}
	v, _, err := a.Int64(FormatKey)
	if err != nil {
		return err
	}
	if len(v) != 1 || v[0] < 1 {
		return fmt.Errorf("%s: %s must be one positive version number, got %v", a.Path, FormatKey, v)
	}
	if v[0] > FormatVersion {
		return fmt.Errorf("%s: dataset layout version %d, this rgnn reads up to %d: update rgnn", a.Path, v[0], FormatVersion)
	}
	return nil
}

// keptNodes returns the nodes a load keeps: the largest connected component
// of sym and the number of components, or every node when the file says so
// (KeepAllNodesKey; components 0: not counted, as nothing is dropped).
func keptNodes(a *npz.Archive, sym *tensor.CSR) (keep []int, components int, err error) {
	if a.Has(KeepAllNodesKey) {
		arr, err := a.Array(KeepAllNodesKey)
		if err != nil {
			return nil, 0, err
		}
		v := arr.Float64()
		if len(v) != 1 || (v[0] != 0 && v[0] != 1) {
			return nil, 0, fmt.Errorf("%s: %s must be one 0 or 1, got %v", a.Path, KeepAllNodesKey, v)
		}
		if v[0] == 1 {
			keep = make([]int, sym.Rows)
			for i := range keep {
				keep[i] = i
			}
			return keep, 0, nil
		}
	}
	keep, components = LargestComponent(sym)
	return keep, components, nil
}
