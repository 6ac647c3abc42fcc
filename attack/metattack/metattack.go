package metattack

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// Variant selects the meta-gradient.
type Variant int

const (
	// Self is Meta-Self: exact meta-gradient through SGD with momentum.
	Self Variant = iota
	// Approx is MetaApprox: first-order gradients summed along Adam training.
	Approx
)

// Options configure the attack; zero values mean DeepRobust's defaults.
type Options struct {
	Variant    Variant
	Hidden     int     // 16
	TrainIters int     // 100
	LR         float64 // 0.1 (Self), 0.01 (Approx)
	Momentum   float64 // 0.9 (Self)
	LLCutoff   float64 // 0.004; negative disables the likelihood test
	// RepoLogLikelihood uses the degree test's log-likelihood as the
	// published Metattack code computes it (gnn-meta-attack, DeepRobust):
	// +(α+1)·S_d instead of −(α+1)·S_d (usually the stricter test).
	RepoLogLikelihood bool
	Seed              uint64 // initialisation of the inner surrogates (and of the self-training labels)
	// SelfLabels are Meta-Self's self-training labels, one per node (the
	// attack loss's targets on the unlabelled nodes); nil: computed with
	// SelfTrainingLabels(p, Seed).
	SelfLabels []int32
	// Unlabeled are the nodes of the attack loss; nil: p.Val ∪ p.Test.
	Unlabeled []int
	// OnFlip, if set, is called after every flip with all flips so far
	// (valid during the call only): a checkpoint to Continue from.
	OnFlip func(flips [][2]int)
}

func (o Options) withDefaults() Options {
	if o.Hidden == 0 {
		o.Hidden = 16
	}
	if o.TrainIters == 0 {
		o.TrainIters = 100
	}
	if o.LR == 0 {
		o.LR = 0.1
		if o.Variant == Approx {
			o.LR = 0.01
		}
	}
	if o.Momentum == 0 {
		o.Momentum = 0.9
	}
	if o.LLCutoff == 0 {
		o.LLCutoff = nettack.DefaultLLCutoff
	}
	return o
}

// Result is the perturbation found.
type Result struct {
	Flips     [][2]int    `json:"flips"` // (min, max) in the order applied
	Perturbed *tensor.CSR `json:"-"`
}

// Progress is called after every flip.
type Progress func(done, total int)

// unlabeled returns the nodes of the attack loss: o.Unlabeled, or
// p.Val ∪ p.Test.
func unlabeled(p *data.Problem, o Options) []int {
	if o.Unlabeled != nil {
		return o.Unlabeled
	}
	return slices.Concat(p.Val, p.Test)
}

// validate checks the attacker's input: p's graph, features, labels and
// training nodes, and the unlabelled nodes unl.
func validate(p *data.Problem, unl []int) error {
	if p == nil || p.Adj == nil || p.Features == nil {
		return errors.New("metattack: nil adjacency or features")
	}
	n := p.Adj.Rows
	if p.Adj.Cols != n || p.Features.Rows != n {
		return fmt.Errorf("metattack: adjacency %d×%d and features with %d rows do not match", p.Adj.Rows, p.Adj.Cols, p.Features.Rows)
	}
	if len(p.Labels) != n {
		return fmt.Errorf("metattack: need %d labels, got %d", n, len(p.Labels))
	}
	if p.NumClasses < 2 {
		return fmt.Errorf("metattack: %d classes", p.NumClasses)
	}
	for _, set := range [][]int{p.Train, unl} {
		if len(set) == 0 {
			return errors.New("metattack: empty training or unlabelled node set")
		}
		for _, v := range set {
			if v < 0 || v >= n {
				return fmt.Errorf("metattack: node %d outside [0, %d)", v, n)
			}
		}
	}
	for i := range n {
		if int(p.Labels[i]) >= p.NumClasses || p.Labels[i] < 0 {
			return fmt.Errorf("metattack: label of node %d outside [0, %d)", i, p.NumClasses)
		}
		for k := p.Adj.Indptr[i]; k < p.Adj.Indptr[i+1]; k++ {
			j := int(p.Adj.Indices[k])
			if j == i || p.Adj.Values[k] != 1 {
				return fmt.Errorf("metattack: adjacency entry (%d, %d) must be an unweighted off-diagonal edge", i, j)
			}
			if _, ok := p.Adj.Find(j, i); !ok {
				return fmt.Errorf("metattack: adjacency is not symmetric at (%d, %d)", i, j)
			}
		}
	}
	return nil
}

