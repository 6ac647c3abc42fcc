package data

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// maxNodeListBytes bounds a node-list file (64 MiB, far above any list of
// node ids of the supported graphs).
const maxNodeListBytes = 64 << 20

// ReadNodeList reads a list of node ids of a graph with n nodes: a JSON list
// of integers, or text with ids separated by whitespace or commas, where #
// starts a comment that runs to the end of the line. The list must be
// non-empty, every id in [0, n), none repeated. Errors in the text form
// name the line ("node list:3: ...").
func ReadNodeList(r io.Reader, n int) ([]int, error) { return readNodeList(r, n, "node list") }

// ReadNodeListFile is ReadNodeList on the file at path; errors start with
// the path ("targets.txt:3: ...").
func ReadNodeListFile(path string, n int) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readNodeList(f, n, path)
}

func readNodeList(r io.Reader, n int, name string) ([]int, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxNodeListBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxNodeListBytes {
		return nil, fmt.Errorf("%s: longer than %d bytes", name, maxNodeListBytes)
	}
	var out []int
	if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, "[") {
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("%s: not a JSON list of node ids: %w", name, err)
		}
	} else {
		for ln, line := range strings.Split(string(b), "\n") {
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
			for _, tok := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
				v, err := strconv.Atoi(tok)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %q is not a node id", name, ln+1, tok)
				}
				out = append(out, v)
			}
		}
	}
	if err := CheckNodeList(out, n); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// CheckNodeList verifies a list of node ids of a graph with n nodes:
// non-empty, every id in [0, n), none repeated.
func CheckNodeList(ids []int, n int) error { return CheckIDs(ids, n, "node") }

// CheckIDs is CheckNodeList with the ids called what ("node", "target")
// in its errors.
func CheckIDs(ids []int, n int, what string) error {
	if len(ids) == 0 {
		return fmt.Errorf("empty %s list", what)
	}
	seen := make(map[int]int, len(ids))
	for i, u := range ids {
		if u < 0 || u >= n {
			return fmt.Errorf("%s %d (entry %d) outside [0, %d)", what, u, i+1, n)
		}
		if j, dup := seen[u]; dup {
			return fmt.Errorf("%s %d repeated (entries %d and %d)", what, u, j+1, i+1)
		}
		seen[u] = i
	}
	return nil
}
