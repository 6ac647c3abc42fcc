package protocol

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// targetedRun is one RunTargeted call with its configuration resolved: the
// attack, its loss and what it may flip.
type targetedRun struct {
	cfg      TargetedConfig
	p        *data.Problem
	spec     attack.Spec
	a        attack.TargetedAttack
	fa       attack.FeatureTargetedAttack // non-nil: the attack may flip features
	lossName string
	loss     attack.Loss
	flipKind string // Options.Perturb resolved; "" for attacks that flip edges only
	progress func(stage string) func(done, total int)
	// local[i] is victim i's local engine (PPRGo victims: the attack's own
	// in direct mode, else made for the evaluation), nil for the others
	local []attack.LocalEngine
}

// newTargetedRun checks cfg and resolves the attack, its loss and the
// perturbation kind.
func newTargetedRun(cfg TargetedConfig, p *data.Problem) (*targetedRun, error) {
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
	if err := checkTargetedBudget(cfg.Budget); err != nil {
		return nil, err
	}
	t := &targetedRun{cfg: cfg, p: p, spec: spec, progress: stageProgress(cfg.Progress),
		local: make([]attack.LocalEngine, len(cfg.Victims))}
	if t.a, err = spec.NewTargeted(cfg.Options); err != nil {
		return nil, err
	}
	if t.lossName, t.loss, err = specLoss(spec, cfg.Loss); err != nil {
		return nil, err
	}
	fa, withFeatures := t.a.(attack.FeatureTargetedAttack)
	perturb := cfg.Options.Perturb
	switch {
	case perturb != "" && !slices.Contains(attack.Perturbs, perturb):
		return nil, fmt.Errorf("targeted attack: unknown perturbation %q (%v)", perturb, attack.Perturbs)
	case perturb != "" && perturb != "structure" && !withFeatures:
		return nil, fmt.Errorf("attack %s flips edges only (perturb %q)", spec.Name, perturb)
	case withFeatures && perturb == "":
		perturb = "structure"
	}
	if withFeatures {
		t.fa, t.flipKind = fa, perturb
	}
	return t, nil
}

// checkTargetedBudget checks the budget rule's fractions and offset: a
// programmer's check, as the values come validated (task.AttackParams and
// task.Attack give users the message).
func checkTargetedBudget(b TargetedBudget) error {
	for _, e := range b.Epsilons {
		if !(e > 0 && e <= 100) {
			return fmt.Errorf("targeted attack: budget fraction %v must be in (0, 100]", e)
		}
	}
	if b.Plus < 0 {
		return fmt.Errorf("targeted attack: budget degree%+d is negative", b.Plus)
	}
	return nil
}

// cleanMargins is every victim's probability margin at every node of the
// clean graph.
func (t *targetedRun) cleanMargins() ([][]float64, error) {
	clean := make([][]float64, len(t.cfg.Victims))
	for i, v := range t.cfg.Victims {
		var err error
		if clean[i], err = victimMargins(v.Model, t.p, t.p.Adj); err != nil {
			return nil, fmt.Errorf("victim %s: %w", v.Name, err)
		}
	}
	return clean, nil
}

// newResult is the result before targets, rows and flips.
func (t *targetedRun) newResult() *TargetedResult {
	return &TargetedResult{Dataset: t.p.Name, Attack: t.spec.Name, Mode: "transfer", Loss: t.lossName, Seed: t.cfg.Seed,
		Budget: t.cfg.Budget.String(), Selection: "given", Perturb: t.flipKind}
}

// chooseTargets sets res.Targets: the configured ones, or those of the
// Nettack protocol on the first victim's clean margins; it returns each
// target's group (top, bottom, random, or given).
func (t *targetedRun) chooseTargets(res *TargetedResult, margins []float64) ([]string, error) {
	groups := make([]string, 0)
	if t.cfg.Targets != nil {
		if err := CheckTargets(t.cfg.Targets, t.p.Adj.Rows); err != nil {
			return nil, err
		}
		res.Targets = slices.Clone(t.cfg.Targets)
		for range res.Targets {
			groups = append(groups, "given")
		}
		return groups, nil
	}
	minDeg := 1
	if len(t.cfg.Budget.Epsilons) > 0 {
		minDeg = nettack.MinDegreeFor(t.cfg.Budget.Epsilons)
	}
	targets, err := nettack.SelectTargets(t.p.Adj, margins, t.p.Test, nettack.SelectOptions{MinDegree: minDeg, Seed: t.cfg.Seed})
	if err != nil {
		return nil, err
	}
	res.Targets, res.Selection = targets, "auto"
	for i := range targets {
		switch {
		case i < 10:
			groups = append(groups, "top")
		case i < 20:
			groups = append(groups, "bottom")
		default:
			groups = append(groups, "random")
		}
	}
	return groups, nil
}

