package nettack

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/rgnn/rgnn/tensor"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

// Options configure the attack; zero values mean the defaults.
type Options struct {
	// Influencers > 0 selects the influencer (indirect) attack with that
	// many neighbours of the target as attackers; 0 is the direct attack.
	Influencers int
	// LLCutoff is the χ² cutoff of the degree likelihood ratio test
	// (DefaultLLCutoff); negative disables the test.
	LLCutoff float64
	// Workers bounds the goroutines (GOMAXPROCS).
	Workers int

	// RepoLogLikelihood uses the nettack repository's log-likelihood
	// (+(α+1)·S_d, a sign slip against eq. 7 of the paper) in the degree
	// test, to reproduce that code's filter; the default follows the paper
	// and DeepRobust.
	RepoLogLikelihood bool

	// Perturb selects structure flips (default), feature flips or both;
	// feature flips need the surrogate's W and binary X.
	Perturb Perturb

	generic bool // tests: score direct flips with the general formula
}

// Target is a node to misclassify with its budget (number of flips).
type Target struct {
	Node   int `json:"node"`
	Budget int `json:"budget"`
}

// Result is the outcome of the attack on one target.
type Result struct {
	Node   int      `json:"node"`
	Budget int      `json:"budget"`
	Flips  [][2]int `json:"flips"` // in the order applied, (min, max)
	// FeatureFlips are the flipped features (node, feature), in the order
	// applied: X[node, feature] ← 1 − X[node, feature].
	FeatureFlips [][2]int `json:"feature_flips,omitempty"`
	// Surrogate margins Z_uy − max_{c≠y} Z_uc before and after.
	SurrogateBefore float64 `json:"surrogate_margin_before"`
	SurrogateAfter  float64 `json:"surrogate_margin_after"`
}

// Progress is called after each finished target (from any goroutine, but
// never concurrently).
type Progress func(done, total int)

// Attack runs Nettack on every target independently. adj is the clean
// graph (symmetric, unweighted, no self loops), labels the labels the
// attack pushes away from (the true labels in the protocol).
func Attack(ctx context.Context, adj *tensor.CSR, s *Surrogate, labels []int32, targets []Target, o Options, progress Progress) ([]Result, error) {
	if err := checkGraph(adj); err != nil {
		return nil, err
	}
	n := adj.Rows
	if s == nil || s.XW == nil || s.XW.Rows != n {
		return nil, fmt.Errorf("nettack: surrogate XW must have %d rows", n)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("nettack: %d labels for %d nodes", len(labels), n)
	}
	if o.LLCutoff == 0 {
		o.LLCutoff = DefaultLLCutoff
	}
	if o.Influencers < 0 {
		return nil, fmt.Errorf("nettack: influencers must be ≥ 0, got %d", o.Influencers)
	}
	for i, t := range targets {
		if t.Node < 0 || t.Node >= n {
			return nil, fmt.Errorf("nettack: target %d: node %d outside [0, %d)", i, t.Node, n)
		}
		if t.Budget < 0 {
			return nil, fmt.Errorf("nettack: target %d (node %d): negative budget %d", i, t.Node, t.Budget)
		}
		if int(labels[t.Node]) < 0 || int(labels[t.Node]) >= s.XW.Cols {
			return nil, fmt.Errorf("nettack: target %d (node %d): label %d outside [0, %d)", i, t.Node, labels[t.Node], s.XW.Cols)
		}
	}
	if o.Perturb < PerturbStructure || o.Perturb > PerturbBoth {
		return nil, fmt.Errorf("nettack: unknown perturbation %d", o.Perturb)
	}
	base := newBase(adj, s.XW)
	if o.Perturb.features() {
		if err := base.withFeatures(s); err != nil {
			return nil, err
		}
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]Result, len(targets))
	err := tensor.ForEachJob(ctx, len(targets), workers, func(_, i int) error {
		var err error
		results[i], err = base.attack(ctx, targets[i], int(labels[targets[i].Node]), o)
		return err
	}, progress)
	if err != nil {
		return nil, err
	}
	return results, nil
}

