package protocol

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// Config configures Run.
type Config struct {
	Attack   string    // registry name
	Epsilons []float64 // fractions of the undirected edges; budgets round(ε·m)
	Seed     uint64    // attack randomness and surrogate training
	Loss     string    // "" = the attack's default
	Options  attack.Options
	// Surrogate is the trained model "gcn" the transfer attack
	// differentiates; nil: Run trains one on the clean graph with the
	// reference surrogate protocol (patience 100).
	Surrogate model.Model
	// Adaptive attacks Victims[0] itself instead of a surrogate.
	Adaptive bool
	Victims  []Victim
	Registry *attack.Registry // nil: attack.Default()
	// Progress, if set, reports stage ("surrogate", "eps=0.1", ...) progress.
	Progress func(stage string, done, total int)
	// OnBudget, if set, is called with the result so far as soon as each
	// budget (its flips and victim accuracies) is done — to save or report
	// it before the remaining budgets of a long run; an error stops Run.
	OnBudget func(res *Result, b BudgetResult) error
	// Flips, if set, receives every flip so far of an incremental attack
	// after each flip (attack.Env.Flips): a checkpoint to continue from
	// with Prev.
	Flips func(flips []attack.Flip)
	// Prev, for an incremental attack (attack.Spec.Incremental), holds the
	// flips of a smaller budget computed earlier with the same attack,
	// seed and options: the first budget continues from them instead of
	// starting on the clean graph, with the same result.
	Prev []attack.Flip
}

// VictimResult is a victim's test accuracy on one graph.
type VictimResult struct {
	Name     string  `json:"name"`
	Accuracy float64 `json:"accuracy"`
	// NaN says why the victim's logits were NaN, as the reference's are on
	// such a graph (Evaluation.NaN); "" when they were finite.
	NaN string `json:"nan_logits,omitempty"`
}

// BudgetResult is the outcome for one ε.
type BudgetResult struct {
	Epsilon  float64 `json:"epsilon"`
	Budget   int     `json:"budget"`
	NumFlips int     `json:"flips"`
	Added    int     `json:"added"`
	Removed  int     `json:"removed"`
	Seconds  float64 `json:"seconds"`
	// AttackedAccuracy is the attacked model's (surrogate's, or the
	// adaptive victim's) test accuracy on the perturbed graph.
	AttackedAccuracy float64        `json:"attacked_model_accuracy"`
	Victims          []VictimResult `json:"victims"`
	Flips            []attack.Flip  `json:"-"`
	Adj              *tensor.CSR    `json:"-"`
}

// Result is what Run returns.
type Result struct {
	// CleanAdj is the clean adjacency the budgets perturb.
	CleanAdj         *tensor.CSR    `json:"-"`
	Dataset          string         `json:"dataset"`
	Attack           string         `json:"attack"`
	Mode             string         `json:"mode"` // "transfer", "adaptive" or "model-free" (DICE)
	Loss             string         `json:"loss,omitempty"`
	Seed             uint64         `json:"seed"`
	Edges            int            `json:"edges"`
	AttackedModel    string         `json:"attacked_model"` // "none" (model-free), "own surrogate" (poisoning)
	AttackedClean    float64        `json:"attacked_model_clean_accuracy"`
	SurrogateSeconds float64        `json:"surrogate_train_seconds,omitempty"`
	Clean            []VictimResult `json:"clean"`
	Budgets          []BudgetResult `json:"budgets"`
}

