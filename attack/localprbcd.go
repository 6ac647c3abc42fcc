package attack

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rgnn/rgnn/tensor"
)

var localPRBCDSpec = Spec{
	Name: "local_prbcd",
	Description: "local PR-BCD (Geisler et al. 2021), targeted: PR-BCD over the target's row (all pairs (u, v)), " +
		"margin loss at the target, 500 + 100 fine-tuning epochs, lr factor 0.05; any differentiable model",
	Gradient: true, Targeted: true, DefaultLoss: "margin",
	New:         errTargeted("local_prbcd"),
	NewTargeted: func(o Options) (TargetedAttack, error) { return newLocalPRBCD(o) },
}

// localEps is the floor of the relaxed flip weights (the global PR-BCD's;
// the reference's local attack uses 1e-14, which float32 weights near 1
// cannot tell apart from 0).
const localEps = pEps

// LocalPRBCD is PR-BCD restricted to one target u (reference LocalPRBCD of
// rgnn_at_scale): the candidates are the pairs (u, v), v ≠ u — the whole
// row if BlockSize ≥ n − 1, else a random block of BlockSize of them that
// is resampled during the search phase —, the loss is the attack loss at u
// alone (default margin), and the learning rate is
// budget·LRFactor·max(√(n/BlockSize), 1)/√(max(0, t − Epochs) + 1). The
// search runs Epochs epochs and then FineTune more on the best block;
// early stopping keeps the state with the highest attack loss (the
// reference tracks the probability margin; the Engine reports the loss,
// i.e. the logit margin for the margin loss), and the final flips are
// the best of the top-budget weights and Samples Bernoulli draws. If no
// state beats the clean graph the target gets no flips. An engine that is a
// LocalEngine (engine.PPRGo) evaluates the target alone for every state
// (EvaluateLocal, no perturbed adjacency); any other Engine evaluates the
// perturbed graph (the same weights, updates and draws either way).
type LocalPRBCD struct {
	Epochs, FineTune, BlockSize int
	LRFactor                    float64
	Samples                     int
}

func newLocalPRBCD(o Options) (*LocalPRBCD, error) {
	a := &LocalPRBCD{Epochs: 500, FineTune: 100, BlockSize: 10_000, LRFactor: 0.05, Samples: 20}
	if o.Epochs > 0 {
		a.Epochs = o.Epochs
		a.FineTune = min(a.FineTune, max(1, o.Epochs/5))
	}
	override(&a.FineTune, o.FineTuneEpochs)
	override(&a.BlockSize, o.BlockSize)
	override(&a.LRFactor, o.LRFactor)
	override(&a.Samples, o.Samples)
	return a, nil
}

