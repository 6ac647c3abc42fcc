package experiment

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gopkg.in/yaml.v3"
)

// maxFuzzRuns bounds the grid size FuzzParseExpand expands (Expand itself
// refuses more than MaxRuns; smaller grids keep the fuzzer fast).
const maxFuzzRuns = 10000

// gridBound is an upper bound on the number of runs an experiment file
// expands to, read from the YAML alone: the number of mappings times the
// product of the sizes of every grid parameter anywhere in the file
// (+Inf when it cannot tell).
func gridBound(src []byte) float64 {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil {
		return 0
	}
	maps, prod := 0.0, 1.0
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 1000 {
			prod = math.Inf(1)
			return
		}
		if n.Kind == yaml.AliasNode {
			walk(n.Alias, depth+1)
			return
		}
		if n.Kind == yaml.MappingNode {
			maps++
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "grid" && n.Content[i+1].Kind == yaml.MappingNode {
					g := n.Content[i+1]
					for j := 1; j < len(g.Content); j += 2 {
						prod *= paramSize(g.Content[j])
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(&doc, 0)
	return max(maps, 1) * prod
}

// paramSize is the number of values of one grid parameter (an upper bound).
func paramSize(v *yaml.Node) float64 {
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	switch v.Kind {
	case yaml.SequenceNode:
		return float64(max(len(v.Content), 1))
	case yaml.MappingNode:
		f := map[string]*yaml.Node{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			f[v.Content[i].Value] = v.Content[i+1]
		}
		if o := f["options"]; o != nil && o.Kind == yaml.SequenceNode {
			return float64(max(len(o.Content), 1))
		}
		num := func(k string) float64 {
			if f[k] == nil {
				return math.NaN()
			}
			x, err := strconv.ParseFloat(f[k].Value, 64)
			if err != nil {
				return math.NaN()
			}
			return x
		}
		if n := (num("max") - num("min")) / num("step"); n >= 0 && n <= 1e6 {
			return n + 2
		}
		return 1e6 + 2
	}
	return 1
}

// FuzzParseExpand: an experiment file never panics Parse or Expand with
// the default kinds, and every run Expand returns has a kind and a key.
// Seeds: the shipped experiments/*.yaml and small files written here.
//
// Expand materialises the whole cross product of the grids, so a few
// hundred bytes can ask for billions of runs (e.g. twenty grid parameters
// of three values each); such files are not expanded here (gridBound) —
// bounding Expand itself is a change to package experiment.
func FuzzParseExpand(f *testing.F) {
	f.Add([]byte(specYAML))
	for _, s := range []string{
		"fixed: {kind: train, dataset: cora_ml, model: gcn}",
		"grid: {kind: [train, eval], seed: {type: range, min: 0, max: 3, step: 1}}\ngcn: {fixed: {model: gcn}}",
		"fixd: {seed: 1}",
		"fixed: {kind: certify, p_add: 0.5, p_del: .nan}",
		"a: &x {fixed: {kind: train}}\nb: *x",
		"grid: {kind: {type: choice, options: [train]}, temperature: {type: range, min: 0.1, max: 0.3, step: 0.1}}",
		"- 1\n- 2",
		"random: {}",
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("..", "experiments", "*.yaml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	reg := DefaultKinds()
	f.Fuzz(func(t *testing.T, src []byte) {
		e, err := Parse(src)
		if err != nil || gridBound(src) > maxFuzzRuns {
			return
		}
		runs, err := e.Expand(reg)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range runs {
			if r.Kind == "" || r.Key == "" || seen[r.Key] {
				t.Fatalf("run %+v: empty or repeated key", r)
			}
			seen[r.Key] = true
		}
	})
}

// TestGridBound: the bound covers the shipped experiment files and grows
// with the grids.
func TestGridBound(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "experiments", "*.yaml"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		e, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		runs, err := e.Expand(DefaultKinds())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if bound := gridBound(b); float64(len(runs)) > bound {
			t.Errorf("%s: %d runs above the bound %v", p, len(runs), bound)
		}
	}
	if b := gridBound([]byte("grid: {a: [1, 2, 3], b: [1, 2]}")); b < 6 {
		t.Errorf("bound %v below 6", b)
	}
}
