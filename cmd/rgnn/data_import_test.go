package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDataImportCommand: an edge list with a split imports; the file's split
// is what train uses whatever the seed; bad input is a runtime error naming
// the file and row, a bad option a usage error.
func TestDataImportCommand(t *testing.T) {
	dir := t.TempDir()
	var edges, x, y strings.Builder
	n := 60
	for i := range n {
		edges.WriteString(strings.Join([]string{strconv.Itoa(i), strconv.Itoa((i + 1) % n)}, "\t") + "\n")
		edges.WriteString(strings.Join([]string{strconv.Itoa(i), strconv.Itoa((i + 7) % n)}, "\t") + "\n")
		c := i % 3
		for j := range 3 {
			if j == c {
				x.WriteString("1")
			} else {
				x.WriteString("0")
			}
			if j < 2 {
				x.WriteString(",")
			}
		}
		x.WriteString("\n")
		y.WriteString(strconv.Itoa(c) + "\n")
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	e, xf, yf := write("e.tsv", edges.String()), write("x.csv", x.String()), write("y.csv", y.String())
	tr, va, te := write("tr.txt", "0 1 2 3 4 5"), write("va.txt", "6 7 8 9 10 11"), write("te.txt", "")
	var test strings.Builder
	for i := 12; i < n; i++ {
		test.WriteString(strconv.Itoa(i) + "\n")
	}
	te = write("te.txt", test.String())
	out := filepath.Join(dir, "g.npz")
	s, err := runRoot(t, "data", "import", e, "--features", xf, "--labels", yf, "--train", tr, "--val", va, "--test", te, "--out", out, "--json")
	if err != nil {
		t.Fatal(err, s)
	}
	var rep struct {
		Nodes, Edges int
		Split        string
		Symmetrised  int `json:"reverse_edges_added"`
	}
	if err := json.Unmarshal([]byte(s), &rep); err != nil {
		t.Fatal(err, s)
	}
	if rep.Nodes != n || rep.Edges != 2*n || rep.Split != "given" || rep.Symmetrised != 2*n {
		t.Fatalf("report %+v", rep)
	}
	for _, seed := range []string{"0", "3"} {
		s, err = runRoot(t, "train", "--dataset", out, "--seed", seed, "--max-epochs", "5", "--json", "--quiet")
		if err != nil {
			t.Fatal(err, s)
		}
		var tr struct {
			NTest int `json:"n_test"`
		}
		if err := json.Unmarshal([]byte(s[strings.Index(s, "{"):]), &tr); err != nil {
			t.Fatal(err, s)
		}
		if tr.NTest != n-12 {
			t.Fatalf("seed %s: %d test nodes, want the file's %d", seed, tr.NTest, n-12)
		}
	}
	bad := write("bad.tsv", "0\t1\n1\t99\n")
	if _, err := runRoot(t, "data", "import", bad, "--labels", yf, "--out", out); err == nil || errors.As(err, new(usageError)) ||
		!strings.Contains(err.Error(), "bad.tsv:2") || !strings.Contains(err.Error(), "beyond the 60 nodes") {
		t.Fatalf("bad edge: %v", err)
	}
	if _, err := runRoot(t, "data", "import", e, "--labels", yf, "--out", "g.bin"); !errors.As(err, new(usageError)) {
		t.Fatalf("bad --out: %v", err)
	}
}
