package protocol

import (
	"context"
	"fmt"
	"strconv"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
)

// TargetedBudget is the per-target budget rule: round(ε·deg(u)) for each
// of Epsilons, or deg(u) + Plus if Epsilons is empty.
type TargetedBudget struct {
	Epsilons []float64
	Plus     int
}

// String names the rule ("degree+2", or "round(eps*degree)" for Epsilons).
func (b TargetedBudget) String() string {
	if len(b.Epsilons) > 0 {
		return "round(eps*degree)"
	}
	return "degree+" + strconv.Itoa(b.Plus)
}

// TargetedConfig configures RunTargeted.
type TargetedConfig struct {
	Attack string // registry name of a targeted attack (nettack, local_prbcd)
	// Targets are the attacked nodes; nil selects them with the Nettack
	// protocol (nettack.SelectTargets: 10 most, 10 least confident, 20
	// random correctly classified test nodes of the first victim, minimum
	// degree int(1/min ε) for fractional budgets, else 1).
	Targets []int
	Budget  TargetedBudget
	Seed    uint64
	Loss    string // "" = the attack's default
	Options attack.Options
	// Direct makes a gradient attack differentiate each victim itself
	// (one attack per victim); otherwise the flips are computed once on the
	// transfer surrogate (Surrogate, or a GCN trained with TrainSurrogate)
	// and given to every victim. Attacks without gradients (nettack) bring
	// their own surrogate and ignore it.
	Direct    bool
	Surrogate model.Model
	Victims   []Victim
	Registry  *attack.Registry // nil: attack.Default()
	// Workers bounds the targets attacked in parallel for engines that
	// allow it (0: GOMAXPROCS).
	Workers  int
	Progress func(stage string, done, total int)
}

// TargetVictim is one victim's outcome at one target and budget.
type TargetVictim struct {
	Name    string   `json:"name"`
	Flips   [][2]int `json:"flips"`
	Added   int      `json:"added"`
	Removed int      `json:"removed"`
	// FeatureFlips are (node, feature) pairs whose binary feature is
	// toggled (nettack --perturb features|both).
	FeatureFlips [][2]int `json:"feature_flips,omitempty"`
	// Margins are P(y) − max_{c≠y} P(c) of the victim at the target.
	CleanMargin  float64 `json:"clean_margin"`
	Margin       float64 `json:"margin"`
	CleanCorrect bool    `json:"clean_correct"`
	Correct      bool    `json:"correct"`
	// RelaxedMargin is the margin after the flips under the local engine's
	// update of the target's PPR row (PPRGo victims: only the target's row
	// of the random walk changes), next to Margin, for which the target's
	// PPR is pushed on the perturbed graph.
	RelaxedMargin *float64 `json:"relaxed_margin,omitempty"`
}

// TargetRow is the outcome for one target and budget.
type TargetRow struct {
	Target  int            `json:"target"`
	Group   string         `json:"group"` // top, bottom, random (auto) or given
	Degree  int            `json:"degree"`
	Epsilon float64        `json:"epsilon,omitempty"`
	Budget  int            `json:"budget"`
	Victims []TargetVictim `json:"victims"`
}

// TargetSummary aggregates one victim's rows for one budget rule.
type TargetSummary struct {
	Victim  string  `json:"victim"`
	Epsilon float64 `json:"epsilon,omitempty"`
	Targets int     `json:"targets"`
	// CleanMargin and CleanAccuracy are the victim's values before the
	// attack on the same targets.
	CleanMargin   float64 `json:"clean_mean_margin"`
	CleanAccuracy float64 `json:"clean_accuracy"`
	MeanMargin    float64 `json:"mean_margin"`
	MarginSE      float64 `json:"margin_se"`
	// FailureRate is the fraction of targets still classified correctly.
	FailureRate float64 `json:"failure_rate"`
	// SecondsPerTarget is the time spent computing this victim's flips for
	// every ε (the shared transfer flips count for every victim) divided by
	// the number of attacked (target, budget) jobs: the mean time per job,
	// the same in every ε's summary.
	SecondsPerTarget float64 `json:"attack_seconds_per_target"`
	// Mean numbers of edge and feature flips per target.
	MeanEdgeFlips    float64 `json:"mean_edge_flips"`
	MeanFeatureFlips float64 `json:"mean_feature_flips,omitempty"`
}

// TargetedResult is what RunTargeted returns.
type TargetedResult struct {
	Dataset       string `json:"dataset"`
	Attack        string `json:"attack"`
	Mode          string `json:"mode"` // "transfer" or "direct"
	AttackedModel string `json:"attacked_model"`
	Loss          string `json:"loss,omitempty"`
	// Perturb is what the attack flipped (structure, features, both) for
	// attacks that can flip features.
	Perturb   string `json:"perturb,omitempty"`
	Seed      uint64 `json:"seed"`
	Budget    string `json:"budget"`
	Selection string `json:"selection"` // "auto" or "given"
	Targets   []int  `json:"targets"`
	// Skipped counts the (target, ε) pairs whose budget round(ε·deg) is 0
	// (not attacked, not in Rows, as in the reference).
	Skipped       int             `json:"skipped_zero_budget,omitempty"`
	Rows          []TargetRow     `json:"rows"`
	Summary       []TargetSummary `json:"summary"`
	AttackSeconds float64         `json:"attack_seconds"`
}

// RunTargeted attacks every target on its own (evasion: victims keep their
// weights, their preprocessing is recomputed on each perturbed graph) and
// reports each victim's margin at the target before and after.
func RunTargeted(ctx context.Context, cfg TargetedConfig, p *data.Problem) (*TargetedResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	t, err := newTargetedRun(cfg, p)
	if err != nil {
		return nil, err
	}
	clean, err := t.cleanMargins()
	if err != nil {
		return nil, err
	}
	res := t.newResult()
	groups, err := t.chooseTargets(res, clean[0])
	if err != nil {
		return nil, err
	}
	plan := planTargetJobs(res, groups, graph.Degrees(p.Adj), cfg.Budget)
	if len(plan.jobs) == 0 {
		return nil, fmt.Errorf("targeted attack: every budget is zero")
	}
	fl, err := t.perturb(ctx, res, plan.jobs)
	if err != nil {
		return nil, err
	}
	if err := t.evaluate(res, plan, fl, clean); err != nil {
		return nil, err
	}
	res.Summary = summarizeTargets(res.Rows, cfg.Victims, cfg.Budget.Epsilons, fl.secs, len(plan.jobs))
	return res, nil
}

// CheckTargets verifies a list of target nodes: non-empty, inside n nodes,
// no repeats.
func CheckTargets(t []int, n int) error {
	if len(t) == 0 {
		return fmt.Errorf("targeted attack: empty target list")
	}
	return data.CheckIDs(t, n, "target")
}
