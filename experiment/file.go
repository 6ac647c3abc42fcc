package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// Experiment is a parsed experiment file.
//
// The format follows SEML: a `fixed` block (parameters set for every run), a
// `grid` block (parameters whose values are crossed), and named sub-blocks
// with their own `fixed`/`grid` (and further sub-blocks) that refine the
// parent — typically one per model. A block with sub-blocks expands to the
// union of its sub-blocks' grids; a sub-block's values override its
// parent's. Grid values are a list, or SEML's {type: choice, options: [...]}
// or {type: range, min, max, step}. Nested mappings in `fixed` flatten to
// dotted names. Top-level `name` and `description` are metadata; a `seml`
// block is ignored.
//
// Every run has a `kind` parameter (train, eval, certify, attack, ...); the
// kind declares its parameters with defaults, and a run keeps only those
// (so `grid: {kind: [train, certify]}` with `p_del: [0.4, 0.6]` yields one
// train run per model, not two). The run's key is the canonical hash of its
// kind and parameters.
type Experiment struct {
	Name        string
	Description string
	root        block
	// setBy holds the parameters given by Set: name -> "name=value".
	setBy map[string]string
}

type block struct {
	name  string
	fixed map[string]any
	grid  []gridParam // sorted by name
	subs  []block
	// line of each fixed and grid parameter
	fixedLines, gridLines map[string]int
}

type gridParam struct {
	name   string
	values []any
}

// ParseFile reads an experiment file.
func ParseFile(path string) (*Experiment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	e, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if e.Name == "" {
		base := path[strings.LastIndex(path, "/")+1:]
		e.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	return e, nil
}

// Parse parses an experiment file's content.
func Parse(src []byte) (*Experiment, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, syntaxError(src, err)
	}
	if len(doc.Content) == 0 {
		return nil, &FileError{Msg: "empty experiment file"}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fileErrorf(top.Line, "the experiment must be a mapping")
	}
	e := &Experiment{}
	for i := 0; i < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "name":
			e.Name = v.Value
		case "description":
			e.Description = v.Value
		}
	}
	root, err := parseBlock("", top, true, false)
	if err != nil {
		return nil, err
	}
	e.root = root
	return e, nil
}

// parseBlock parses the block n; top says it is the file's top level,
// shaped that its sub-blocks are known to be well formed (badSubBlock).
func parseBlock(name string, n *yaml.Node, top, shaped bool) (block, error) {
	b := block{name: name, fixed: map[string]any{}, fixedLines: map[string]int{}, gridLines: map[string]int{}}
	if n.Kind != yaml.MappingNode {
		return b, fileErrorf(n.Line, "block %q must be a mapping", name)
	}
	keySeen := map[string]int{}
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := joinName(name, k.Value)
		if first, dup := keySeen[k.Value]; dup {
			return b, fileErrorf(k.Line, "%s: given twice (first on line %d)", at, first)
		}
		keySeen[k.Value] = k.Line
		switch {
		case top && (k.Value == "name" || k.Value == "description" || k.Value == "seml" || k.Value == "slurm"):
		case k.Value == "fixed":
			var m map[string]any
			if err := v.Decode(&m); err != nil {
				return b, decodeError(at, v, err)
			}
			flatten("", m, b.fixed)
			keyLines("", v, b.fixedLines, 0)
			for pn := range b.fixed {
				if b.fixedLines[pn] == 0 {
					b.fixedLines[pn] = v.Line // e.g. from a merge key
				}
			}
		case k.Value == "grid":
			var m map[string]any
			if err := v.Decode(&m); err != nil {
				return b, decodeError(at, v, err)
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				if _, seen := b.gridLines[v.Content[j].Value]; !seen {
					b.gridLines[v.Content[j].Value] = v.Content[j].Line
				}
			}
			for _, pn := range slices.Sorted(maps.Keys(m)) {
				line := cmp.Or(b.gridLines[pn], v.Line)
				b.gridLines[pn] = line
				vals, err := gridValues(m[pn])
				if err != nil {
					return b, fileErrorf(line, "%s: %s: %v", at, pn, err)
				}
				b.grid = append(b.grid, gridParam{name: pn, values: vals})
			}
		case k.Value == "random":
			return b, fileErrorf(k.Line, "%s: random search blocks are not supported (use grid)", at)
		default:
			if !shaped {
				if err := badSubBlock(at, k, v); err != nil {
					return b, err
				}
			}
			sub, err := parseBlock(at, v, false, true)
			if err != nil {
				return b, err
			}
			b.subs = append(b.subs, sub)
		}
	}
	for _, g := range b.grid {
		if _, ok := b.fixed[g.name]; ok {
			return b, fileErrorf(b.gridLines[g.name], "%s: %s is both fixed (line %d) and a grid parameter",
				joinName(name, "grid"), g.name, b.fixedLines[g.name])
		}
	}
	sort.Slice(b.grid, func(i, j int) bool { return b.grid[i].name < b.grid[j].name })
	return b, nil
}