// checkSelfLabels checks the self-training labels of p's nodes.
func checkSelfLabels(p *data.Problem, self []int32) error {
	if len(self) != p.Adj.Rows {
		return fmt.Errorf("metattack: need %d self-training labels, got %d", p.Adj.Rows, len(self))
	}
	for i, y := range self {
		if int(y) >= p.NumClasses || y < 0 {
			return fmt.Errorf("metattack: self-training label of node %d outside [0, %d)", i, p.NumClasses)
		}
	}
	return nil
}

// Attack greedily flips budget node pairs.
func Attack(ctx context.Context, p *data.Problem, budget int, o Options, progress Progress) (*Result, error) {
	return Continue(ctx, p, nil, budget, o, progress)
}

// Continue resumes an attack after prev, the flips of an earlier run on the
// same problem with the same options and a smaller budget: the result is
// the one Attack gives for budget (which counts prev), so a larger ε
// continues from a smaller one.
func Continue(ctx context.Context, p *data.Problem, prev [][2]int, budget int, o Options, progress Progress) (*Result, error) {
	o.Unlabeled = unlabeled(p, o)
	if err := validate(p, o.Unlabeled); err != nil {
		return nil, err
	}
	n := p.Adj.Rows
	if budget < 0 || budget > n*(n-1)/2 {
		return nil, fmt.Errorf("metattack: budget %d outside [0, %d]", budget, n*(n-1)/2)
	}
	if len(prev) > budget {
		return nil, fmt.Errorf("metattack: %d previous flips exceed the budget %d", len(prev), budget)
	}
	o = o.withDefaults()
	if o.SelfLabels == nil {
		self, err := SelfTrainingLabels(ctx, p, o.Seed)
		if err != nil {
			return nil, err
		}
		o.SelfLabels = self
	}
	if err := checkSelfLabels(p, o.SelfLabels); err != nil {
		return nil, err
	}
	origDeg := graph.Degrees(p.Adj)
	cur, err := graph.FlipEdges(p.Adj, prev)
	if err != nil {
		return nil, fmt.Errorf("metattack: previous flips: %w", err)
	}
	res := &Result{Flips: slices.Clone(prev)}
	if res.Flips == nil {
		res.Flips = [][2]int{}
	}
	ws := newWorkspace(p, o.Unlabeled)
	// flipped[i] lists the j > i already flipped: a pair is never flipped
	// back (DeepRobust may undo a flip and count it twice against the
	// budget; every attack here spends the budget on distinct pairs).
	flipped := make(map[int][]int)
	for _, f := range res.Flips {
		flipped[min(f[0], f[1])] = append(flipped[min(f[0], f[1])], max(f[0], f[1]))
	}
	for step := len(prev); step < budget; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := newSurrogateWS(p, o, cur, stepRNG(o.Seed, step), ws)
		g := s.pairGrad(s.metaGrad(o))
		i, j, ok := bestPair(cur, g, origDeg, o.LLCutoff, o.RepoLogLikelihood, flipped)
		if !ok {
			break
		}
		pair := [2]int{i, j}
		next, err := graph.FlipEdges(cur, [][2]int{pair})
		if err != nil {
			return nil, err
		}
		cur = next
		res.Flips = append(res.Flips, pair)
		flipped[i] = append(flipped[i], j)
		if o.OnFlip != nil {
			o.OnFlip(res.Flips)
		}
		if progress != nil {
			progress(step+1, budget)
		}
	}
	res.Perturbed = cur
	return res, nil
}

func stepRNG(seed uint64, step int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(step)+1))
}

