package experiment

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// Param describes one parameter of a task kind: its name, default and
// help, all read from the kind's typed spec (package task).
type Param struct {
	Name    string `json:"name"`
	Default any    `json:"default"`
	Help    string `json:"help"`
}

// Output is what a run produces besides its parameters.
type Output struct {
	Metrics   map[string]any
	Artifacts map[string]string // name -> sha256 in the store's artifact folder
	// Seconds, if > 0, is the run's own time where it differs from its
	// wall time (a certify run that shared its samples: its share).
	Seconds float64
}

// Kind is a task kind: what a run with `kind: <Name>` does. Its parameters
// are the experiment parameters of its spec (a struct of package task):
// the run's values are decoded into the spec, defaults filled from the
// spec's Defaults(), and the spec — not a map — is what the kind runs.
type Kind struct {
	Name string
	Doc  string
	// Deps are the kinds whose runs this kind reads from the store (the
	// train run of its model, the perturb run of a transfer attack).
	Deps []string
	// spec returns a new spec (a pointer) with every field at its default.
	spec func() any
	// run runs a decoded and validated spec.
	run func(ctx context.Context, env *Env, spec any) (*Output, error)
	// validate checks a decoded spec (its Validate).
	validate func(spec any) error
}

// specKind makes a kind of the spec type S.
func specKind[S interface{ Validate() error }](name, doc string, deps []string, defaults func() S,
	run func(context.Context, *Env, S) (*Output, error)) *Kind {
	return &Kind{Name: name, Doc: doc, Deps: deps,
		spec:     func() any { s := defaults(); return &s },
		validate: func(spec any) error { return (*spec.(*S)).Validate() },
		run: func(ctx context.Context, env *Env, spec any) (*Output, error) {
			s := *spec.(*S)
			if err := s.Validate(); err != nil {
				return nil, err
			}
			return run(ctx, env, s)
		}}
}

// Params lists the kind's parameters with their defaults.
func (k *Kind) Params() []Param {
	var out []Param
	for _, f := range task.Fields(k.spec()) {
		if !f.CLIOnly {
			out = append(out, Param{Name: f.Param, Default: f.ParamValue(), Help: f.Help})
		}
	}
	return out
}

// Decode returns the kind's spec (a pointer to a task spec) with the run
// parameters p set, for a run of this kind.
func (k *Kind) Decode(p store.Params) (any, error) {
	s := k.spec()
	for _, f := range task.Fields(s) {
		if v, ok := p[f.Param]; ok && !f.CLIOnly {
			if err := f.SetValue(v); err != nil {
				return nil, fmt.Errorf("parameter %s: %w", f.Param, err)
			}
		}
	}
	return s, nil
}

// Validate decodes p and checks it as a run would (the spec's Validate),
// so a dry run refuses what running would.
func (k *Kind) Validate(p store.Params) error {
	s, err := k.Decode(p)
	if err != nil {
		return err
	}
	if k.validate == nil {
		return nil
	}
	return k.validate(s)
}

// Run decodes, validates and runs p.
func (k *Kind) Run(ctx context.Context, env *Env, p store.Params) (*Output, error) {
	s, err := k.Decode(p)
	if err != nil {
		return nil, err
	}
	return k.run(ctx, env, s)
}

// ErrUnavailable marks a kind that cannot run in this build; such runs are
// skipped and reported, not recorded as failures.
var ErrUnavailable = errors.New("not available in this build")

// Kinds is a registry of task kinds.
type Kinds struct {
	m     map[string]*Kind
	types map[string]string // every parameter any kind declares -> its type
}

// NewKinds returns an empty registry.
func NewKinds() *Kinds { return &Kinds{m: map[string]*Kind{}, types: map[string]string{}} }

// Add registers k; parameters shared between kinds must agree on type.
func (r *Kinds) Add(k *Kind) {
	if _, dup := r.m[k.Name]; dup {
		panic("experiment: duplicate kind " + k.Name)
	}
	for _, f := range task.Fields(k.spec()) {
		if f.CLIOnly {
			continue
		}
		if t, ok := r.types[f.Param]; ok && t != f.Type() {
			panic(fmt.Sprintf("experiment: parameter %s declared as %s and %s", f.Param, t, f.Type()))
		}
		r.types[f.Param] = f.Type()
	}
	r.m[k.Name] = k
}

// Lookup returns the kind with this name.
func (r *Kinds) Lookup(name string) (*Kind, bool) { k, ok := r.m[name]; return k, ok }

// Names lists the kinds, sorted.
func (r *Kinds) Names() []string {
	var n []string
	for k := range r.m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// DefaultKinds returns train, eval, certify, perturb, attack, targeted,
// bias, messages and unittest.
func DefaultKinds() *Kinds {
	r := NewKinds()
	r.Add(trainKind())
	r.Add(evalKind())
	r.Add(certifyKind())
	r.Add(perturbKind())
	r.Add(attackKind())
	r.Add(targetedKind())
	r.Add(biasKind())
	r.Add(messagesKind())
	r.Add(unitTestKind())
	return r
}

// project returns the run parameters of kind k from in: the parameters k
// declares, with defaults filled in and values converted to their type; a
// name no kind declares is an error. Parameters that do not apply to the
// run's model (task.Applies: the temperature and normalisation of models
// without them) are kept at their default, so a GCN run has one key
// whatever a parent block's temperature grid says; those tagged key:"keep"
// stay as given, as earlier releases keyed them.
func (r *Kinds) project(k *Kind, in map[string]any) (store.Params, error) {
	for name := range in {
		if name == "kind" {
			continue
		}
		if _, ok := r.types[name]; !ok {
			return nil, fmt.Errorf("unknown parameter %q", name)
		}
	}
	s, err := k.Decode(in)
	if err != nil {
		return nil, err
	}
	def := task.Fields(k.spec())
	fields := task.Fields(s)
	modelName := ""
	for _, f := range fields {
		if f.Param == "model" {
			modelName = f.String()
		}
	}
	p := store.Params{}
	for i, f := range fields {
		if f.CLIOnly {
			continue
		}
		v := f.ParamValue()
		unused := f.Uses != "" && !f.KeyKeep && !task.Applies(f.Param, modelName)
		if unused {
			v = def[i].ParamValue()
		}
		if f.KeyOmitDefault && (unused || f.String() == def[i].String()) {
			continue // a parameter added later: earlier keys stay valid
		}
		p[f.Param] = v
	}
	return p, nil
}

// Dependency returns the key and parameters of the run of kind dep that a
// run with parameters p reads (its train run, its perturb run).
func (r *Kinds) Dependency(dep string, p store.Params) (string, store.Params, error) {
	k, ok := r.Lookup(dep)
	if !ok {
		return "", nil, fmt.Errorf("unknown kind %q", dep)
	}
	kp, err := r.project(k, p)
	if err != nil {
		return "", nil, err
	}
	key, err := store.Key(k.Name, kp)
	return key, kp, err
}
