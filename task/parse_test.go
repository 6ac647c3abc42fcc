package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDegreeBudget(t *testing.T) {
	for s, want := range map[string]int{"degree+2": 2, "degree": 0, "deg+5": 5, " Degree + 3 ": 3} {
		if k, err := parseDegreeBudget(s); err != nil || k != want {
			t.Errorf("%q: %d, %v (want %d)", s, k, err, want)
		}
	}
	for _, s := range []string{"", "2", "degree-1", "degree+x", "degree2", "eps"} {
		if _, err := parseDegreeBudget(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestReadTargets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := ReadTargets(write("a.txt", "# targets\n3, 1\n\t7 # last\n"), 10)
	if err != nil || len(got) != 3 || got[0] != 3 || got[1] != 1 || got[2] != 7 {
		t.Fatalf("text: %v %v", got, err)
	}
	got, err = ReadTargets(write("a.json", " [4, 2]\n"), 10)
	if err != nil || len(got) != 2 || got[0] != 4 {
		t.Fatalf("json: %v %v", got, err)
	}
	for name, c := range map[string]struct{ text, want string }{
		"dup.txt":   {"1 2 1", "repeated"},
		"range.txt": {"1 10", "outside"},
		"neg.txt":   {"-1", "outside"},
		"word.txt":  {"1\nfoo", ":2:"},
		"empty.txt": {"# none\n", "empty"},
		"bad.json":  {"[1, \"a\"]", "JSON"},
	} {
		_, err := ReadTargets(write(name, c.text), 10)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
	if _, err := ReadTargets(filepath.Join(dir, "missing"), 10); err == nil {
		t.Error("missing file accepted")
	}
}
