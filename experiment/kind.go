package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/rgnn/rgnn/experiment/store"
)

// Param declares one parameter of a task kind and its default. The
// default's type is the parameter's type: string, bool, int or float64.
type Param struct {
	Name    string `json:"name"`
	Default any    `json:"default"`
	Help    string `json:"help"`
}

// Output is what a run produces besides its parameters.
type Output struct {
	Metrics   map[string]any
	Artifacts map[string]string // name -> sha256 in the store's artifact folder
}

// Kind is a task kind: what a run with `kind: <Name>` does. Each kind is one
// file (kind_*.go); DefaultKinds lists them.
type Kind struct {
	Name   string
	Doc    string
	Params []Param
	Run    func(ctx context.Context, env *Env, p store.Params) (*Output, error)
}

// ErrUnavailable marks a kind that cannot run in this build (e.g. the attack
// kind before the attack package is wired); such runs are skipped and
// reported, not recorded as failures.
var ErrUnavailable = errors.New("not available in this build")

// Kinds is a registry of task kinds.
type Kinds struct {
	m map[string]*Kind
	// types of every parameter any kind declares (for validation).
	types map[string]any
}

// NewKinds returns an empty registry.
func NewKinds() *Kinds { return &Kinds{m: map[string]*Kind{}, types: map[string]any{}} }

// Add registers k; parameters shared between kinds must agree on type.
func (r *Kinds) Add(k *Kind) {
	if _, dup := r.m[k.Name]; dup {
		panic("experiment: duplicate kind " + k.Name)
	}
	for _, p := range k.Params {
		if t, ok := r.types[p.Name]; ok && fmt.Sprintf("%T", t) != fmt.Sprintf("%T", p.Default) {
			panic(fmt.Sprintf("experiment: parameter %s declared as %T and %T", p.Name, t, p.Default))
		}
		r.types[p.Name] = p.Default
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

// DefaultKinds returns train, eval, certify and attack.
func DefaultKinds() *Kinds {
	r := NewKinds()
	r.Add(trainKind())
	r.Add(evalKind())
	r.Add(certifyKind())
	r.Add(perturbKind())
	r.Add(attackKind())
	return r
}

// project keeps the parameters k declares (defaults filled in), checks
// types, and rejects names no kind declares.
func (r *Kinds) project(k *Kind, in map[string]any) (store.Params, error) {
	for name := range in {
		if name == "kind" {
			continue
		}
		if _, ok := r.types[name]; !ok {
			return nil, fmt.Errorf("unknown parameter %q", name)
		}
	}
	p := store.Params{}
	for _, d := range k.Params {
		v, ok := in[d.Name]
		if !ok {
			p[d.Name] = d.Default
			continue
		}
		cv, err := convert(v, d.Default)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", d.Name, err)
		}
		p[d.Name] = cv
	}
	// The temperature and normalisation only matter to the Soft Medoid
	// family: drop them elsewhere so a GCN run has one key whatever a
	// parent block's temperature grid says.
	if m, ok := p["model"].(string); ok && !isSoft(m) {
		for _, d := range k.Params {
			if d.Name == "temperature" || d.Name == "normalization" {
				p[d.Name] = d.Default
			}
		}
	}
	return p, nil
}

func convert(v, def any) (any, error) {
	switch def.(type) {
	case string:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return fmt.Sprint(v), nil
	case bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case int:
		switch t := v.(type) {
		case int:
			return t, nil
		case float64:
			if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
				return int(t), nil
			}
		}
	case float64:
		switch t := v.(type) {
		case int:
			return float64(t), nil
		case float64:
			return t, nil
		}
	}
	return nil, fmt.Errorf("%v (%T) is not a %T", v, v, def)
}

// Typed accessors for run parameters (numbers may be int or float64 after
// a JSON round trip).

func pStr(p store.Params, k string) string { s, _ := p[k].(string); return s }
func pBool(p store.Params, k string) bool  { b, _ := p[k].(bool); return b }
func pFloat(p store.Params, k string) float64 {
	switch t := p[k].(type) {
	case int:
		return float64(t)
	case float64:
		return t
	}
	return 0
}
func pInt(p store.Params, k string) int { return int(pFloat(p, k)) }

// The parameter sets shared by the kinds.

func modelParams() []Param {
	return []Param{
		{"dataset", "cora_ml", "dataset name (or path to a dataset .npz)"},
		{"binary_attr", false, "binarise the features"},
		{"seed", 0, "seed of the split, the initialisation and dropout"},
		{"model", "gcn", "model name (rgnn train --help lists them)"},
		{"temperature", 1.0, "Soft Medoid / Soft Median temperature"},
		{"k", 64, "top-k of the robust aggregations and GDC"},
		{"hidden", 64, "hidden units"},
		{"normalization", "", `Soft Medoid normalisation: "" or "alt"`},
		{"ppr_eps", 0.0, "GDC: 0 exact PPR, > 0 push approximation"},
	}
}

func trainParams() []Param {
	return append(modelParams(),
		Param{"max_epochs", 3000, "maximum training epochs"},
		Param{"patience", 300, "early-stopping patience"},
		Param{"lr", 0.01, "Adam learning rate"},
		Param{"weight_decay", 0.001, "L2 weight decay"},
	)
}