// targetPlan maps result rows to attack jobs: rowJob[r] is row r's job in
// jobs.
type targetPlan struct {
	jobs   []attack.TargetBudget
	rowJob []int
}

// planTargetJobs adds the rows to res, every target × ε (zero budgets are
// skipped and counted, as the reference does), and plans the jobs: every
// distinct (target, budget), attacked once — two ε with the same budget at
// a target share the attack (it depends on the target, the budget and the
// seed only).
func planTargetJobs(res *TargetedResult, groups []string, deg []int, budget TargetedBudget) targetPlan {
	var plan targetPlan
	jobOf := map[attack.TargetBudget]int{}
	addRow := func(row TargetRow) {
		tb := attack.TargetBudget{Node: row.Target, Budget: row.Budget}
		j, ok := jobOf[tb]
		if !ok {
			j = len(plan.jobs)
			jobOf[tb] = j
			plan.jobs = append(plan.jobs, tb)
		}
		plan.rowJob = append(plan.rowJob, j)
		res.Rows = append(res.Rows, row)
	}
	for i, u := range res.Targets {
		if len(budget.Epsilons) == 0 {
			addRow(TargetRow{Target: u, Group: groups[i], Degree: deg[u], Budget: deg[u] + budget.Plus})
			continue
		}
		for _, e := range budget.Epsilons {
			b := nettack.BudgetFraction(deg[u], e)
			if b == 0 {
				res.Skipped++
				continue
			}
			addRow(TargetRow{Target: u, Group: groups[i], Degree: deg[u], Epsilon: e, Budget: b})
		}
	}
	return plan
}

// targetFlips are the flips of every job, per victim (the same slices for
// every victim in transfer mode), and each victim's attack time.
type targetFlips struct {
	edges    [][][]attack.Flip
	features [][][]attack.FeatureFlip
	secs     []float64
}

// perturb attacks every job: once on the transfer surrogate (or the
// attack's own surrogate) for all victims, or once per victim through its
// own engine (Direct gradient attacks); it sets res's mode, attacked model
// and attack time.
func (t *targetedRun) perturb(ctx context.Context, res *TargetedResult, jobs []attack.TargetBudget) (*targetFlips, error) {
	nv := len(t.cfg.Victims)
	fl := &targetFlips{edges: make([][][]attack.Flip, nv), features: make([][][]attack.FeatureFlip, nv), secs: make([]float64, nv)}
	env := &attack.TargetEnv{Problem: t.p, Loss: t.loss, Seed: t.cfg.Seed}
	workers := t.cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var err error
	if t.spec.Gradient && t.cfg.Direct {
		res.Mode, res.AttackedModel = "direct", "each victim"
		err = t.perturbDirect(ctx, env, jobs, workers, fl)
	} else {
		err = t.perturbTransfer(ctx, res, env, jobs, workers, fl)
	}
	if err != nil {
		return nil, err
	}
	for _, s := range fl.secs {
		res.AttackSeconds += s
	}
	if res.Mode == "transfer" {
		res.AttackSeconds = fl.secs[0]
	}
	return fl, nil
}

// perturbDirect attacks every victim through its own gradient engine. Every
// victim's engine is built first: a victim without gradients fails before
// any work is done.
func (t *targetedRun) perturbDirect(ctx context.Context, env *attack.TargetEnv, jobs []attack.TargetBudget, workers int,
	fl *targetFlips) error {
	first := make([]attack.Engine, len(t.cfg.Victims))
	for i, v := range t.cfg.Victims {
		var err error
		if first[i], err = engine.NewTargeted(v.Model, t.p); err != nil {
			return fmt.Errorf("%s direct on victim %s: %w", t.spec.Name, v.Name, err)
		}
	}
	for i, v := range t.cfg.Victims {
		m := v.Model
		env.NewEngine, env.Workers = engineFactory(first[i], func() (attack.Engine, error) { return engine.NewTargeted(m, t.p) }, workers)
		if le, ok := first[i].(attack.LocalEngine); ok {
			t.local[i] = le
		}
		var err error
		if fl.edges[i], fl.features[i], fl.secs[i], err = t.attackJobs(ctx, env, jobs, "attack "+v.Name); err != nil {
			return fmt.Errorf("victim %s: %w", v.Name, err)
		}
	}
	return nil
}

