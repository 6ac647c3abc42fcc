package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLine bounds a line of a text input (a feature row of a wide dense
// matrix is the longest).
const maxLine = 64 << 20

// lines yields the data lines of a CSV/TSV/whitespace-separated text file:
// blank lines and comment lines (# or %) are skipped, and fields are split
// on commas, else tabs, else runs of spaces. line is the 1-based number of
// the last line read.
type lines struct {
	name string
	sc   *bufio.Scanner
	line int
}

func newLines(r io.Reader, name string) *lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &lines{name: name, sc: sc}
}

// next returns the fields of the next data line, or nil at the end.
func (l *lines) next() ([]string, error) {
	for l.sc.Scan() {
		l.line++
		b := bytes.TrimSpace(l.sc.Bytes())
		if len(b) == 0 || b[0] == '#' || b[0] == '%' {
			continue
		}
		return splitFields(string(b)), nil
	}
	if err := l.sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, &InputError{File: l.name, Row: l.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		return nil, fmt.Errorf("%s: %w", l.name, err)
	}
	return nil, nil
}

// splitFields splits a line on commas, else tabs, else whitespace.
func splitFields(s string) []string {
	var f []string
	switch {
	case strings.ContainsRune(s, ','):
		f = strings.Split(s, ",")
	case strings.ContainsRune(s, '\t'):
		f = strings.Split(s, "\t")
	default:
		return strings.Fields(s)
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}

// isHeader reports whether a first data line is a header: some field is
// not a number.
func isHeader(fields []string) bool {
	for _, f := range fields {
		if _, err := strconv.ParseFloat(f, 64); err != nil && !isNonFinite(f) {
			return true
		}
	}
	return false
}

// isNonFinite reports the spellings of NaN and infinities that are data,
// not a header ("nan", "inf", "-Infinity", ...).
func isNonFinite(f string) bool {
	switch strings.ToLower(strings.TrimLeft(f, "+-")) {
	case "nan", "inf", "infinity":
		return true
	}
	return false
}

// parseInt parses an integer field ("3", or "3.0" as some tools write ids).
func parseInt(f string) (int64, bool) {
	if v, err := strconv.ParseInt(f, 10, 64); err == nil {
		return v, true
	}
	v, err := strconv.ParseFloat(f, 64)
	if err != nil || v != float64(int64(v)) || v > 1<<53 || v < -(1<<53) {
		return 0, false
	}
	return int64(v), true
}

// parseFloat parses a number field, NaN and infinities included (the
// caller checks them, naming the row).
func parseFloat(f string) (float64, bool) {
	v, err := strconv.ParseFloat(f, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true // ±Inf or 0 from an out-of-range literal
		}
		return 0, false
	}
	return v, true
}
