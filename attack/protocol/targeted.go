package protocol

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/stats"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
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
	reg := registry(cfg.Registry)
	spec, err := lookup(reg, cfg.Attack)
	if err != nil {
		return nil, err
	}
	if !spec.Targeted || spec.NewTargeted == nil {
		return nil, fmt.Errorf("attack %s is not targeted (targeted: %v)", spec.Name, reg.TargetedNames())
	}
	if len(cfg.Victims) == 0 {
		return nil, fmt.Errorf("targeted attack: no victim to evaluate")
	}
	for _, e := range cfg.Budget.Epsilons {
		if !(e > 0 && e <= 100) {
			return nil, fmt.Errorf("targeted attack: budget fraction %v must be in (0, 100]", e)
		}
	}
	if cfg.Budget.Plus < 0 {
		return nil, fmt.Errorf("targeted attack: budget degree%+d is negative", cfg.Budget.Plus)
	}
	progress := stageProgress(cfg.Progress)
	a, err := spec.NewTargeted(cfg.Options)
	if err != nil {
		return nil, err
	}
	lossName, loss, err := specLoss(spec, cfg.Loss)
	if err != nil {
		return nil, err
	}
	perturb := cfg.Options.Perturb
	fa, withFeatures := a.(attack.FeatureTargetedAttack)
	switch {
	case perturb != "" && !slices.Contains(attack.Perturbs, perturb):
		return nil, fmt.Errorf("targeted attack: unknown perturbation %q (%v)", perturb, attack.Perturbs)
	case perturb != "" && perturb != "structure" && !withFeatures:
		return nil, fmt.Errorf("attack %s flips edges only (perturb %q)", spec.Name, perturb)
	case withFeatures && perturb == "":
		perturb = "structure"
	}
	n := p.Adj.Rows
	deg := graph.Degrees(p.Adj)
	// clean margins of every victim
	clean := make([][]float64, len(cfg.Victims))
	for i, v := range cfg.Victims {
		if clean[i], err = victimMargins(v.Model, p, p.Adj); err != nil {
			return nil, fmt.Errorf("victim %s: %w", v.Name, err)
		}
	}
	res := &TargetedResult{Dataset: p.Name, Attack: spec.Name, Mode: "transfer", Loss: lossName, Seed: cfg.Seed,
		Budget: cfg.Budget.String(), Selection: "given"}
	if withFeatures {
		res.Perturb = perturb
	}
	groups := make([]string, 0)
	if cfg.Targets == nil {
		minDeg := 1
		if len(cfg.Budget.Epsilons) > 0 {
			minDeg = nettack.MinDegreeFor(cfg.Budget.Epsilons)
		}
		t, err := nettack.SelectTargets(p.Adj, clean[0], p.Test, nettack.SelectOptions{MinDegree: minDeg, Seed: cfg.Seed})
		if err != nil {
			return nil, err
		}
		res.Targets, res.Selection = t, "auto"
		for i := range t {
			switch {
			case i < 10:
				groups = append(groups, "top")
			case i < 20:
				groups = append(groups, "bottom")
			default:
				groups = append(groups, "random")
			}
		}
	} else {
		if err := CheckTargets(cfg.Targets, n); err != nil {
			return nil, err
		}
		res.Targets = slices.Clone(cfg.Targets)
		for range res.Targets {
			groups = append(groups, "given")
		}
	}
	// rows: every target × ε (zero budgets are skipped, as the reference);
	// jobs: every distinct (target, budget), attacked once — two ε with the
	// same budget at a target share the attack (it depends on the target,
	// the budget and the seed only), rowJob[r] is row r's job
	var jobs []attack.TargetBudget
	var rowJob []int
	jobOf := map[attack.TargetBudget]int{}
	addRow := func(row TargetRow) {
		tb := attack.TargetBudget{Node: row.Target, Budget: row.Budget}
		j, ok := jobOf[tb]
		if !ok {
			j = len(jobs)
			jobOf[tb] = j
			jobs = append(jobs, tb)
		}
		rowJob = append(rowJob, j)
		res.Rows = append(res.Rows, row)
	}
	for i, u := range res.Targets {
		if len(cfg.Budget.Epsilons) == 0 {
			addRow(TargetRow{Target: u, Group: groups[i], Degree: deg[u], Budget: deg[u] + cfg.Budget.Plus})
			continue
		}
		for _, e := range cfg.Budget.Epsilons {
			b := nettack.BudgetFraction(deg[u], e)
			if b == 0 {
				res.Skipped++
				continue
			}
			addRow(TargetRow{Target: u, Group: groups[i], Degree: deg[u], Epsilon: e, Budget: b})
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("targeted attack: every budget is zero")
	}
	// flips: once (transfer) or per victim (direct)
	flips := make([][][]attack.Flip, len(cfg.Victims))
	fflips := make([][][]attack.FeatureFlip, len(cfg.Victims))
	secs := make([]float64, len(cfg.Victims))
	env := &attack.TargetEnv{Problem: p, Loss: loss, Seed: cfg.Seed}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	run := func(stage string) ([][]attack.Flip, [][]attack.FeatureFlip, float64, error) {
		env.Progress = progress(stage)
		start := time.Now()
		var f [][]attack.Flip
		var ff [][]attack.FeatureFlip
		var err error
		if withFeatures {
			f, ff, err = fa.PerturbTargetsFeatures(ctx, env, jobs)
		} else {
			f, err = a.PerturbTargets(ctx, env, jobs)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), spec.Name+":") { // nettack's errors name it already
				err = fmt.Errorf("%s: %w", spec.Name, err)
			}
			return nil, nil, 0, err
		}
		if ff == nil {
			ff = make([][]attack.FeatureFlip, len(f))
		}
		if len(f) != len(jobs) || len(ff) != len(jobs) {
			return nil, nil, 0, fmt.Errorf("%s: %d results for %d jobs", spec.Name, len(f), len(jobs))
		}
		for i, fl := range f {
			if err := attack.CheckFeatureFlips(ff[i], n, p.Features.Cols, jobs[i].Budget); err != nil {
				return nil, nil, 0, fmt.Errorf("%s target %d: %w", spec.Name, jobs[i].Node, err)
			}
			if err := attack.CheckFlips(fl, n, jobs[i].Budget-len(ff[i])); err != nil {
				return nil, nil, 0, fmt.Errorf("%s target %d: %w", spec.Name, jobs[i].Node, err)
			}
		}
		return f, ff, time.Since(start).Seconds(), nil
	}
	switch {
	case spec.Gradient && cfg.Direct:
		res.Mode, res.AttackedModel = "direct", "each victim"
		// every victim's engine first: a victim without gradients fails
		// before any work is done
		first := make([]attack.Engine, len(cfg.Victims))
		for i, v := range cfg.Victims {
			if first[i], err = engine.New(v.Model, p, false); err != nil {
				return nil, fmt.Errorf("%s direct on victim %s: %w", spec.Name, v.Name, err)
			}
		}
		for i, v := range cfg.Victims {
			m := v.Model
			env.NewEngine, env.Workers = engineFactory(first[i], func() (attack.Engine, error) { return engine.New(m, p, false) }, workers)
			if flips[i], fflips[i], secs[i], err = run("attack " + v.Name); err != nil {
				return nil, fmt.Errorf("victim %s: %w", v.Name, err)
			}
		}
	default:
		if spec.Gradient {
			sur := cfg.Surrogate
			if sur == nil {
				if sur, err = TrainSurrogate(ctx, p, cfg.Seed, progress("surrogate")); err != nil {
					return nil, err
				}
			}
			res.AttackedModel = "surrogate " + sur.Name()
			e0, err := engine.New(sur, p, false)
			if err != nil {
				return nil, err
			}
			env.NewEngine, env.Workers = engineFactory(e0, func() (attack.Engine, error) { return engine.New(sur, p, false) }, workers)
		} else {
			res.AttackedModel = "own surrogate"
			env.Workers = workers
		}
		f, ff, s, err := run("attack")
		if err != nil {
			return nil, err
		}
		for i := range flips {
			flips[i], fflips[i], secs[i] = f, ff, s
		}
	}
	for _, s := range secs {
		res.AttackSeconds += s
	}
	if res.Mode == "transfer" {
		res.AttackSeconds = secs[0]
	}
	// evaluation, once per job: a row whose job an earlier row had gets
	// that row's victims (the same flips give the same margins)
	prog := progress("evaluate")
	evaluated := make([]int, len(jobs)) // job → 1 + the row that evaluated it
	for r := range res.Rows {
		row := &res.Rows[r]
		u := row.Target
		j := rowJob[r]
		if r0 := evaluated[j] - 1; r0 >= 0 {
			row.Victims = slices.Clone(res.Rows[r0].Victims)
			if prog != nil {
				prog(r+1, len(res.Rows))
			}
			continue
		}
		evaluated[j] = r + 1
		for i, v := range cfg.Victims {
			fl, ff := flips[i][j], fflips[i][j]
			adj, err := attack.ApplyFlips(p.Adj, fl)
			if err != nil {
				return nil, err
			}
			x, err := attack.ApplyFeatureFlips(p.Features, ff)
			if err != nil {
				return nil, err
			}
			m, err := victimMarginsX(v.Model, p, adj, x)
			if err != nil {
				return nil, fmt.Errorf("victim %s at target %d: %w", v.Name, u, err)
			}
			tv := TargetVictim{Name: v.Name, Flips: make([][2]int, len(fl)), CleanMargin: clean[i][u], Margin: m[u],
				CleanCorrect: clean[i][u] > 0, Correct: m[u] > 0}
			for k, f := range fl {
				tv.Flips[k] = [2]int{int(f.U), int(f.V)}
			}
			tv.Added, tv.Removed = attack.CountFlips(p.Adj, fl)
			for _, f := range ff {
				tv.FeatureFlips = append(tv.FeatureFlips, [2]int{int(f.Node), int(f.Feature)})
			}
			row.Victims = append(row.Victims, tv)
		}
		if prog != nil {
			prog(r+1, len(res.Rows))
		}
	}
	res.Summary = summarizeTargets(res.Rows, cfg.Victims, cfg.Budget.Epsilons, secs, len(jobs))
	return res, nil
}

