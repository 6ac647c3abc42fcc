package task

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// The attack protocol's results, named here so front ends need only this
// package.
type (
	// GlobalResult is a global attack's outcome per budget.
	GlobalResult = protocol.Result
	// BudgetResult is one budget of a global attack.
	BudgetResult = protocol.BudgetResult
	// TargetedResult is a targeted attack's outcome per target and budget.
	TargetedResult = protocol.TargetedResult
	// TargetSummary aggregates one victim's rows of a targeted attack for
	// one budget rule.
	TargetSummary = protocol.TargetSummary
)

// Targeted reports whether the spec's attack is a targeted one.
func (a AttackParams) Targeted() bool {
	s, ok := attack.Default().Lookup(a.Attack)
	return ok && s.Targeted
}

// Poisoning reports whether the spec's attack is a poisoning one (victims
// are trained on the perturbed graphs).
func (a AttackParams) Poisoning() bool {
	s, ok := attack.Default().Lookup(a.Attack)
	return ok && s.Poisoning
}

// Incremental reports whether the spec's attack extends a smaller budget's
// flips to a larger budget (FGSM, Metattack): the flips of budget b are the
// first flips of every larger budget.
func (a AttackParams) Incremental() bool {
	s, ok := attack.Default().Lookup(a.Attack)
	return ok && s.Incremental
}

// Gradient reports whether the spec's attack differentiates a model.
func (a AttackParams) Gradient() bool {
	s, ok := attack.Default().Lookup(a.Attack)
	return ok && s.Gradient
}

// Run computes the global attack of s on p's clean graph (transferred from
// a surrogate GCN trained with AttackSeed, or model-free) for each budget,
// without victims.
func (s Perturb) Run(ctx context.Context, p *data.Problem, h Hooks) (*GlobalResult, error) {
	return s.Continue(ctx, p, nil, h)
}

// Continue is Run for an incremental attack (Incremental) that starts
// from prev, the flips of a smaller budget computed by the same spec (its
// ε aside) on p: the result is Run's, with the work of prev saved.
func (s Perturb) Continue(ctx context.Context, p *data.Problem, prev []attack.Flip, h Hooks) (*GlobalResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cfg := s.AttackParams.config(attack.Options{}, h)
	cfg.Prev = prev
	return protocol.Run(ctx, cfg, p)
}

// config is the protocol.Config of the parameters (no victims).
func (a AttackParams) config(o attack.Options, h Hooks) protocol.Config {
	o.Epochs, o.BlockSize = a.Epochs, a.BlockSize
	return protocol.Config{Attack: a.Attack, Epsilons: a.Epsilons, Seed: uint64(a.AttackSeed), Loss: a.Loss, Options: o,
		Progress: h.Progress, Flips: h.Flips}
}

// AttackResult is the outcome of Attack.Run: Global for a global attack,
// Targeted for a targeted one.
type AttackResult struct {
	Global   *GlobalResult
	Targeted *TargetedResult
}