// Run computes the perturbations of cfg.Attack for every ε and evaluates
// the victims on them (evasion: victims keep their weights, their
// preprocessing is recomputed on the perturbed graph; poisoning attacks,
// Spec.Poisoning: every victim is trained from scratch on each perturbed
// graph by Victim.Train).
func Run(ctx context.Context, cfg Config, p *data.Problem) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	spec, err := lookup(cfg.Registry, cfg.Attack)
	if err != nil {
		return nil, err
	}
	if err := checkEpsilons(spec, cfg.Epsilons); err != nil {
		return nil, err
	}
	if len(cfg.Prev) > 0 {
		if !spec.Incremental {
			return nil, fmt.Errorf("attack %s is not incremental: it cannot continue from earlier flips", spec.Name)
		}
		if len(cfg.Epsilons) > 0 && len(cfg.Prev) > attack.Budget(cfg.Epsilons[0], p.Adj.Nnz()/2) {
			return nil, fmt.Errorf("attack %s: %d earlier flips exceed the first budget", spec.Name, len(cfg.Prev))
		}
		if err := attack.CheckFlips(cfg.Prev, p.Adj.Rows, -1); err != nil {
			return nil, fmt.Errorf("earlier flips: %w", err)
		}
	}
	progress := stageProgress(cfg.Progress)
	a, err := spec.New(cfg.Options)
	if err != nil {
		return nil, err
	}
	lossName, loss, err := specLoss(spec, cfg.Loss)
	if err != nil {
		return nil, err
	}
	res := &Result{CleanAdj: p.Adj, Dataset: p.Name, Attack: spec.Name, Mode: "transfer", Loss: lossName, Seed: cfg.Seed,
		Edges: p.Adj.Nnz() / 2}
	env := &attack.Env{Problem: p, Targets: p.Test, Loss: loss, Seed: cfg.Seed, Flips: cfg.Flips}
	if err := checkPoisoning(spec, cfg.Victims); err != nil {
		return nil, err
	}
	if err := attackedModel(ctx, cfg, spec, p, res, env, progress); err != nil {
		return nil, err
	}
	for _, v := range cfg.Victims {
		ev, err := Evaluate(v.Model, p, p.Adj)
		if err != nil {
			return nil, fmt.Errorf("victim %s: %w", v.Name, err)
		}
		res.Clean = append(res.Clean, VictimResult{Name: v.Name, Accuracy: ev.Accuracy, NaN: ev.NaN})
	}
	prev := cfg.Prev
	for _, eps := range cfg.Epsilons {
		from := prev
		if !spec.Incremental {
			from = nil
		}
		env.Progress = progress("eps=" + strconv.FormatFloat(eps, 'g', -1, 64))
		br, err := runBudget(ctx, cfg, spec, a, env, from, eps, res.Edges)
		if err != nil {
			return nil, err
		}
		prev = br.Flips
		res.Budgets = append(res.Budgets, br)
		if cfg.OnBudget != nil {
			if err := cfg.OnBudget(res, br); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// checkEpsilons checks that every ε is a fraction, increasing for an
// incremental attack: a programmer's check, as the values come validated
// (task.AttackParams.Validate gives users the message).
func checkEpsilons(spec attack.Spec, eps []float64) error {
	for _, e := range eps {
		if !(e >= 0 && e <= 1) {
			return fmt.Errorf("attack: epsilon %v outside [0, 1]", e)
		}
	}
	for i := 1; i < len(eps); i++ {
		if spec.Incremental && eps[i] < eps[i-1] {
			return fmt.Errorf("attack %s is incremental: epsilons must increase, got %v", spec.Name, eps)
		}
	}
	return nil
}

// attackedModel sets the mode and the attacked model of res and, for a
// gradient attack, env's engine (of the first victim when adaptive, else of
// the transfer surrogate, trained here if cfg has none) and the attacked
// model's clean accuracy.
func attackedModel(ctx context.Context, cfg Config, spec attack.Spec, p *data.Problem, res *Result, env *attack.Env,
	progress func(string) func(int, int)) error {
	switch {
	case spec.Poisoning:
		// The attack differentiates its own linear surrogates; there is
		// no attacked model accuracy to report.
		res.Mode, res.AttackedModel = "poisoning", "own surrogate"
		return nil
	case !spec.Gradient:
		res.Mode, res.AttackedModel = "model-free", "none"
		return nil
	}
	var attacked model.Model
	if cfg.Adaptive {
		if len(cfg.Victims) == 0 {
			return fmt.Errorf("attack: adaptive mode needs a victim")
		}
		res.Mode, attacked = "adaptive", cfg.Victims[0].Model
		res.AttackedModel = cfg.Victims[0].Name
	} else {
		attacked = cfg.Surrogate
		if attacked == nil {
			start := time.Now()
			var err error
			if attacked, err = TrainSurrogate(ctx, p, cfg.Seed, progress("surrogate")); err != nil {
				return err
			}
			res.SurrogateSeconds = time.Since(start).Seconds()
		}
		res.AttackedModel = "surrogate " + attacked.Name()
	}
	var err error
	if env.Engine, err = engine.New(attacked, p, spec.DenseGradient); err != nil {
		return err
	}
	if eps := cfg.Options.EnginePPREps; eps != 0 {
		pe, ok := env.Engine.(*engine.PushPPR)
		if !ok {
			return fmt.Errorf("engine_ppr_eps %v: the attacked model %s has no push PPR to coarsen (it applies to GDC models with a push eps, --ppr-eps > 0, and to PPRGo models)", eps, attacked.Name())
		}
		if err := pe.SetEps(eps); err != nil {
			return err
		}
	}
	ev, err := env.Engine.Evaluate(p.Adj, env.Loss, p.Test, p.Labels, false)
	if err != nil {
		return err
	}
	res.AttackedClean = ev.Accuracy
	return nil
}

// runBudget perturbs the graph for one ε (budget round(ε·edges), extending
// prev for incremental attacks) and evaluates the attacked model and every
// victim on it.
func runBudget(ctx context.Context, cfg Config, spec attack.Spec, a attack.Attack, env *attack.Env, prev []attack.Flip,
	eps float64, edges int) (BudgetResult, error) {
	p := env.Problem
	budget := attack.Budget(eps, edges)
	start := time.Now()
	flips, err := a.Perturb(ctx, env, prev, budget)
	if err != nil {
		return BudgetResult{}, fmt.Errorf("%s ε=%v: %w", spec.Name, eps, err)
	}
	secs := time.Since(start).Seconds()
	if err := attack.CheckFlips(flips, p.Adj.Rows, budget); err != nil {
		return BudgetResult{}, fmt.Errorf("%s ε=%v: %w", spec.Name, eps, err)
	}
	adj, err := attack.ApplyFlips(p.Adj, flips)
	if err != nil {
		return BudgetResult{}, err
	}
	br := BudgetResult{Epsilon: eps, Budget: budget, NumFlips: len(flips), Seconds: secs, Flips: flips, Adj: adj}
	br.Added, br.Removed = attack.CountFlips(p.Adj, flips)
	if env.Engine != nil {
		ev, err := env.Engine.Evaluate(adj, env.Loss, p.Test, p.Labels, false)
		if err != nil {
			return BudgetResult{}, err
		}
		br.AttackedAccuracy = ev.Accuracy
	}
	for _, v := range cfg.Victims {
		ev, err := victimAccuracy(ctx, spec, v, p, adj)
		if err != nil {
			return BudgetResult{}, fmt.Errorf("victim %s at ε=%v: %w", v.Name, eps, err)
		}
		br.Victims = append(br.Victims, VictimResult{Name: v.Name, Accuracy: ev.Accuracy, NaN: ev.NaN})
	}
	return br, nil
}

// stageProgress adapts a per-stage progress callback (nil: none) to the
// per-step callbacks of the stages.
func stageProgress(f func(stage string, done, total int)) func(string) func(int, int) {
	return func(stage string) func(int, int) {
		if f == nil {
			return nil
		}
		return func(d, t int) { f(stage, d, t) }
	}
}

// specLoss resolves the loss of an attack: name, else the spec's default;
// "" (no default) means the attack uses none.
func specLoss(spec attack.Spec, name string) (string, attack.Loss, error) {
	if name == "" {
		name = spec.DefaultLoss
	}
	if name == "" {
		return "", nil, nil
	}
	loss, err := attack.LossByName(name)
	return name, loss, err
}

// registry returns r, or attack.Default() for a nil r (a config without a
// registry).
func registry(r *attack.Registry) *attack.Registry {
	if r == nil {
		return attack.Default()
	}
	return r
}

// lookup finds an attack in r (nil: the default registry) with an error
// naming the unknown attack and the known ones.
func lookup(r *attack.Registry, name string) (attack.Spec, error) {
	r = registry(r)
	s, ok := r.Lookup(name)
	if !ok {
		return attack.Spec{}, fmt.Errorf("unknown attack %q (known: %v)", name, r.Names())
	}
	return s, nil
}