// perturbTransfer attacks once, through the transfer surrogate's engine
// (trained here if the configuration has none) for gradient attacks, and
// gives the flips to every victim.
func (t *targetedRun) perturbTransfer(ctx context.Context, res *TargetedResult, env *attack.TargetEnv, jobs []attack.TargetBudget,
	workers int, fl *targetFlips) error {
	if t.spec.Gradient {
		sur := t.cfg.Surrogate
		if sur == nil {
			var err error
			if sur, err = TrainSurrogate(ctx, t.p, t.cfg.Seed, t.progress("surrogate")); err != nil {
				return err
			}
		}
		res.AttackedModel = "surrogate " + sur.Name()
		e0, err := engine.New(sur, t.p, false)
		if err != nil {
			return err
		}
		env.NewEngine, env.Workers = engineFactory(e0, func() (attack.Engine, error) { return engine.New(sur, t.p, false) }, workers)
	} else {
		res.AttackedModel = "own surrogate"
		env.Workers = workers
	}
	f, ff, s, err := t.attackJobs(ctx, env, jobs, "attack")
	if err != nil {
		return err
	}
	for i := range fl.edges {
		fl.edges[i], fl.features[i], fl.secs[i] = f, ff, s
	}
	return nil
}

// attackJobs runs the attack on every job (progress under stage) and
// checks the flips against each job's budget; it returns the edge and
// feature flips per job and the seconds taken.
func (t *targetedRun) attackJobs(ctx context.Context, env *attack.TargetEnv, jobs []attack.TargetBudget, stage string) (
	[][]attack.Flip, [][]attack.FeatureFlip, float64, error) {
	env.Progress = t.progress(stage)
	start := time.Now()
	var f [][]attack.Flip
	var ff [][]attack.FeatureFlip
	var err error
	if t.fa != nil {
		f, ff, err = t.fa.PerturbTargetsFeatures(ctx, env, jobs)
	} else {
		f, err = t.a.PerturbTargets(ctx, env, jobs)
	}
	name := t.spec.Name
	if err != nil {
		if !strings.HasPrefix(err.Error(), name+":") { // nettack's errors name it already
			err = fmt.Errorf("%s: %w", name, err)
		}
		return nil, nil, 0, err
	}
	if ff == nil {
		ff = make([][]attack.FeatureFlip, len(f))
	}
	if len(f) != len(jobs) || len(ff) != len(jobs) {
		return nil, nil, 0, fmt.Errorf("%s: %d results for %d jobs", name, len(f), len(jobs))
	}
	n := t.p.Adj.Rows
	for i, fl := range f {
		if err := attack.CheckFeatureFlips(ff[i], n, t.p.Features.Cols, jobs[i].Budget); err != nil {
			return nil, nil, 0, fmt.Errorf("%s target %d: %w", name, jobs[i].Node, err)
		}
		if err := attack.CheckFlips(fl, n, jobs[i].Budget-len(ff[i])); err != nil {
			return nil, nil, 0, fmt.Errorf("%s target %d: %w", name, jobs[i].Node, err)
		}
	}
	return f, ff, time.Since(start).Seconds(), nil
}

// evaluate fills every row's victims, once per job: a row whose job an
// earlier row had gets that row's victims (the same flips give the same
// margins).
func (t *targetedRun) evaluate(res *TargetedResult, plan targetPlan, fl *targetFlips, clean [][]float64) error {
	prog := t.progress("evaluate")
	evaluated := make([]int, len(plan.jobs)) // job → 1 + the row that evaluated it
	for r := range res.Rows {
		row := &res.Rows[r]
		j := plan.rowJob[r]
		if r0 := evaluated[j] - 1; r0 >= 0 {
			row.Victims = slices.Clone(res.Rows[r0].Victims)
		} else {
			evaluated[j] = r + 1
			for i := range t.cfg.Victims {
				tv, err := t.evaluateVictim(i, row.Target, fl.edges[i][j], fl.features[i][j], clean[i])
				if err != nil {
					return err
				}
				row.Victims = append(row.Victims, tv)
			}
		}
		if prog != nil {
			prog(r+1, len(res.Rows))
		}
	}
	return nil
}

