package importer

import (
	"fmt"
	"io"
	"os"
)

// Edges are the edges of an input as read: one (Src[k], Dst[k]) per kept
// row, in the input's order, before any standardisation.
type Edges struct {
	Src, Dst []int32
	// Rows is the number of data rows (edges) in the input.
	Rows int
	// ZeroWeight counts rows dropped for a weight of 0; NonUnit the kept
	// rows whose weight is not 1 (rgnn's graphs are unweighted: they become
	// plain edges).
	ZeroWeight, NonUnit int
	// Header reports a header line that was skipped.
	Header bool
}

// add appends the edge of one row, checking its ids and weight.
func (e *Edges) add(file string, row int, where string, u, v int64, w float64, hasW bool, n int) error {
	e.Rows++
	if err := checkNode(file, row, where, u, n); err != nil {
		return err
	}
	if err := checkNode(file, row, where, v, n); err != nil {
		return err
	}
	if hasW {
		if err := checkWeight(file, row, where, w); err != nil {
			return err
		}
		if w == 0 {
			e.ZeroWeight++
			return nil
		}
		if w != 1 {
			e.NonUnit++
		}
	}
	e.Src = append(e.Src, int32(u))
	e.Dst = append(e.Dst, int32(v))
	return nil
}

// ReadEdgeListFile is ReadEdgeList on the file at path.
func ReadEdgeListFile(path string, n int) (*Edges, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadEdgeList(f, path, n)
}

// ReadEdgeList reads an edge list of a graph with n nodes: one edge per
// line, "source target" or "source target weight", separated by commas,
// tabs or spaces; a first line with a field that is not a number is a
// header; lines starting with # or % are comments. Node ids are 0-based
// integers below n. Errors name the file (name) and the line.
func ReadEdgeList(r io.Reader, name string, n int) (*Edges, error) {
	l := newLines(r, name)
	e := &Edges{}
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
			e.Header = true
			continue
		}
		if cols == 0 {
			cols = len(f)
			if cols != 2 && cols != 3 {
				return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("%d columns", cols),
					Fix: "an edge list has two columns (source, target) or three (source, target, weight)"}
			}
		} else if len(f) != cols {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("%d columns, the first row has %d", len(f), cols),
				Fix: "every row needs the same columns: source, target[, weight]"}
		}
		u, ok1 := parseInt(f[0])
		v, ok2 := parseInt(f[1])
		if !ok1 || !ok2 {
			return nil, &InputError{File: name, Row: l.line, Msg: fmt.Sprintf("%q, %q are not two integer node ids", f[0], f[1]), Fix: fixNodeID}
		}
		var w float64
		if cols == 3 {
			var ok bool
			if w, ok = parseFloat(f[2]); !ok {
				return nil, &InputError{File: name, Row: l.line, Where: "column 3", Msg: fmt.Sprintf("weight %q is not a number", f[2]), Fix: fixWeight}
			}
		}
		if err := e.add(name, l.line, "", u, v, w, cols == 3, n); err != nil {
			return nil, err
		}
	}
	if e.Rows == 0 {
		return nil, &InputError{File: name, Msg: "no edges", Fix: "an edge list has one edge per line: source, target[, weight]"}
	}
	return e, nil
}