// Run attacks the victims on p: a global attack (evasion: the victims keep
// their weights; poisoning: they are retrained on every perturbed graph with
// the training protocol of s) for each budget, or a targeted attack for
// each target and budget. surrogate (a trained gcn, nil: trained here on
// the clean graph) is what transfer attacks differentiate. onBudget, if
// set, receives each budget of a global attack as soon as it is done.
func (s Attack) Run(ctx context.Context, p *data.Problem, victims []*Trained, surrogate *Trained, h Hooks,
	onBudget func(*GlobalResult, BudgetResult) error) (*AttackResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Adaptive && len(victims) == 0 {
		return nil, bad("adaptive", true, "needs a victim to attack")
	}
	for i, v := range victims {
		if s.Adaptive && v.Spec.External() && (i == 0 || s.Targeted()) {
			return nil, bad("adaptive", true, "victim %s runs outside rgnn and cannot be differentiated: attack it by transfer "+
				"from the surrogate (drop --adaptive)", v.Name())
		}
	}
	sm := surrogateModel(surrogate)
	o := attack.Options{Variant: s.Variant, DegreeTest: s.DegreeTest, Refine: s.Refine, LRFactor: s.LRFactor,
		Perturb: s.Perturb, Influencers: s.Influencers, EnginePPREps: s.EnginePPREps}
	if s.Targeted() {
		return s.runTargeted(ctx, p, victims, sm, o, h)
	}
	cfg := s.AttackParams.config(o, h)
	cfg.Adaptive, cfg.Surrogate, cfg.OnBudget = s.Adaptive, sm, onBudget
	for _, v := range victims {
		av := protocol.Victim{Name: v.Name(), Model: v.Model}
		if s.Poisoning() {
			av.Train = s.retrainer(p, v, h)
		}
		cfg.Victims = append(cfg.Victims, av)
	}
	res, err := protocol.Run(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	return &AttackResult{Global: res}, nil
}

func surrogateModel(t *Trained) model.Model {
	if t == nil {
		return nil
	}
	return t.Model
}

// retrainer trains a fresh copy of victim v from scratch on a perturbed
// adjacency with the protocol of s (poisoning attacks).
func (s Attack) retrainer(p *data.Problem, v *Trained, h Hooks) func(context.Context, *tensor.CSR) (model.Model, error) {
	return func(ctx context.Context, adj *tensor.CSR) (model.Model, error) {
		if v.Spec.External() { // the process refits itself on the perturbed graph
			if err := fitExternal(ctx, v, p.WithAdj(adj)); err != nil {
				return nil, fmt.Errorf("victim %s: %w", v.Name(), err)
			}
			return v.Model, nil
		}
		t, err := NewModel(v.Spec, p, v.Seed)
		if err != nil {
			return nil, err
		}
		tr := s.Train
		tr.Model, tr.Seed = v.Spec, v.Seed
		if _, _, err := tr.fit(ctx, t, p.WithAdj(adj), progressEpochs(h, "retrain "+v.Spec.Model, tr.MaxEpochs)); err != nil {
			return nil, fmt.Errorf("victim %s: %w", v.Spec.Model, err)
		}
		return t.Model, nil
	}
}

// progressEpochs reports training epochs as stage progress out of maxEpochs.
func progressEpochs(h Hooks, stage string, maxEpochs int) func(int, float64, float64) {
	if h.Progress == nil {
		return nil
	}
	return func(e int, _, _ float64) { h.Progress(stage, e+1, maxEpochs) }
}

// budget is the targeted attacks' budget rule of s.
func (s Attack) budget() (protocol.TargetedBudget, error) {
	if s.Budget == "epsilon" {
		return protocol.TargetedBudget{Epsilons: s.Epsilons}, nil
	}
	k, err := parseDegreeBudget(s.Budget)
	if err != nil {
		return protocol.TargetedBudget{}, bad("budget", s.Budget, "%v", err)
	}
	return protocol.TargetedBudget{Plus: k}, nil
}

func (s Attack) runTargeted(ctx context.Context, p *data.Problem, victims []*Trained, sm model.Model,
	o attack.Options, h Hooks) (*AttackResult, error) {
	if len(victims) == 0 {
		return nil, bad("victim", "", "a targeted attack needs at least one victim")
	}
	seen := map[string]bool{}
	var av []protocol.Victim
	for _, v := range victims {
		if seen[v.Name()] {
			return nil, bad("victim", v.Name(), "given twice")
		}
		seen[v.Name()] = true
		av = append(av, protocol.Victim{Name: v.Name(), Model: v.Model})
	}
	var targets []int
	if s.Targets != "auto" {
		var err error
		if targets, err = data.ReadNodeListFile(s.Targets, p.NumNodes()); err != nil {
			return nil, bad("targets", s.Targets, "%v", err)
		}
	}
	b, err := s.budget()
	if err != nil {
		return nil, err
	}
	o.Epochs, o.BlockSize = s.Epochs, s.BlockSize
	cfg := protocol.TargetedConfig{Attack: s.Attack, Targets: targets, Budget: b, Seed: uint64(s.AttackSeed), Loss: s.Loss,
		Options: o, Direct: s.Adaptive, Surrogate: sm, Victims: av, Progress: h.Progress}
	res, err := protocol.RunTargeted(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	return &AttackResult{Targeted: res}, nil
}

// Victims builds the named victims with the model parameters of s: with
// the weights in weights[i] when given and not empty, else trained here on
// p's clean graph with the protocol of s. An external victim is started
// (and fits itself if it can); close the victims with Trained.Close.
func (s Attack) Victims(ctx context.Context, p *data.Problem, names, weights []string, h Hooks) ([]*Trained, error) {
	if len(weights) > len(names) {
		return nil, bad("weights", strings.Join(weights, ","), "%d weights for %d victims", len(weights), len(names))
	}
	if s.Poisoning() && len(weights) > 0 {
		return nil, bad("weights", strings.Join(weights, ","), "%s is a poisoning attack: victims are trained here, "+
			"on the clean and on every perturbed graph", s.Attack)
	}
	var out []*Trained
	for i, name := range names {
		m := s.Model
		m.Model = name
		if err := m.Validate(); err != nil {
			return nil, err
		}
		var t *Trained
		var err error
		switch {
		case m.External():
			if i < len(weights) && weights[i] != "" {
				err = bad("weights", weights[i], "victim %s keeps its weights in its own process: give none for it", name)
			} else if t, err = m.startExternal(ctx, p, s.Seed); err == nil && s.Poisoning() && !externalClient(t.Model).CanFit() {
				t.Close()
				err = bad("victim", name, "%s is a poisoning attack, which retrains every victim on the perturbed graphs, but "+
					"the external model does not fit itself (no \"fit\": true in its ready message)", s.Attack)
			}
		case i < len(weights) && weights[i] != "":
			t, err = Load(m, p, s.Seed, weights[i])
		default:
			tr := s.Train
			tr.Model = m
			h.notice("victim %s has no weights: training it here first (seed %d, up to %d epochs, early stopping "+
				"after %d without improvement; give --weights to skip this)", name, s.Seed, tr.MaxEpochs, tr.Patience)
			t, err = NewModel(m, p, s.Seed)
			if err == nil {
				_, _, err = tr.fit(ctx, t, p, progressEpochs(h, "train "+name, tr.MaxEpochs))
				if err != nil {
					err = fmt.Errorf("victim %s: %w", name, err)
				}
			}
		}
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// LoadSurrogate loads the transfer surrogate (a gcn) from path, nil for "".
func (s Attack) LoadSurrogate(p *data.Problem, path string) (*Trained, error) {
	if path == "" {
		return nil, nil
	}
	if !s.Gradient() {
		return nil, bad("surrogate_weights", path, "applies to the gradient attacks, not %s", s.Attack)
	}
	if s.Adaptive {
		return nil, bad("surrogate_weights", path, "is for transfer attacks; adaptive attacks differentiate the victims themselves")
	}
	m := s.Model
	m.Model = "gcn"
	return Load(m, p, s.Seed, path)
}

// Accuracy is the test accuracy of t on p's graph (its preprocessing
// recomputed there).
func Accuracy(t *Trained, p *data.Problem) (float64, error) {
	return protocol.EvaluateVictim(t.Model, p, p.Adj)
}

// Evaluate is Accuracy with the reason, if any, why t's logits on p's graph
// are NaN as the reference's are (protocol.Evaluation).
func Evaluate(t *Trained, p *data.Problem) (protocol.Evaluation, error) {
	return protocol.Evaluate(t.Model, p, p.Adj)
}

// BudgetSaver keeps each budget of a global attack as soon as it is done
// (Attack.Run's onBudget): its graph saved into Dir ("": not saved), a
// line with its flips and accuracies on Log (nil: none). A long run
// (Metattack) keeps what it finished.
type BudgetSaver struct {
	Dir   string
	Log   io.Writer
	Files []string // the graphs saved so far
}

// Save saves and reports b.
func (s *BudgetSaver) Save(r *GlobalResult, b BudgetResult) error {
	if s.Dir != "" {
		path, err := r.SaveBudget(s.Dir, b)
		if err != nil {
			return err
		}
		s.Files = append(s.Files, path)
	}
	if s.Log != nil {
		var vs []string
		for _, v := range b.Victims {
			vs = append(vs, fmt.Sprintf("%s %.4f%s", v.Name, v.Accuracy, nanNote(v)))
		}
		fmt.Fprintf(s.Log, "ε=%g done: %d flips in %.1fs; %s\n", b.Epsilon, b.NumFlips, b.Seconds, strings.Join(vs, ", "))
	}
	return nil
}
