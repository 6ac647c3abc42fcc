package attack

import (
	"context"
	"fmt"
	"github.com/rgnn/rgnn/data"
	"math"
	"sort"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// Flip is an undirected node pair {U, V} with U < V whose edge is toggled.
type Flip struct{ U, V int32 }

// Budget returns the number of flips for a fraction eps of the m undirected
// edges: round(ε·m) (Python's round: half to even).
func Budget(eps float64, m int) int {
	return int(math.RoundToEven(eps * float64(m)))
}

// CheckFlips verifies that flips are pairs u < v inside n nodes, without
// repeats, and at most budget of them (budget < 0: no limit).
func CheckFlips(flips []Flip, n, budget int) error {
	if budget >= 0 && len(flips) > budget {
		return fmt.Errorf("attack: %d flips exceed the budget %d", len(flips), budget)
	}
	seen := make(map[Flip]struct{}, len(flips))
	for i, f := range flips {
		if f.U < 0 || int(f.V) >= n || f.U >= f.V {
			return fmt.Errorf("attack: flip %d (%d, %d) is not a pair u < v of %d nodes", i, f.U, f.V, n)
		}
		if _, dup := seen[f]; dup {
			return fmt.Errorf("attack: flip (%d, %d) repeated", f.U, f.V)
		}
		seen[f] = struct{}{}
	}
	return nil
}

// ApplyFlips returns adj with every flip toggled in both directions. adj is
// not modified.
func ApplyFlips(adj *tensor.CSR, flips []Flip) (*tensor.CSR, error) {
	if err := CheckFlips(flips, adj.Rows, -1); err != nil {
		return nil, err
	}
	pairs := make([][2]int, len(flips))
	for i, f := range flips {
		pairs[i] = [2]int{int(f.U), int(f.V)}
	}
	return graph.FlipEdges(adj, pairs)
}

// CountFlips splits flips into edges added to and removed from adj.
func CountFlips(adj *tensor.CSR, flips []Flip) (added, removed int) {
	for _, f := range flips {
		if hasEdge(adj, int(f.U), int(f.V)) {
			removed++
		} else {
			added++
		}
	}
	return added, removed
}

func hasEdge(adj *tensor.CSR, u, v int) bool {
	k, ok := adj.Find(u, v)
	return ok && adj.Values[k] != 0
}

// sortFlips orders flips row-major (deterministic output).
func sortFlips(f []Flip) {
	sort.Slice(f, func(i, j int) bool {
		if f[i].U != f[j].U {
			return f[i].U < f[j].U
		}
		return f[i].V < f[j].V
	})
}

// Env is what an attack sees: the clean problem, the gradient engine of the
// attacked model (nil for attacks that need none), the targets and loss.
type Env struct {
	Problem *data.Problem
	Engine  Engine
	Targets []int
	Loss    Loss
	Seed    uint64
	// Progress, if set, reports work done out of total for the current budget.
	Progress func(done, total int)
}

func (e *Env) progress(done, total int) {
	if e.Progress != nil {
		e.Progress(done, total)
	}
}

// Attack computes a perturbation of the clean graph.
type Attack interface {
	// Perturb returns at most budget flips of env.Problem.Adj. prev holds
	// the flips of the previous (smaller) budget for incremental attacks
	// (Spec.Incremental); the result then extends prev.
	Perturb(ctx context.Context, env *Env, prev []Flip, budget int) ([]Flip, error)
}

// Options are the attack hyper-parameters; zero values mean the reference
// defaults of each attack.
type Options struct {
	// Epochs: PGD 200, PR-BCD/GR-BCD 500 (PR-BCD's include its fine-tuning),
	// local PR-BCD 500 (its fine-tuning follows them); Metattack's number of
	// inner training steps (100).
	Epochs         int
	FineTuneEpochs int     // PR-BCD 100, local PR-BCD 100
	BlockSize      int     // PR-BCD/GR-BCD 1e6 (capped at n(n−1)/2)
	LRFactor       float64 // PR-BCD 100; PGD base lr 200
	AddRatio       float64 // DICE 0.6
	Samples        int     // final Bernoulli samples (PGD K = 20, PR-BCD 20)
	Refine         int     // PR-BCD: greedy swap rounds after sampling (0: none, the reference); GCN/GDC engines only
	// Variant selects an attack's variant (metattack: "self" or "approx").
	Variant string
	// DegreeTest selects Nettack's and Metattack's degree-distribution
	// likelihood-ratio test (DegreeTests): "" or "paper", "repo", "off".
	DegreeTest string
	// Perturb selects what a targeted attack that implements
	// FeatureTargetedAttack may flip (Perturbs): "" or "structure", "features"
	// (binary features only) or "both" (nettack).
	Perturb string
}

// DegreeTests are the values of Options.DegreeTest: "paper" is the
// power-law log-likelihood of Zügner et al. (eq. 7), "repo" the one the
// published Nettack/Metattack code computes (+(α+1)·S_d, usually the
// stricter test), "off" no degree test (DeepRobust's Metattack example
// runs with ll_constraint=False).
var DegreeTests = []string{"paper", "repo", "off"}

// degreeTest maps Options.DegreeTest to (repo sign, cutoff) for the
// attacks that take the test: cutoff 0 = the default χ² cutoff, negative =
// off.
func degreeTest(s string) (repo bool, cutoff float64, err error) {
	switch s {
	case "", "paper":
		return false, 0, nil
	case "repo":
		return true, 0, nil
	case "off":
		return false, -1, nil
	}
	return false, 0, fmt.Errorf("unknown degree test %q (paper, repo, off)", s)
}

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
	// Poisoning attacks perturb the training graph: Run retrains every
	// victim from scratch on each perturbed graph (Victim.Train).
	Poisoning bool
	// DefaultLoss is the loss used when the configuration names none.
	DefaultLoss string
	New         func(o Options) (Attack, error)
	// Targeted attacks perturb the graph around single nodes (RunTargeted);
	// NewTargeted constructs them and New returns an error.
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

// orDefault returns r, or Default() for a nil r (a config without a
// registry).
func (r *Registry) orDefault() *Registry {
	if r == nil {
		return Default()
	}
	return r
}

// lookup is Lookup with an error naming the unknown attack and the known
// ones.
func (r *Registry) lookup(name string) (Spec, error) {
	s, ok := r.Lookup(name)
	if !ok {
		return Spec{}, fmt.Errorf("unknown attack %q (known: %v)", name, r.Names())
	}
	return s, nil
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
