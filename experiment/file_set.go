package experiment

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rgnn/rgnn/experiment/store"
)

// Set makes every run of e take the parameter name = value: its fixed
// values and grid axes anywhere in the file are replaced, and a list
// value becomes a grid axis at the top level (e.g. a shortened trial run:
// max_epochs = 5, samples = 50; or one dataset of a grid over several).
func (e *Experiment) Set(name string, value any) error {
	return e.set(name, value, "")
}

func (e *Experiment) set(name string, value any, text string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("set: empty parameter name")
	}
	if e.setBy == nil {
		e.setBy = map[string]string{}
	}
	if text == "" {
		text = fmt.Sprint(value)
	}
	e.setBy[name] = name + "=" + text
	e.root.unset(name)
	if l, ok := value.([]any); ok {
		vs, err := gridValues(l)
		if err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
		e.root.grid = append(e.root.grid, gridParam{name: name, values: vs})
		sortGrid(e.root.grid)
		return nil
	}
	e.root.fixed[name] = value
	return nil
}

// SetString is Set with the value given as YAML text ("5", "0.1",
// "[0, 1]", "cora_ml"), as `rgnn run --set name=value` passes it.
func (e *Experiment) SetString(assignment string) error {
	name, text, ok := strings.Cut(assignment, "=")
	if !ok {
		return fmt.Errorf("set %q: want name=value", assignment)
	}
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return fmt.Errorf("set %s: value %q: %w", name, text, err)
	}
	return e.set(strings.TrimSpace(name), v, text)
}

// SetError is a parameter set with Set (rgnn run --set) that is wrong: an
// unknown parameter or a bad value. It names the assignment, not the file.
type SetError struct {
	Assignment string // name=value as given
	Err        error
}

func (e *SetError) Error() string { return e.Assignment + ": " + e.Err.Error() }
func (e *SetError) Unwrap() error { return e.Err }

// checkSet checks the parameters given with Set: each declared by some
// kind and of its type. Their runs are validated by Expand.
func (e *Experiment) checkSet(reg *Kinds) error {
	names := make([]string, 0, len(e.setBy))
	for n := range e.setBy {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == "kind" {
			continue // checked with the file's kinds
		}
		if _, ok := reg.types[n]; !ok {
			return &SetError{Assignment: e.setBy[n], Err: fmt.Errorf("unknown parameter %q%s", n, didYouMean(n, paramNames(reg)))}
		}
		var vals []any
		if v, ok := e.root.fixed[n]; ok {
			vals = []any{v}
		}
		for _, g := range e.root.grid {
			if g.name == n {
				vals = g.values
			}
		}
		for _, k := range reg.m {
			for _, p := range k.Params() {
				if p.Name != n {
					continue
				}
				for _, v := range vals {
					if _, err := k.Decode(store.Params{n: v}); err != nil {
						return &SetError{Assignment: e.setBy[n], Err: err}
					}
				}
			}
		}
	}
	return nil
}

func (b *block) unset(name string) {
	delete(b.fixed, name)
	g := b.grid[:0]
	for _, p := range b.grid {
		if p.name != name {
			g = append(g, p)
		}
	}
	b.grid = g
	for i := range b.subs {
		b.subs[i].unset(name)
	}
}

func sortGrid(g []gridParam) { sort.Slice(g, func(i, j int) bool { return g[i].name < g[j].name }) }