func joinName(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func flatten(prefix string, m map[string]any, out map[string]any) {
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			flatten(joinName(prefix, k), sub, out)
			continue
		}
		out[joinName(prefix, k)] = v
	}
}

func gridValues(v any) ([]any, error) {
	switch t := v.(type) {
	case []any:
		if len(t) == 0 {
			return nil, fmt.Errorf("empty list")
		}
		return t, nil
	case map[string]any:
		switch t["type"] {
		case "choice":
			opts, ok := t["options"].([]any)
			if !ok || len(opts) == 0 {
				return nil, fmt.Errorf("choice needs a non-empty options list")
			}
			return opts, nil
		case "range":
			lo, ok1 := toFloat(t["min"])
			hi, ok2 := toFloat(t["max"])
			st, ok3 := toFloat(t["step"])
			if !ok1 || !ok2 || !ok3 || !(st > 0) || hi < lo || (hi-lo)/st > 1e6 {
				return nil, fmt.Errorf("range needs numeric min ≤ max and step > 0")
			}
			// Like numpy.arange: max excluded.
			var out []any
			allInt := isInt(t["min"]) && isInt(t["step"])
			for i := 0; ; i++ {
				x := lo + float64(i)*st
				if x >= hi-1e-12*math.Abs(st) {
					break
				}
				if allInt {
					out = append(out, int(math.Round(x)))
				} else {
					out = append(out, x)
				}
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("empty range")
			}
			return out, nil
		default:
			return nil, fmt.Errorf("unsupported grid type %v (want a list, choice or range)", t["type"])
		}
	default:
		return nil, fmt.Errorf("want a list of values, got %v", v)
	}
}

func isInt(v any) bool { _, ok := v.(int); return ok }

func toFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case int:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

// Run is one expanded run of an experiment.
type Run struct {
	Key    string
	Kind   string
	Block  string // the named sub-block it came from, e.g. "sm_gdc"
	Params store.Params
}

