package layers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// moduleRoot returns the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// parseLayers reads the fenced block marked "layers" of a Markdown text:
// one layer a line, bottom first, packages separated by spaces, relative
// to the module path; "#" starts a comment. It returns each package's
// layer index.
func parseLayers(md []byte) (map[string]int, [][]string, error) {
	var layers [][]string
	in, found := false, false
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```layers":
			if found {
				return nil, nil, fmt.Errorf("line %d: a second layers block", n)
			}
			in, found = true, true
			continue
		case in && strings.HasPrefix(line, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) > 0 {
			layers = append(layers, f)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if !found || in {
		return nil, nil, errors.New("no complete fenced block marked layers")
	}
	layer := map[string]int{}
	for i, ps := range layers {
		for _, p := range ps {
			if j, dup := layer[p]; dup {
				return nil, nil, fmt.Errorf("package %s listed twice (layers %d and %d)", p, j+1, i+1)
			}
			layer[p] = i
		}
	}
	return layer, layers, nil
}

// imports lists the module's packages (relative to the module path) and
// the module packages each imports, non-test files only, default build
// (go test puts the toolchain's go first on PATH).
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.Module.Path}} {{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		module := f[0]
		rel := func(p string) (string, bool) {
			if p == module {
				return ".", true
			}
			r, ok := strings.CutPrefix(p, module+"/")
			return r, ok
		}
		p, _ := rel(f[1])
		pkgs[p] = []string{}
		for _, im := range f[2:] {
			if r, ok := rel(im); ok {
				pkgs[p] = append(pkgs[p], r)
			}
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// TestLayering: no package imports a package of a higher layer in
// DESIGN.md's layer list, and the list names exactly the module's
// packages.
func TestLayering(t *testing.T) {
	root := moduleRoot(t)
	md, err := os.ReadFile(filepath.Join(root, "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	layer, layers, err := parseLayers(md)
	if err != nil {
		t.Fatalf("DESIGN.md: %v", err)
	}
	pkgs := imports(t, root)
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		lp, ok := layer[p]
		if !ok {
			t.Errorf("package %s is not in DESIGN.md's layer list: add it to the line of its layer (the lowest above everything it imports)", p)
			continue
		}
		for _, im := range pkgs[p] {
			if li, ok := layer[im]; ok && li > lp {
				t.Errorf("%s (layer %d: %s) imports %s of the higher layer %d (%s)", p, lp+1,
					strings.Join(layers[lp], " "), im, li+1, strings.Join(layers[li], " "))
			}
		}
	}
	for p := range layer {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("DESIGN.md's layer list names %s, which is not a package of the module", p)
		}
	}
}

func TestParseLayers(t *testing.T) {
	md := "text\n```\nnot this\n```\n```layers\n# bottom\na b\n\nc   # comment\n```\nmore\n"
	layer, layers, err := parseLayers([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 2 || layer["a"] != 0 || layer["b"] != 0 || layer["c"] != 1 {
		t.Fatalf("layers %v, index %v", layers, layer)
	}
	for _, bad := range []string{"no block", "```layers\na\n", "```layers\na\n```\n```layers\nb\n```\n",
		"```layers\na\na\n```\n"} {
		if _, _, err := parseLayers([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestDocSizes keeps the top-level documents readable in one sitting:
// README ≤ 300 lines, DESIGN.md ≤ 450, BENCHMARKS.md ≤ 400 (history lives
// in git, details in docs/ and the packages' doc comments).
func TestDocSizes(t *testing.T) {
	root := moduleRoot(t)
	for name, most := range map[string]int{"README.md": 300, "DESIGN.md": 450, "BENCHMARKS.md": 400} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n > most {
			t.Errorf("%s has %d lines, more than %d: shorten it (move details to docs/ or a package comment)", name, n, most)
		}
	}
}
