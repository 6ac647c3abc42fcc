package attack

import (
	"fmt"
	"sort"
)

// Spec describes a registered attack.
type Spec struct {
	Name        string
	Description string
	// Incremental attacks extend the previous budget's flips (FGSM);
	// others restart from the clean graph at every budget.
	Incremental bool
	// Gradient reports whether the attack needs an Engine.
	Gradient bool
	// DenseGradient reports whether the Engine must provide all-pairs
	// gradients (DenseEngine).
	DenseGradient bool
	// Poisoning attacks perturb the training graph: protocol.Run retrains
	// every victim from scratch on each perturbed graph (Victim.Train).
	Poisoning bool
	// DefaultLoss is the loss used when the configuration names none.
	DefaultLoss string
	New         func(o Options) (Attack, error)
	// Targeted attacks perturb the graph around single nodes
	// (protocol.RunTargeted); NewTargeted constructs them and New returns
	// an error.
	Targeted    bool
	NewTargeted func(o Options) (TargetedAttack, error)
}

// Registry maps attack names to specs. Default returns the built-in one.
type Registry struct{ specs map[string]Spec }

// Register adds an attack; it fails on a duplicate name.
func (r *Registry) Register(s Spec) error {
	if r.specs == nil {
		r.specs = map[string]Spec{}
	}
	if s.Name == "" || s.New == nil {
		return fmt.Errorf("attack: spec without name or constructor")
	}
	if _, dup := r.specs[s.Name]; dup {
		return fmt.Errorf("attack %q registered twice", s.Name)
	}
	r.specs[s.Name] = s
	return nil
}

// Lookup returns the spec of an attack.
func (r *Registry) Lookup(name string) (Spec, bool) {
	s, ok := r.specs[name]
	return s, ok
}

// Names lists the registered attacks in sorted order.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.specs))
	for n := range r.specs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// builtinSpecs lists the built-in attacks: one line per attack file.
func builtinSpecs() []Spec {
	return []Spec{diceSpec, fgsmSpec, pgdSpec, prbcdSpec, grbcdSpec, localPRBCDSpec, nettackSpec, metattackSpec}
}

// Default returns a registry with every built-in attack.
func Default() *Registry {
	r := &Registry{}
	for _, s := range builtinSpecs() {
		if err := r.Register(s); err != nil {
			panic(err) // duplicate built-in name: programmer error
		}
	}
	return r
}

// TargetedNames lists the registered targeted attacks in sorted order.
func (r *Registry) TargetedNames() []string {
	var out []string
	for _, n := range r.Names() {
		if r.specs[n].Targeted {
			out = append(out, n)
		}
	}
	return out
}
