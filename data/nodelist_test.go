package data

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestReadNodeList(t *testing.T) {
	for name, c := range map[string]struct {
		text string
		want []int
	}{
		"text":     {"# targets\n3, 1\n\t7 # last\n", []int{3, 1, 7}},
		"json":     {" [4, 2]\n", []int{4, 2}},
		"crlf":     {"1,2\r\n3\r\n", []int{1, 2, 3}},
		"one line": {"9", []int{9}},
		"commas":   {",,5,,6,", []int{5, 6}},
	} {
		got, err := ReadNodeList(strings.NewReader(c.text), 10)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %v %v, want %v", name, got, err, c.want)
		}
	}
	for name, c := range map[string]struct{ text, want string }{
		"dup":       {"1 2 1", "node 1 repeated (entries 1 and 3)"},
		"range":     {"1 10", "node 10 (entry 2) outside [0, 10)"},
		"neg":       {"-1", "outside"},
		"word":      {"1\nfoo", `node list:2: "foo" is not a node id`},
		"float":     {"1.5", "not a node id"},
		"empty":     {"# none\n", "empty node list"},
		"blank":     {"", "empty node list"},
		"bad json":  {"[1, \"a\"]", "not a JSON list"},
		"json dup":  {"[3, 3]", "repeated"},
		"json big":  {"[1e30]", "not a JSON list"},
		"overflow":  {"99999999999999999999999", "not a node id"},
		"json null": {"null", "not a node id"},
		"json map":  {"[{}]", "not a JSON list"},
		"unclosed":  {"[1, 2", "not a JSON list"},
	} {
		_, err := ReadNodeList(strings.NewReader(c.text), 10)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
}

func TestReadNodeListFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.txt")
	if err := os.WriteFile(p, []byte("2\nx"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNodeListFile(p, 5); err == nil || !strings.Contains(err.Error(), p+`:2: "x" is not a node id`) {
		t.Fatalf("err %v", err)
	}
	if err := os.WriteFile(p, []byte("2 0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadNodeListFile(p, 5); err != nil || !slices.Equal(got, []int{2, 0}) {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := ReadNodeListFile(filepath.Join(t.TempDir(), "missing"), 5); err == nil {
		t.Fatal("missing file accepted")
	}
}

// FuzzReadNodeList: ReadNodeList never panics; what it accepts is a valid
// list that reads back the same in both forms.
func FuzzReadNodeList(f *testing.F) {
	for _, s := range []string{"# targets\n3, 1\n\t7 # last\n", "[4, 2]", "1 2 1", "[", "0\r\n1", "#", "[1,\n2]", "1,,2\t3"} {
		f.Add([]byte(s), 10)
	}
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		got, err := ReadNodeList(strings.NewReader(string(b)), n)
		if err != nil {
			return
		}
		if err := CheckNodeList(got, n); err != nil {
			t.Fatalf("accepted an invalid list %v: %v", got, err)
		}
		js, _ := json.Marshal(got)
		txt := make([]string, len(got))
		for i, v := range got {
			txt[i] = strconv.Itoa(v)
		}
		for _, form := range []string{string(js), strings.Join(txt, "\n")} {
			back, err := ReadNodeList(strings.NewReader(form), n)
			if err != nil || !slices.Equal(back, got) {
				t.Fatalf("%q read back as %v, %v; want %v", form, back, err, got)
			}
		}
	})
}
