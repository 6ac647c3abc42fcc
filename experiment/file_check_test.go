package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Mistakes in experiment files are named where they are written, with the
// line and, for a misspelt name, the closest known one; each is a
// *FileError.
func TestFileErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string // in the message, in this order
		not  string   // must not be in the message
	}{
		// A top-level typo of a keyword.
		{"fixd:\n  seed: 1\n", []string{"line 1: fixd: did you mean fixed?"}, "must be a mapping"},
		{"fixed: {kind: train}\ngrd:\n  seed: [0, 1]\n", []string{"line 2: grd: did you mean grid?"}, ""},
		{"nmae: x\nfixed: {kind: train}\n", []string{"line 1: nmae: did you mean name?"}, ""},
		{"fixed: {kind: train}\ngird:\n  seed: {type: choice, options: [0, 1]}\n", []string{"line 2: gird: did you mean grid?"}, "seml"},
		// ... and in a sub-block.
		{"gcn:\n  fixed: {kind: train, model: gcn}\n  gird: {seed: [0, 1]}\n", []string{"line 3: gcn.gird: did you mean grid?"}, ""},
		// A parameter outside fixed and grid.
		{"fixed: {kind: train}\ngcn:\n  model: gcn\n", []string{"line 3: gcn.model: ", "inside a fixed or grid block"}, ""},
		{"name: x\nseed: 1\n", []string{"line 2: seed: ", "inside a fixed or grid block"}, ""},
		// Keywords at the wrong level, and values that are no block.
		{"gcn:\n  name: x\n  fixed: {kind: train}\n", []string{"line 2: gcn.name: ", "top level"}, ""},
		{"gcn: 1\n", []string{"line 1: gcn: ", "mapping"}, ""},
		// Unknown parameters, where they are written.
		{"fixed: {dataset: cora_ml, bogus: 1}\ngcn:\n  fixed: {model: gcn, kind: train}\n",
			[]string{"line 1: fixed: unknown parameter \"bogus\""}, "gcn"},
		{"fixed:\n  kind: train\n  datset: cora_ml\n", []string{"line 3: fixed: unknown parameter \"datset\" (did you mean dataset?)"}, ""},
		{"fixed: {kind: train}\ngcn:\n  grid:\n    sed: [0, 1]\n", []string{"line 4: gcn.grid: unknown parameter \"sed\" (did you mean seed?)"}, ""},
		{"fixed:\n  kind: train\n  train: {max_epochs: 5}\n", []string{"line 3: fixed: unknown parameter \"train.max_epochs\""}, ""},
		// Values of the wrong type, where they are written.
		{"fixed: {dataset: cora_ml, seed: 0.5}\ngcn:\n  fixed: {model: gcn, kind: train}\n",
			[]string{"line 1: fixed: parameter seed"}, "gcn"},
		{"fixed: {kind: train}\ngcn:\n  grid: {binary_attr: [true, 3]}\n", []string{"line 3: gcn.grid: parameter binary_attr"}, ""},
		// Unknown kinds.
		{"fixed: {kind: trian}\n", []string{"line 1: fixed: unknown kind \"trian\" (did you mean train?"}, ""},
		{"fixed: {dataset: cora_ml}\ngrid:\n  kind: [train, evl]\n", []string{"line 3: grid: unknown kind \"evl\" (did you mean eval?"}, ""},
		// YAML syntax, on the first line too (yaml.v3 omits that line).
		{"fixed: {kind: train}\ngrid: [0, 1\n", []string{"line 2: ", "YAML"}, ""},
		{"fixed: a: b\n", []string{"line 1: ", "YAML"}, ""},
		{"\tfixed: {kind: train}\n", []string{"line 1: ", "YAML"}, ""},
		{"fixed: {kind: train}\ngrid: {seed: *nope}\n", []string{"line 2: ", "YAML", "nope"}, ""},
		// A key given twice.
		{"fixed: {kind: train}\ngrid: {seed: [1]}\nfixed: {model: gcn}\n", []string{"line 3: fixed: given twice (first on line 1)"}, ""},
		{"fixed: {kind: train, seed: 1, seed: 2}\n", []string{"line 1: ", "seed", "already defined"}, ""},
		// Grid values.
		{"fixed: {kind: train}\ngrid:\n  seed: []\n", []string{"line 3: grid: seed: empty list"}, ""},
		{"fixed: {kind: train, seed: 1}\ngrid:\n  seed: [1, 2]\n", []string{"line 3: ", "seed is both fixed (line 1) and a grid parameter"}, ""},
	} {
		e, err := Parse([]byte(c.src))
		if err == nil {
			_, err = e.Expand(DefaultKinds())
		}
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line == 0 {
			t.Errorf("%q: %v, want a *FileError with a line", c.src, err)
			continue
		}
		msg, rest := err.Error(), err.Error()
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%q: %q lacks %q", c.src, msg, w)
				break
			}
			rest = rest[i+len(w):]
		}
		if c.not != "" && strings.Contains(msg, c.not) {
			t.Errorf("%q: %q mentions %q", c.src, msg, c.not)
		}
	}
}

// Sub-blocks keep working whatever their names, even close to a keyword
// ("sm" is two edits from "seml"), and ParseFile names the file.
func TestSubBlocksNamedLikeKeywords(t *testing.T) {
	e, err := Parse([]byte("fixed: {kind: train, dataset: cora_ml}\nsm:\n  fixed: {model: sm_gdc}\n" +
		"grids:\n  gcn: {fixed: {model: gcn}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := e.Expand(DefaultKinds())
	if err != nil || len(runs) != 2 || runs[0].Block != "sm" || runs[1].Block != "grids.gcn" {
		t.Fatalf("%v %+v", err, runs)
	}
	p := filepath.Join(t.TempDir(), "typo.yaml")
	os.WriteFile(p, []byte("fixd:\n  seed: 1\n"), 0o644)
	if _, err := ParseFile(p); err == nil || !strings.HasPrefix(err.Error(), p+": line 1: fixd: did you mean fixed?") {
		t.Fatalf("%v", err)
	}
}

func TestClosest(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"fixd", "fixed"}, {"gird", "grid"}, {"datset", "dataset"}, {"zzzzzz", ""}, {"seed", "seed"},
	} {
		if got := closest(c.name, []string{"fixed", "grid", "dataset", "seed", "seml"}); got != c.want {
			t.Errorf("closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance = %d", d)
	}
}