// PerturbTargets implements TargetedAttack: jobs are handed to env.Workers
// goroutines, each with its own engine; every job's randomness depends on
// the seed and the job's node only, so the flips do not depend on the
// schedule.
func (a *LocalPRBCD) PerturbTargets(ctx context.Context, env *TargetEnv, jobs []TargetBudget) ([][]Flip, error) {
	if env.NewEngine == nil {
		return nil, errors.New("local_prbcd needs a gradient engine")
	}
	if env.Loss == nil {
		return nil, errors.New("local_prbcd needs a loss")
	}
	workers := max(1, min(env.Workers, len(jobs)))
	engines := make([]Engine, workers)
	for w := range engines {
		e, err := env.NewEngine()
		if err != nil {
			return nil, err
		}
		engines[w] = e
	}
	out := make([][]Flip, len(jobs))
	err := tensor.ForEachJob(ctx, len(jobs), workers, func(w, i int) error {
		var err error
		if out[i], err = a.attackOne(ctx, engines[w], env, jobs[i]); err != nil {
			return fmt.Errorf("target %d: %w", jobs[i].Node, err)
		}
		return nil
	}, env.Progress)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// localBlock is the candidate set of one target: pairs (u, v[i]) with
// relaxed weights p[i].
type localBlock struct {
	v     []int32
	p     []float32
	sign  []float32
	pairs []Flip
}

func (b *localBlock) clone() *localBlock {
	return &localBlock{v: slices.Clone(b.v), p: slices.Clone(b.p), sign: slices.Clone(b.sign), pairs: slices.Clone(b.pairs)}
}

func (b *localBlock) add(env *TargetEnv, u int, v int32, p float32) {
	f := Flip{int32(min(u, int(v))), int32(max(u, int(v)))}
	b.v = append(b.v, v)
	b.p = append(b.p, p)
	b.pairs = append(b.pairs, f)
	// the target's own row (symmetric adjacency: edgeSign's answer), in
	// cache, rather than a random row per candidate
	s := float32(1)
	if hasEdge(env.Problem.Adj, u, int(v)) {
		s = -1
	}
	b.sign = append(b.sign, s)
}

// localCandidates draws the candidate pairs (u, v) of target u: the whole
// row, or random v until the block holds size of them.
type localCandidates struct {
	env   *TargetEnv
	u, n  int
	size  int
	whole bool
	rng   *rand.Rand
}

// fill adds candidates to b (weight localEps): every v ≠ u for the whole
// row, else random new ones until b holds size.
func (c *localCandidates) fill(b *localBlock) {
	u, n := c.u, c.n
	if c.whole {
		for v := 0; v < n; v++ {
			if v != u {
				b.add(c.env, u, int32(v), localEps)
			}
		}
		return
	}
	in := make(map[int32]bool, c.size)
	for _, v := range b.v {
		in[v] = true
	}
	for tries := 0; len(b.v) < c.size && tries < 100*c.size; tries++ {
		v := int32(c.rng.IntN(n - 1))
		if int(v) >= u {
			v++
		}
		if !in[v] {
			in[v] = true
			b.add(c.env, u, v, localEps)
		}
	}
}

// attackOne attacks one job with engine e: the search over the target's
// candidates, then the final sampling; no flips if neither beats the clean
// graph. An engine that is a LocalEngine evaluates the target alone
// (EvaluateLocal); any other evaluates whole perturbed graphs.
func (a *LocalPRBCD) attackOne(ctx context.Context, e Engine, env *TargetEnv, job TargetBudget) ([]Flip, error) {
	u, budget := job.Node, job.Budget
	adj := env.Problem.Adj
	n := adj.Rows
	switch {
	case u < 0 || u >= n:
		return nil, fmt.Errorf("node outside [0, %d)", n)
	case budget < 0:
		return nil, fmt.Errorf("negative budget %d", budget)
	case budget > 0 && budget > n-1:
		return nil, fmt.Errorf("budget %d above the %d pairs of the target", budget, n-1)
	}
	if budget == 0 || n < 2 {
		return nil, nil
	}
	floor := float32(-1)
	if e.AnyPair() {
		floor = 2 * localEps
	}
	var ev localEvaluator = &graphEvaluator{e: e, env: env, targets: []int{u}, floor: floor}
	if le, ok := e.(LocalEngine); ok {
		ev = &engineEvaluator{e: le, env: env, u: u, label: env.Problem.Labels[u], floor: floor}
	}
	clean, err := ev.clean()
	if err != nil {
		return nil, err
	}
	c := &localCandidates{env: env, u: u, n: n, size: min(a.BlockSize, n-1), whole: a.BlockSize >= n-1,
		rng: newRNG(env.Seed, 0x10ca1<<32|uint64(u))}
	best, err := a.search(ctx, ev, c, budget, clean.Loss)
	if err != nil || best == nil {
		return nil, err // best == nil: the attack never beat the clean graph
	}
	// topFirst: the top-budget draw is always evaluated, so fev is the
	// evaluation of flips
	flips, fev, err := sampleFinalWith(ev.flips, best.pairs, best.p, budget, a.Samples, newRNG(env.Seed, 0x10ca2<<32|uint64(u)), true, true)
	if err != nil {
		return nil, err
	}
	// keep the clean graph if no sample beats it
	if fev.Loss <= clean.Loss {
		return nil, nil
	}
	return flips, nil
}

// localEvaluator evaluates the attacked model at the target: on the clean
// graph, with a block's relaxed weights (and, with grad, ∂loss/∂w of every
// pair of the block), or after a set of flips.
type localEvaluator interface {
	clean() (Eval, error)
	block(b *localBlock, grad []float32) (Eval, error)
	flips(f []Flip) (Eval, error)
}

// graphEvaluator evaluates whole perturbed graphs through any Engine.
type graphEvaluator struct {
	e       Engine
	env     *TargetEnv
	targets []int
	floor   float32
}

func (g *graphEvaluator) clean() (Eval, error) {
	return g.e.Evaluate(g.env.Problem.Adj, g.env.Loss, g.targets, g.env.Problem.Labels, false)
}

func (g *graphEvaluator) block(b *localBlock, grad []float32) (Eval, error) {
	w, err := perturbedSigned(g.env.Problem.Adj, b.pairs, b.p, b.sign, g.floor)
	if err != nil {
		return Eval{}, err
	}
	ev, err := g.e.Evaluate(w, g.env.Loss, g.targets, g.env.Problem.Labels, grad != nil)
	if err != nil || grad == nil {
		return ev, err
	}
	return ev, g.e.PairGrad(b.pairs, grad)
}

func (g *graphEvaluator) flips(f []Flip) (Eval, error) {
	adj, err := ApplyFlips(g.env.Problem.Adj, f)
	if err != nil {
		return Eval{}, err
	}
	return g.e.Evaluate(adj, g.env.Loss, g.targets, g.env.Problem.Labels, false)
}

// engineEvaluator evaluates the target alone through a LocalEngine: the
// block's pairs (u, v) with the weights perturbedSigned would give them
// (an edge 1 − p, a non-edge p, 0 at or below the floor).
type engineEvaluator struct {
	e     LocalEngine
	env   *TargetEnv
	u     int
	label int32
	floor float32
	v     []int32
	w     []float32
}

func (l *engineEvaluator) clean() (Eval, error) {
	ev, err := l.e.EvaluateLocal(l.u, l.label, nil, nil, l.env.Loss, nil)
	return ev.Eval, err
}

func (l *engineEvaluator) block(b *localBlock, grad []float32) (Eval, error) {
	adj := l.env.Problem.Adj
	l.w = l.w[:0]
	for i, p := range b.p {
		w := p
		switch {
		case b.sign[i] < 0:
			k, _ := adj.Find(l.u, int(b.v[i]))
			w = float32(float64(adj.Values[k]) + float64(-p)) // perturbedSigned's merge
		case p <= l.floor:
			w = 0
		}
		l.w = append(l.w, w)
	}
	ev, err := l.e.EvaluateLocal(l.u, l.label, b.v, l.w, l.env.Loss, grad)
	return ev.Eval, err
}

func (l *engineEvaluator) flips(f []Flip) (Eval, error) {
	adj := l.env.Problem.Adj
	l.v, l.w = l.v[:0], l.w[:0]
	for _, x := range f {
		v := int(x.V)
		switch {
		case int(x.V) == l.u:
			v = int(x.U)
		case int(x.U) != l.u:
			return Eval{}, fmt.Errorf("flip (%d, %d) does not touch target %d", x.U, x.V, l.u)
		}
		w := float32(1)
		if hasEdge(adj, l.u, v) {
			w = 0
		}
		l.v, l.w = append(l.v, int32(v)), append(l.w, w)
	}
	ev, err := l.e.EvaluateLocal(l.u, l.label, l.v, l.w, l.env.Loss, nil)
	return ev.Eval, err
}

// search runs the Epochs + FineTune epochs of projected gradient ascent on
// the relaxed weights of c's candidates and returns the block with the
// highest attack loss at the target, nil if none beats cleanLoss.
func (a *LocalPRBCD) search(ctx context.Context, ev localEvaluator, c *localCandidates, budget int,
	cleanLoss float64) (*localBlock, error) {
	b := &localBlock{}
	c.fill(b)
	lrFactor := float64(budget) * a.LRFactor * math.Max(math.Sqrt(float64(c.n)/float64(c.size)), 1)
	grad := make([]float32, 0, c.size)
	var best *localBlock
	bestLoss := cleanLoss
	total := a.Epochs + a.FineTune
	for t := 0; t < total; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		grad = grad[:len(b.pairs)]
		e, err := ev.block(b, grad)
		if err != nil {
			return nil, fmt.Errorf("epoch %d: %w", t, err)
		}
		// early stopping on the state reached after the previous epoch
		if t > 0 && e.Loss > bestLoss {
			bestLoss, best = e.Loss, b.clone()
		}
		lr := lrFactor / math.Sqrt(float64(max(0, t-a.Epochs)+1))
		for i, g := range grad {
			b.p[i] = max(b.p[i]+float32(lr)*b.sign[i]*g, localEps)
		}
		ProjectBudget(b.p, float64(budget), localEps)
		switch {
		case t < a.Epochs-1 && !c.whole:
			b = a.resample(b, c.fill)
		case t == a.Epochs-1 && best != nil:
			b = best.clone()
		}
	}
	if e, err := ev.block(b, nil); err != nil {
		return nil, err
	} else if e.Loss > bestLoss {
		best = b
	}
	return best, nil
}

// resample keeps the larger half of the block's weights (all weights at
// the floor are dropped, but at most half of the block) and refills it at
// random (reference resample_search_space).
func (a *LocalPRBCD) resample(b *localBlock, fill func(*localBlock)) *localBlock {
	idx := make([]int, len(b.p))
	for i := range idx {
		idx[i] = i
	}
	sortByValue(idx, b.p, false)
	drop := 0
	for _, v := range b.p {
		if v <= localEps {
			drop++
		}
	}
	drop = max(drop, len(idx)/2)
	keep := idx[drop:]
	slices.Sort(keep)
	nb := &localBlock{}
	for _, i := range keep {
		nb.v = append(nb.v, b.v[i])
		nb.p = append(nb.p, b.p[i])
		nb.sign = append(nb.sign, b.sign[i])
		nb.pairs = append(nb.pairs, b.pairs[i])
	}
	fill(nb)
	return nb
}