// Label is a short human description of the run.
func (r Run) Label() string {
	var parts []string
	for _, k := range []string{"dataset", "model", "normalization", "temperature", "seed", "attack", "epsilon", "budget", "p_add", "p_del", "p_add_att", "p_del_att"} {
		if v, ok := r.Params[k]; ok {
			if !task.Applies(k, fmt.Sprint(r.Params["model"])) || k == "normalization" && v == "" {
				continue
			}
			if k == "epsilon" && r.Kind == "targeted" && r.Params["budget"] != "epsilon" {
				continue // a per-target budget degree+K does not use ε
			}
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return r.Kind + " " + strings.Join(parts, " ")
}

// Expand returns the runs of the experiment for the kinds in reg, in file
// order, duplicates (same key) removed. Unknown parameters, unknown kinds
// and values of the wrong type are errors.
func (e *Experiment) Expand(reg *Kinds) ([]Run, error) {
	if n := e.root.size(nil); n > MaxRuns {
		return nil, fmt.Errorf("the grids expand to more than %d runs (%s): split the experiment", MaxRuns, sizeText(n))
	}
	if err := e.checkSet(reg); err != nil {
		return nil, err
	}
	if err := e.root.check(reg); err != nil {
		return nil, err
	}
	var combos []named
	e.root.expand(map[string]any{}, nil, &combos)
	var runs []Run
	seen := map[string]bool{}
	for _, c := range combos {
		if c.block == "" {
			c.block = "top level"
		}
		kindName, _ := c.params["kind"].(string)
		if kindName == "" {
			return nil, fmt.Errorf("block %q: every run needs a kind (train, eval, certify, attack, ...)", c.block)
		}
		k, ok := reg.Lookup(kindName)
		if !ok {
			return nil, fmt.Errorf("block %q: unknown kind %q (known: %s)", c.block, kindName, strings.Join(reg.Names(), ", "))
		}
		p, err := reg.project(k, c.params)
		if err != nil {
			return nil, fmt.Errorf("block %q: %w", c.block, err)
		}
		key, err := store.Key(k.Name, p)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		run := Run{Key: key, Kind: k.Name, Block: c.block, Params: p}
		// Every parameter range is checked now, so that --dry-run refuses
		// what running would (p_add = p_del = 0, seed: -3, ...).
		if err := k.Validate(p); err != nil {
			var fe *task.FieldError
			if errors.As(err, &fe) && e.setBy[fe.Param] != "" {
				return nil, &SetError{Assignment: e.setBy[fe.Param], Err: fmt.Errorf("run %s: %w", run.Label(), err)}
			}
			return nil, fmt.Errorf("block %q: run %s: %w", c.block, run.Label(), err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// MaxRuns bounds the runs one experiment file may expand to (before
// duplicates are removed), so a typo in a grid cannot exhaust memory.
const MaxRuns = 1_000_000

func sizeText(n int) string {
	if n == math.MaxInt {
		return "overflow"
	}
	return fmt.Sprint(n)
}

// size counts the combinations expand produces below b (saturating at
// math.MaxInt), with the same rule for which grid parameters apply.
func (b block) size(parentGrid map[string]int) int {
	grid := map[string]int{}
	for k, n := range parentGrid {
		grid[k] = n
	}
	for k := range b.fixed {
		delete(grid, k)
	}
	for _, g := range b.grid {
		grid[g.name] = len(g.values)
	}
	if len(b.subs) > 0 {
		total := 0
		for _, s := range b.subs {
			n := s.size(grid)
			if total > math.MaxInt-n {
				return math.MaxInt
			}
			total += n
		}
		return total
	}
	prod := 1
	for _, n := range grid {
		if n > 0 && prod > math.MaxInt/n {
			return math.MaxInt
		}
		prod *= n
	}
	return prod
}

type named struct {
	block  string
	params map[string]any
}

func (b block) expand(parentFixed map[string]any, parentGrid []gridParam, out *[]named) {
	fixed := map[string]any{}
	for k, v := range parentFixed {
		fixed[k] = v
	}
	for k, v := range b.fixed {
		fixed[k] = v
	}
	// Own grid overrides the parent's grid and fixed values of that name.
	gridMap := map[string]gridParam{}
	for _, g := range parentGrid {
		gridMap[g.name] = g
	}
	for k := range b.fixed {
		delete(gridMap, k)
	}
	for _, g := range b.grid {
		gridMap[g.name] = g
		delete(fixed, g.name)
	}
	var grid []gridParam
	for _, g := range gridMap {
		grid = append(grid, g)
	}
	sort.Slice(grid, func(i, j int) bool { return grid[i].name < grid[j].name })
	if len(b.subs) > 0 {
		for _, s := range b.subs {
			s.expand(fixed, grid, out)
		}
		return
	}
	// Cartesian product, the last parameter varying fastest.
	idx := make([]int, len(grid))
	for {
		p := map[string]any{}
		for k, v := range fixed {
			p[k] = v
		}
		for i, g := range grid {
			p[g.name] = g.values[idx[i]]
		}
		*out = append(*out, named{block: b.name, params: p})
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(grid[i].values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}