// engineFactory returns the engine factory for a targeted attack: the
// first call returns e0, later ones fresh engines; several workers only
// for the analytic GCN engine (independent copies of the weights). The
// tape engine shares the model's parameter gradients, so it runs alone.
func engineFactory(e0 attack.Engine, fresh func() (attack.Engine, error), workers int) (func() (attack.Engine, error), int) {
	if _, ok := e0.(*engine.GCN); !ok {
		workers = 1
	}
	used := false
	return func() (attack.Engine, error) {
		if !used {
			used = true
			return e0, nil
		}
		return fresh()
	}, workers
}

// CheckTargets verifies a list of target nodes: non-empty, inside n nodes,
// no repeats.
func CheckTargets(t []int, n int) error {
	if len(t) == 0 {
		return fmt.Errorf("targeted attack: empty target list")
	}
	seen := make(map[int]int, len(t))
	for i, u := range t {
		if u < 0 || u >= n {
			return fmt.Errorf("target %d (entry %d) outside [0, %d)", u, i+1, n)
		}
		if j, dup := seen[u]; dup {
			return fmt.Errorf("target %d repeated (entries %d and %d)", u, j+1, i+1)
		}
		seen[u] = i
	}
	return nil
}

// victimMargins is the probability margin of m at every node on adj.
func victimMargins(m model.Model, p *data.Problem, adj *tensor.CSR) ([]float64, error) {
	return victimMarginsX(m, p, adj, p.Features)
}