// bestPair returns the admissible pair i < j with the largest score
// g_ij·(1 − 2A_ij) (first in row-major order on ties); pairs in flipped
// (i → js > i) are not admissible.
func bestPair(adj *tensor.CSR, g []float32, origDeg []int, cutoff float64, repo bool, flipped map[int][]int) (int, int, bool) {
	n := adj.Rows
	deg := graph.Degrees(adj)
	var (
		bi, bj = -1, -1
		best   = float32(math.Inf(-1))
	)
	llOK := map[[3]int]bool{}
	var llOrig, llCur []int
	if cutoff >= 0 {
		llOrig, llCur = origDeg, deg
	}
	row := make([]bool, n)
	done := make([]bool, n)
	for i := 0; i < n; i++ {
		for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
			row[adj.Indices[k]] = true
		}
		for _, j := range flipped[i] {
			done[j] = true
		}
		gi := g[i*n : (i+1)*n]
		for j := i + 1; j < n; j++ {
			if done[j] {
				continue
			}
			sc := gi[j]
			edge := row[j]
			if edge {
				sc = -sc
				if deg[i] <= 1 || deg[j] <= 1 {
					continue
				}
			}
			if sc <= best {
				continue
			}
			if cutoff >= 0 {
				delta := 1
				if edge {
					delta = -1
				}
				key := [3]int{min(deg[i], deg[j]), max(deg[i], deg[j]), delta}
				ok, seen := llOK[key]
				if !seen {
					ok = pairLL(llOrig, llCur, i, j, delta, repo) < cutoff
					llOK[key] = ok
				}
				if !ok {
					continue
				}
			}
			bi, bj, best = i, j, sc
		}
		for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
			row[adj.Indices[k]] = false
		}
		for _, j := range flipped[i] {
			done[j] = false
		}
	}
	return bi, bj, bi >= 0
}

// pairLL is Λ of the degree sequence after flipping (i, j).
func pairLL(orig, cur []int, i, j, delta int, repo bool) float64 {
	next := slices.Clone(cur)
	next[i] += delta
	next[j] += delta
	if repo {
		return nettack.LikelihoodRatioRepo(orig, next)
	}
	return nettack.LikelihoodRatio(orig, next)
}

// workspace holds what is reused across flips: the transposed features,
// the node masks, an arena for the float64 intermediates of one flip and
// the float32 buffers of the assembly and scoring.
type workspace struct {
	xv, xTv    []float64 // values of X and Xᵀ as float64
	xT         *tensor.CSR
	trainM     []bool
	unlM       []bool
	ar         arena
	lf, rf     []float32 // MetaApprox factors; Meta-Self: right factors
	ho, bt, p  []float32
	at, eq, ds []float32
	corr       []float32
	abar, g    []float32
}

func newWorkspace(p *data.Problem, unl []int) *workspace {
	n := p.Adj.Rows
	w := &workspace{trainM: make([]bool, n), unlM: make([]bool, n)}
	w.xT, _ = p.Features.Transpose()
	w.xv, w.xTv = make([]float64, len(p.Features.Values)), make([]float64, len(w.xT.Values))
	for i, v := range p.Features.Values {
		w.xv[i] = float64(v)
	}
	for i, v := range w.xT.Values {
		w.xTv[i] = float64(v)
	}
	for _, v := range p.Train {
		w.trainM[v] = true
	}
	for _, v := range unl {
		w.unlM[v] = true
	}
	return w
}

// arena hands out zeroed float64 slices from chunks that are kept across
// flips (reset at the start of each flip): after the first flip, a flip
// allocates nothing large.
type arena struct {
	chunks  [][]float64
	ci, off int
}

func (a *arena) reset() { a.ci, a.off = 0, 0 }

// mark and release free everything handed out after mark.
func (a *arena) mark() [2]int     { return [2]int{a.ci, a.off} }
func (a *arena) release(m [2]int) { a.ci, a.off = m[0], m[1] }

func (a *arena) get(k int) []float64 {
	const chunk = 1 << 20
	for {
		if a.ci == len(a.chunks) {
			a.chunks = append(a.chunks, make([]float64, max(k, chunk)))
		}
		c := a.chunks[a.ci]
		if a.off+k <= len(c) {
			out := c[a.off : a.off+k : a.off+k]
			a.off += k
			clear(out)
			return out
		}
		a.ci, a.off = a.ci+1, 0
	}
}

