package task

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
)

// Targeted is a targeted attack on one model, as an experiment grid runs
// it: the setup of the original Nettack paper, which the 2020 paper
// follows. By default the model chooses its own 40 targets (10 most, 10
// least confident, 20 random correctly classified test nodes) and each
// target's budget is its degree + 2; TargetsFrom lets another model choose
// them instead ("the first victim chooses", as `rgnn attack` with several
// victims does).
type Targeted struct {
	Train
	AttackParams
	// Budget is the per-target budget: "degree+K", or "epsilon" for
	// round(ε·degree) with the (one) ε of Epsilons.
	Budget string `param:"budget" help:"per-target budget: \"degree+K\", or \"epsilon\" for round(ε·degree)"`
	// TargetsFrom names the model whose auto-selected targets are attacked
	// ("" or the run's own model: its own targets). That model is trained
	// with the same parameters and seed.
	TargetsFrom string `param:"targets_from" help:"model that chooses the targets (10 most, 10 least confident, 20 random correctly classified test nodes); empty: the attacked model itself"`
	// Perturb is what Nettack may flip: structure, features or both.
	Perturb string `param:"perturb" help:"nettack: what each greedy step may flip: structure, features (needs binary_attr) or both"`
	// DegreeTest of Nettack: paper, repo or off.
	DegreeTest string `param:"degree_test" help:"nettack degree-distribution likelihood-ratio test: paper, repo or off"`
	// Influencers > 0 makes Nettack an influencer (indirect) attack.
	Influencers int `param:"influencers" key:"omitdefault" help:"nettack: 0 attacks the target's own edges (direct, the default); K > 0 the influencer attack through K of the target's neighbours"`
	// Adaptive makes local PR-BCD differentiate the model itself.
	Adaptive bool `param:"adaptive" help:"local_prbcd: attack the model itself instead of a surrogate GCN"`
}

// Defaults returns the spec with every parameter at its default: Nettack,
// budget degree + 2, the model's own targets.
func (Targeted) Defaults() Targeted {
	a := Attack{}.Defaults()
	a.Attack = "nettack"
	return Targeted{Train: a.Train, AttackParams: a.AttackParams, Budget: a.Budget, Perturb: a.Perturb,
		DegreeTest: a.DegreeTest}
}

// attack is the Attack spec of s with auto-selected targets.
func (s Targeted) attack() Attack {
	a := Attack{}.Defaults()
	a.Train, a.AttackParams, a.Budget, a.Perturb, a.DegreeTest, a.Adaptive = s.Train, s.AttackParams, s.Budget,
		s.Perturb, s.DegreeTest, s.Adaptive
	a.Influencers = s.Influencers
	a.Targets = "auto"
	return a
}

// Validate checks every parameter.
func (s Targeted) Validate() error {
	if !s.Targeted() {
		return bad("attack", s.Attack, "not a targeted attack (targeted: %s)", strings.Join(attack.Default().TargetedNames(), ", "))
	}
	if s.Budget == "epsilon" {
		if err := s.OneBudget(); err != nil {
			return err
		}
	}
	if s.TargetsFrom != "" {
		m := s.Model
		m.Model = s.TargetsFrom
		if err := m.Validate(); err != nil {
			return bad("targets_from", s.TargetsFrom, "%v", err)
		}
	}
	return s.attack().Validate()
}

// Chooser is the training spec of the model that chooses the targets: s's
// own, or TargetsFrom's with the same parameters.
func (s Targeted) Chooser() Train {
	t := s.Train
	if s.TargetsFrom != "" {
		t.Model.Model = s.TargetsFrom
	}
	return t
}

// OwnTargets reports whether the attacked model chooses its targets.
func (s Targeted) OwnTargets() bool { return s.TargetsFrom == "" || s.TargetsFrom == s.Model.Model }

// TargetedRunResult is the outcome of Targeted.Run for the attacked model.
type TargetedRunResult struct {
	*TargetedResult
	// Summary is the attacked model's summary (one budget rule).
	Summary TargetSummary
}

// Run attacks victim (the trained model of s) at the targets chosen by
// chooser (the trained model of s.Chooser(); nil or victim itself when
// OwnTargets).
func (s Targeted) Run(ctx context.Context, p *data.Problem, victim, chooser *Trained, h Hooks) (*TargetedRunResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	victims := []*Trained{victim}
	if !s.OwnTargets() {
		if chooser == nil {
			return nil, fmt.Errorf("targets_from %s: no trained model given", s.TargetsFrom)
		}
		victims = []*Trained{chooser, victim}
	}
	res, err := s.attack().Run(ctx, p, victims, nil, h, nil)
	if err != nil {
		return nil, err
	}
	tr := res.Targeted
	i := slices.IndexFunc(tr.Summary, func(x TargetSummary) bool { return x.Victim == victim.Name() })
	if i < 0 {
		return nil, fmt.Errorf("targeted attack %s: no summary for %s", s.Attack, victim.Name())
	}
	return &TargetedRunResult{TargetedResult: tr, Summary: tr.Summary[i]}, nil
}