// evaluateVictim is victim i's outcome at target u after the flips fl and
// ff; clean holds its clean margins. A victim whose rows are preprocessed
// node by node (model.NodePreprocessor: PPRGo) is evaluated at u alone, its
// PPR row pushed on the perturbed graph (clean and perturbed margin the
// same way); with a local engine the row also gets the margin under the
// engine's local update of u's row (RelaxedMargin).
func (t *targetedRun) evaluateVictim(i int, u int, fl []attack.Flip, ff []attack.FeatureFlip, clean []float64) (TargetVictim, error) {
	p, v := t.p, t.cfg.Victims[i]
	adj, err := attack.ApplyFlips(p.Adj, fl)
	if err != nil {
		return TargetVictim{}, err
	}
	x, err := attack.ApplyFeatureFlips(p.Features, ff)
	if err != nil {
		return TargetVictim{}, err
	}
	tv := TargetVictim{Name: v.Name, Flips: make([][2]int, len(fl))}
	if np, ok := v.Model.(model.NodePreprocessor); ok && len(ff) == 0 {
		if tv.CleanMargin, err = nodeMargin(np, p, p.Adj, u); err == nil {
			tv.Margin, err = nodeMargin(np, p, adj, u)
		}
		if err == nil {
			tv.RelaxedMargin, err = t.relaxedMargin(i, u, fl)
		}
	} else {
		var m []float64
		if m, err = victimMarginsX(v.Model, p, adj, x); err == nil {
			tv.CleanMargin, tv.Margin = clean[u], m[u]
		}
	}
	if err != nil {
		return TargetVictim{}, fmt.Errorf("victim %s at target %d: %w", v.Name, u, err)
	}
	tv.CleanCorrect, tv.Correct = tv.CleanMargin > 0, tv.Margin > 0
	for k, f := range fl {
		tv.Flips[k] = [2]int{int(f.U), int(f.V)}
	}
	tv.Added, tv.Removed = attack.CountFlips(p.Adj, fl)
	for _, f := range ff {
		tv.FeatureFlips = append(tv.FeatureFlips, [2]int{int(f.Node), int(f.Feature)})
	}
	return tv, nil
}

// relaxedMargin is the probability margin at u after the flips fl (each
// touching u) under victim i's local engine, nil for victims without one.
// Transfer runs make the engine here (the clean top-k PPR of every node).
func (t *targetedRun) relaxedMargin(i, u int, fl []attack.Flip) (*float64, error) {
	le := t.local[i]
	if le == nil {
		m := t.cfg.Victims[i].Model
		if _, ok := model.PPRGoParams(m); !ok {
			return nil, nil
		}
		e, err := engine.NewPPRGo(m, t.p)
		if err != nil {
			return nil, err
		}
		le, t.local[i] = e, e
	}
	vs := make([]int32, 0, len(fl))
	ws := make([]float32, 0, len(fl))
	for _, f := range fl {
		o := int(f.V)
		if o == u {
			o = int(f.U)
		} else if int(f.U) != u {
			return nil, nil // a flip away from u: the local update does not apply
		}
		w := float32(1)
		if k, ok := t.p.Adj.Find(u, o); ok && t.p.Adj.Values[k] != 0 {
			w = 0
		}
		vs, ws = append(vs, int32(o)), append(ws, w)
	}
	ev, err := le.EvaluateLocal(u, t.p.Labels[u], vs, ws, t.loss, nil)
	if err != nil {
		return nil, err
	}
	m := nettack.ProbMargins(&tensor.Dense{Rows: 1, Cols: len(ev.Logits), Data: ev.Logits}, []int32{t.p.Labels[u]})[0]
	return &m, nil
}

// nodeMargin is the probability margin of np at u on adj, u's row
// preprocessed alone.
func nodeMargin(np model.NodePreprocessor, p *data.Problem, adj *tensor.CSR, u int) (float64, error) {
	g, err := np.PreprocessNodes(adj, p.Features, []int{u})
	if err != nil {
		return 0, err
	}
	logits := np.ForwardNodes(autograd.NoGrad(), g, p.X, []int{0}, model.Mode{}).Value
	if err := logits.CheckFinite(np.Name() + " logits"); err != nil {
		return 0, err
	}
	return nettack.ProbMargins(logits, []int32{p.Labels[u]})[0], nil
}

// cloner is an engine whose Clone is an independent engine sharing its
// read-only parts.
type cloner interface {
	Clone() (attack.Engine, error)
}

// engineFactory returns the engine factory for a targeted attack: the
// first call returns e0, later ones fresh engines (clones of e0 when it
// has Clone); several workers only for the analytic GCN engine
// (independent copies of the weights) and engines with Clone. The tape
// engine shares the model's parameter gradients, so it runs alone.
func engineFactory(e0 attack.Engine, fresh func() (attack.Engine, error), workers int) (func() (attack.Engine, error), int) {
	if c, ok := e0.(cloner); ok {
		// independent engines sharing what they only read (engine.PPRGo)
		fresh = c.Clone
	} else if _, ok := e0.(*engine.GCN); !ok {
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