// victimMarginsX is victimMargins with features x (p.Features or a
// perturbed copy): the model's preprocessing (e.g. Jaccard) sees x too.
func victimMarginsX(m model.Model, p *data.Problem, adj, x *tensor.CSR) ([]float64, error) {
	g, err := m.Preprocess(adj, x)
	if err != nil {
		return nil, err
	}
	xs := p.X
	if x != p.Features {
		xs = autograd.NewSparse(x)
	}
	logits := train.Predict(m, g, xs)
	if err := logits.CheckFinite(m.Name() + " logits"); err != nil {
		return nil, err
	}
	return nettack.ProbMargins(logits, p.Labels), nil
}

func summarizeTargets(rows []TargetRow, victims []Victim, eps []float64, secs []float64, jobs int) []TargetSummary {
	keys := []float64{0}
	if len(eps) > 0 {
		keys = eps
	}
	var out []TargetSummary
	for i, v := range victims {
		for _, e := range keys {
			var ms, cm []float64
			fail, cleanOK, ne, nf := 0, 0, 0, 0
			for _, r := range rows {
				if r.Epsilon != e {
					continue
				}
				tv := r.Victims[i]
				ms = append(ms, tv.Margin)
				ne += len(tv.Flips)
				nf += len(tv.FeatureFlips)
				cm = append(cm, tv.CleanMargin)
				if tv.Correct {
					fail++
				}
				if tv.CleanCorrect {
					cleanOK++
				}
			}
			if len(ms) == 0 {
				continue
			}
			mean, se := stats.MeanSE(ms)
			cmean, _ := stats.MeanSE(cm)
			k := float64(len(ms))
			out = append(out, TargetSummary{Victim: v.Name, Epsilon: e, Targets: len(ms), CleanMargin: cmean,
				CleanAccuracy: float64(cleanOK) / k, MeanMargin: mean, MarginSE: se, FailureRate: float64(fail) / k,
				SecondsPerTarget: secs[i] / float64(jobs), MeanEdgeFlips: float64(ne) / k, MeanFeatureFlips: float64(nf) / k})
		}
	}
	return out
}