// surrogate holds one inner training problem on the current graph.
type surrogate struct {
	p       *data.Problem
	self    []int32 // self-training labels
	ws      *workspace
	n, d, h int
	c       int
	atil    *tensor.CSR // A + I (weights as given)
	ahat    []float64   // values of D^{-1/2}(A+I)D^{-1/2} on atil's structure
	xT      *tensor.CSR
	sq      []float64 // s = d^{-1/2}
	dg      []float64 // d = rowsum(A+I)
	w1, w2  []float64 // d×h, h×C
	trainM  []bool
	unlM    []bool
	rank    int      // MetaApprox: number of explicit factors in ws.lf/rf
	lr      *lowRank // Meta-Self: low-rank stacks
}

func (s *surrogate) buf(k int) []float64 { return s.ws.ar.get(k) }

// newSurrogate is the inner training problem of p on adj with o's hidden
// size, self-training labels and unlabelled nodes.
func newSurrogate(p *data.Problem, o Options, adj *tensor.CSR, rng *rand.Rand) *surrogate {
	return newSurrogateWS(p, o, adj, rng, newWorkspace(p, unlabeled(p, o)))
}

func newSurrogateWS(p *data.Problem, o Options, adj *tensor.CSR, rng *rand.Rand, ws *workspace) *surrogate {
	n := adj.Rows
	ws.ar.reset()
	s := &surrogate{p: p, self: o.SelfLabels, ws: ws, n: n, d: p.Features.Cols, h: o.Hidden, c: p.NumClasses, xT: ws.xT,
		trainM: ws.trainM, unlM: ws.unlM}
	s.setGraph(adj)
	s.w1 = make([]float64, s.d*s.h)
	s.w2 = make([]float64, s.h*s.c)
	// DeepRobust _initialize: uniform(−1/√cols, 1/√cols)
	a1, a2 := 1/math.Sqrt(float64(s.h)), 1/math.Sqrt(float64(s.c))
	for i := range s.w1 {
		s.w1[i] = (2*rng.Float64() - 1) * a1
	}
	for i := range s.w2 {
		s.w2[i] = (2*rng.Float64() - 1) * a2
	}
	return s
}

// setGraph normalises a (possibly weighted) symmetric adjacency.
func (s *surrogate) setGraph(adj *tensor.CSR) {
	a, _ := graph.AddRemainingSelfLoops(adj, 1)
	n := a.Rows
	s.dg = make([]float64, n)
	for i := range n {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			s.dg[i] += float64(a.Values[k])
		}
	}
	s.sq = make([]float64, n)
	for i, d := range s.dg {
		if d > 0 {
			s.sq[i] = 1 / math.Sqrt(d)
		}
	}
	s.ahat = make([]float64, len(a.Values))
	for i := range n {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			s.ahat[k] = s.sq[i] * float64(a.Values[k]) * s.sq[a.Indices[k]]
		}
	}
	s.atil = a
}

func pairLLSeq(orig, cur []int) float64 { return nettack.LikelihoodRatio(orig, cur) }

// SelfTrainingLabels returns Meta-Self's labels: the predictions of a
// linearised GCN (nettack.TrainSurrogate, seeded with seed) trained on p's
// clean graph, with the true labels on the training nodes.
func SelfTrainingLabels(ctx context.Context, p *data.Problem, seed uint64) ([]int32, error) {
	sur, err := nettack.TrainSurrogate(ctx, p.Adj, p.Features, p.Labels, p.NumClasses, p.Train, p.Val, nettack.SurrogateOptions{Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("metattack self-training labels: %w", err)
	}
	z := sur.Logits(p.Adj)
	out := make([]int32, p.Adj.Rows)
	for i := range out {
		out[i] = int32(z.ArgmaxRow(i))
	}
	for _, v := range p.Train {
		out[v] = p.Labels[v]
	}
	return out, nil
}

// Budget is round(ε·m) for m undirected edges (round half to even).
func Budget(adj *tensor.CSR, eps float64) int {
	return int(math.RoundToEven(eps * float64(adj.Nnz()/2)))
}
