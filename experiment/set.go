package experiment

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Set makes every run of e take the parameter name = value: its fixed
// values and grid axes anywhere in the file are replaced, and a list
// value becomes a grid axis at the top level (e.g. a shortened trial run:
// max_epochs = 5, samples = 50; or one dataset of a grid over several).
func (e *Experiment) Set(name string, value any) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("set: empty parameter name")
	}
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
	return e.Set(strings.TrimSpace(name), v)
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