// TargetFileName is the name of one target's perturbed graph.
func TargetFileName(dataset, attack string, seed uint64, target, budget int, victim string) string {
	s := fmt.Sprintf("%s_%s_s%d_node%d_budget%d", dataset, attack, seed, target, budget)
	if victim != "" {
		s += "_" + victim
	}
	return s + ".npz"
}

// Save writes every target's perturbed graph into dir in the reference
// attack format (per victim in direct mode) and returns the paths, each
// once (rows of two ε with the same budget share one file). A target with
// feature flips also gets them as feature_flips (k×2 int64: node, feature;
// toggles of the binary features the attack saw).
func (res *TargetedResult) Save(dir string, p *data.Problem) ([]string, error) {
	var paths []string
	saved := map[string]bool{}
	for _, r := range res.Rows {
		for i, v := range r.Victims {
			victim := ""
			if res.Mode == "direct" {
				victim = v.Name
			} else if i > 0 {
				break // transfer: the same flips for every victim
			}
			path := filepath.Join(dir, TargetFileName(res.Dataset, res.Attack, res.Seed, r.Target, r.Budget, victim))
			if saved[path] {
				continue
			}
			saved[path] = true
			fl := make([]attack.Flip, len(v.Flips))
			for k, f := range v.Flips {
				fl[k] = attack.Flip{U: int32(f[0]), V: int32(f[1])}
			}
			adj, err := attack.ApplyFlips(p.Adj, fl)
			if err != nil {
				return paths, err
			}
			var extra []npz.Entry
			if ff := v.FeatureFlips; len(ff) > 0 {
				// the target's feature flips, k×2 int64 (node, feature)
				fl := make([]int64, 0, 2*len(ff))
				for _, f := range ff {
					fl = append(fl, int64(f[0]), int64(f[1]))
				}
				extra = append(extra, npz.I64("feature_flips", []int{len(ff), 2}, fl))
			}
			if err := data.SavePerturbedAdj(path, adj, extra...); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}