func checkGraph(adj *tensor.CSR) error {
	if adj == nil {
		return errors.New("nettack: nil adjacency")
	}
	if adj.Rows != adj.Cols {
		return fmt.Errorf("nettack: adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	for r := 0; r < adj.Rows; r++ {
		for k := adj.Indptr[r]; k < adj.Indptr[r+1]; k++ {
			c := int(adj.Indices[k])
			if c == r {
				return fmt.Errorf("nettack: adjacency has a self loop at node %d", r)
			}
			if adj.Values[k] != 1 {
				return fmt.Errorf("nettack: adjacency entry (%d, %d) is %g, want unweighted", r, c, adj.Values[k])
			}
			if _, ok := adj.Find(c, r); !ok {
				return fmt.Errorf("nettack: adjacency is not symmetric at (%d, %d)", r, c)
			}
		}
	}
	return nil
}

// base holds what all targets share: the clean graph, XW, degrees, S.
type base struct {
	adj  *tensor.CSR
	n, c int
	xw   []float64 // n×C
	deg  []int
	s    []float64 // n×C, S_k = Σ_{j∈N(k)∪{k}} XW_j/√d̃_j
	pl   powerLaw

	// feature perturbations only
	x     *tensor.CSR // binary features
	w     []float64   // d×C, W = W1·W2
	words *wordGraph
}

// withFeatures adds what feature flips need: binary X, W and the
// co-occurrence graph of X.
func (b *base) withFeatures(s *Surrogate) error {
	if s.X == nil || s.W == nil {
		return errors.New("nettack: feature perturbations need the surrogate's features X and weights W = W1·W2")
	}
	if s.X.Rows != b.n || s.W.Rows != s.X.Cols || s.W.Cols != b.c {
		return fmt.Errorf("nettack: surrogate X is %d×%d and W %d×%d, want %d×D and D×%d", s.X.Rows, s.X.Cols, s.W.Rows, s.W.Cols, b.n, b.c)
	}
	if err := checkBinary(s.X); err != nil {
		return err
	}
	if err := s.W.CheckFinite("nettack surrogate W"); err != nil {
		return err
	}
	b.x = s.X
	b.w = make([]float64, len(s.W.Data))
	for i, v := range s.W.Data {
		b.w[i] = float64(v)
	}
	b.words = newWordGraph(s.X)
	return nil
}

func newBase(adj *tensor.CSR, xw *tensor.Dense) *base {
	n, c := adj.Rows, xw.Cols
	b := &base{adj: adj, n: n, c: c, xw: make([]float64, n*c), s: make([]float64, n*c)}
	for i, v := range xw.Data {
		b.xw[i] = float64(v)
	}
	b.deg = make([]int, n)
	for r := range n {
		b.deg[r] = adj.Indptr[r+1] - adj.Indptr[r]
	}
	b.pl = newPowerLaw(b.deg)
	st := b.newState()
	for k := range n {
		st.recomputeS(k, b.s[k*c:(k+1)*c])
	}
	return b
}

// state is the per-target mutable graph: flips on top of the clean graph.
type state struct {
	*base
	xw      []float64 // n×C, the base's unless features are flipped
	deg     []int
	s       []float64
	flipped map[[2]int32]bool
	added   map[int][]int // current extra neighbours per node
	pl      powerLaw
}

// newState returns a state with no flips on the base's own XW, degrees
// and S (shared, not copied).
func (b *base) newState() *state {
	return &state{base: b, xw: b.xw, deg: b.deg, s: b.s, flipped: map[[2]int32]bool{}, added: map[int][]int{}, pl: b.pl}
}

// targetState returns a state with no flips and its own degrees and S, for
// one target's attack; with features its XW is its own too (feature flips
// change it), otherwise it shares the base's.
func (b *base) targetState(features bool) *state {
	st := b.newState()
	st.deg = slices.Clone(b.deg)
	st.s = slices.Clone(b.s)
	if features {
		st.xw = slices.Clone(b.xw)
	}
	return st
}

func key(a, b int) [2]int32 { return [2]int32{int32(min(a, b)), int32(max(a, b))} }

// has reports whether (a, b) is an edge of the current graph.
func (st *state) has(a, b int) bool {
	_, ok := st.adj.Find(a, b)
	return ok != st.flipped[key(a, b)]
}

// hasI is has with self loops (the Â + I structure).
func (st *state) hasI(a, b int) bool { return a == b || st.has(a, b) }

// neighbours calls f for every current neighbour of k in a fixed order.
func (st *state) neighbours(k int, f func(j int)) {
	for p := st.adj.Indptr[k]; p < st.adj.Indptr[k+1]; p++ {
		j := int(st.adj.Indices[p])
		if !st.flipped[key(k, j)] {
			f(j)
		}
	}
	for _, j := range st.added[k] {
		if st.flipped[key(k, j)] {
			f(j)
		}
	}
}

func (st *state) g(j int, dt float64, out []float64) {
	inv := 1 / math.Sqrt(dt)
	x := st.xw[j*st.c : (j+1)*st.c]
	for i := range out {
		out[i] = x[i] * inv
	}
}

func (st *state) recomputeS(k int, out []float64) {
	clear(out)
	tmp := make([]float64, st.c)
	add := func(j int) {
		st.g(j, float64(st.deg[j]+1), tmp)
		for i := range out {
			out[i] += tmp[i]
		}
	}
	add(k)
	st.neighbours(k, add)
}

// scratch buffers for one candidate evaluation.
type scratch struct {
	dga, dgb, ga, gb, sk, z []float64
	nbrs                    []int
}

func newScratch(c int) *scratch {
	return &scratch{dga: make([]float64, c), dgb: make([]float64, c), ga: make([]float64, c),
		gb: make([]float64, c), sk: make([]float64, c), z: make([]float64, c)}
}

// logitsAfter writes into sc.z the surrogate logits of u after flipping
// (a, b) in the current graph.
func (st *state) logitsAfter(u, a, b int, sc *scratch) []float64 {
	c := st.c
	delta := 1
	if st.has(a, b) {
		delta = -1
	}
	dt := func(x int) float64 {
		d := float64(st.deg[x] + 1)
		if x == a || x == b {
			d += float64(delta)
		}
		return d
	}
	da, db := float64(st.deg[a]+1), float64(st.deg[b]+1)
	fa := 1/math.Sqrt(da+float64(delta)) - 1/math.Sqrt(da)
	fb := 1/math.Sqrt(db+float64(delta)) - 1/math.Sqrt(db)
	xa, xb := st.xw[a*c:(a+1)*c], st.xw[b*c:(b+1)*c]
	for i := range c {
		sc.dga[i], sc.dgb[i] = xa[i]*fa, xb[i]*fb
	}
	st.g(a, da+float64(delta), sc.ga)
	st.g(b, db+float64(delta), sc.gb)
	// N'(u) ∪ {u}
	sc.nbrs = append(sc.nbrs[:0], u)
	st.neighbours(u, func(j int) {
		if !(delta < 0 && ((u == a && j == b) || (u == b && j == a))) {
			sc.nbrs = append(sc.nbrs, j)
		}
	})
	if delta > 0 && (u == a || u == b) {
		sc.nbrs = append(sc.nbrs, a+b-u)
	}
	clear(sc.z)
	du := dt(u)
	for _, k := range sc.nbrs {
		copy(sc.sk, st.s[k*c:(k+1)*c])
		if st.hasI(k, a) {
			for i := range c {
				sc.sk[i] += sc.dga[i]
			}
		}
		if st.hasI(k, b) {
			for i := range c {
				sc.sk[i] += sc.dgb[i]
			}
		}
		if k == a {
			for i := range c {
				sc.sk[i] += float64(delta) * sc.gb[i]
			}
		} else if k == b {
			for i := range c {
				sc.sk[i] += float64(delta) * sc.ga[i]
			}
		}
		w := 1 / (math.Sqrt(du) * dt(k))
		for i := range c {
			sc.z[i] += w * sc.sk[i]
		}
	}
	return sc.z
}

// margin returns z_y − max_{c≠y} z_c.
func margin(z []float64, y int) float64 {
	best := math.Inf(-1)
	for c, v := range z {
		if c != y && v > best {
			best = v
		}
	}
	return z[y] - best
}

// apply flips (a, b) in the state and updates degrees and S.
func (st *state) apply(a, b int) {
	delta := 1
	if st.has(a, b) {
		delta = -1
	}
	affected := map[int]bool{a: true, b: true}
	st.neighbours(a, func(j int) { affected[j] = true })
	st.neighbours(b, func(j int) { affected[j] = true })
	k := key(a, b)
	st.flipped[k] = !st.flipped[k]
	if delta > 0 {
		st.added[a] = append(st.added[a], b)
		st.added[b] = append(st.added[b], a)
	}
	st.deg[a] += delta
	st.deg[b] += delta
	st.pl = st.pl.update(st.deg[a]-delta, st.deg[b]-delta, delta)
	ks := make([]int, 0, len(affected))
	for j := range affected {
		ks = append(ks, j)
	}
	slices.Sort(ks)
	for _, j := range ks {
		st.recomputeS(j, st.s[j*st.c:(j+1)*st.c])
	}
}

// attack runs the greedy loop for one target.
func (b *base) attack(ctx context.Context, t Target, y int, o Options) (Result, error) {
	u := t.Node
	st := b.targetState(o.Perturb.features())
	sc := newScratch(b.c)
	res := Result{Node: u, Budget: t.Budget, Flips: [][2]int{}}
	res.SurrogateBefore = margin(st.logitsAfterNone(u, sc), y)
	res.SurrogateAfter = res.SurrogateBefore
	attackers := []int{u}
	if o.Influencers > 0 {
		attackers = st.influencers(u, y, o.Influencers, sc)
	}
	var fatk []featureAttacker
	if o.Perturb.features() {
		fatk = b.featureAttackers(attackers)
	}
	for step := 0; step < t.Budget; step++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		sa, sb, ss := -1, -1, math.Inf(1)
		if o.Perturb.structure() {
			sa, sb, ss = st.structureStep(u, y, attackers, o, sc)
		}
		fa, ff, fs := -1, -1, math.Inf(1)
		if o.Perturb.features() {
			fa, ff, fs = st.featureStep(u, y, fatk, sc)
		}
		// as the reference: the edge only if strictly better
		switch {
		case sa >= 0 && (fa < 0 || ss < fs):
			st.apply(sa, sb)
			res.Flips = append(res.Flips, [2]int{min(sa, sb), max(sa, sb)})
			res.SurrogateAfter = ss
		case fa >= 0:
			a := &fatk[fa]
			st.flipFeature(a, ff)
			res.FeatureFlips = append(res.FeatureFlips, [2]int{a.node, ff})
			res.SurrogateAfter = fs
		default:
			return res, nil // no admissible flip left
		}
	}
	return res, nil
}

// structureStep returns the best admissible edge flip (a, b) of the
// attackers on the current graph and its surrogate margin (a = −1 if none).
func (st *state) structureStep(u, y int, attackers []int, o Options, sc *scratch) (int, int, float64) {
	if o.Influencers == 0 && !o.generic {
		v, score := st.directStep(u, y, o, sc)
		if v < 0 {
			return -1, -1, score
		}
		return u, v, score
	}
	bestA, bestB, bestScore := -1, -1, math.Inf(1)
	for _, a := range attackers {
		for v := 0; v < st.n; v++ {
			if v == a || v == u {
				continue
			}
			if o.Influencers > 0 && slices.Contains(attackers, v) && v < a {
				continue // the pair was considered from v's side
			}
			if st.flipped[key(a, v)] {
				continue // never flip a pair back
			}
			if !st.allowed(a, v, o) {
				continue
			}
			score := margin(st.logitsAfter(u, a, v, sc), y)
			if score < bestScore {
				bestA, bestB, bestScore = a, v, score
			}
		}
	}
	return bestA, bestB, bestScore
}

// allowed applies the singleton and likelihood-ratio filters to (a, b).
func (st *state) allowed(a, b int, o Options) bool {
	delta := 1
	if st.has(a, b) {
		delta = -1
		if st.deg[a] <= 1 || st.deg[b] <= 1 {
			return false // removal would leave a singleton
		}
	}
	if o.LLCutoff < 0 {
		return true
	}
	return o.ratio(st.base.pl, st.pl.update(st.deg[a], st.deg[b], delta)) < o.LLCutoff
}

// logitsAfterNone returns u's logits on the current graph.
func (st *state) logitsAfterNone(u int, sc *scratch) []float64 {
	c := st.c
	clear(sc.z)
	du := float64(st.deg[u] + 1)
	acc := func(k int) {
		w := 1 / (math.Sqrt(du) * float64(st.deg[k]+1))
		for i := range c {
			sc.z[i] += w * st.s[k*c+i]
		}
	}
	acc(u)
	st.neighbours(u, acc)
	return sc.z
}

// influencers picks the n neighbours of u whose edge removal lowers u's
// surrogate margin most (Nettack's get_attacker_nodes without the
// additional-node extension: with fewer neighbours, all are used).
func (st *state) influencers(u, y, n int, sc *scratch) []int {
	type cand struct {
		v     int
		score float64
	}
	var cs []cand
	st.neighbours(u, func(v int) {
		cs = append(cs, cand{v, margin(st.logitsAfter(u, u, v, sc), y)})
	})
	slices.SortStableFunc(cs, func(p, q cand) int {
		switch {
		case p.score < q.score:
			return -1
		case p.score > q.score:
			return 1
		}
		return p.v - q.v
	})
	out := make([]int, 0, n)
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].v)
	}
	slices.Sort(out)
	return out
}
