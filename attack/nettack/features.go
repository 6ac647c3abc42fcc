package nettack

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/tensor"
)

// Perturb selects what Nettack may change.
type Perturb int

const (
	// PerturbStructure flips edges only (the default).
	PerturbStructure Perturb = iota
	// PerturbFeatures flips binary features only.
	PerturbFeatures
	// PerturbBoth picks, per step, the better of the best edge flip and the
	// best feature flip from the same budget (the original Nettack's
	// perturb_structure=True, perturb_features=True).
	PerturbBoth
)

// PerturbNames are the names of the Perturb values, in order.
var PerturbNames = []string{"structure", "features", "both"}

func (p Perturb) String() string {
	if p >= 0 && int(p) < len(PerturbNames) {
		return PerturbNames[p]
	}
	return fmt.Sprintf("Perturb(%d)", int(p))
}

// ParsePerturb maps "structure" (or ""), "features", "both" to a Perturb.
func ParsePerturb(s string) (Perturb, error) {
	if s == "" {
		return PerturbStructure, nil
	}
	if i := slices.Index(PerturbNames, s); i >= 0 {
		return Perturb(i), nil
	}
	return 0, fmt.Errorf("unknown perturbation %q (%s)", s, strings.Join(PerturbNames, ", "))
}

func (p Perturb) structure() bool { return p == PerturbStructure || p == PerturbBoth }
func (p Perturb) features() bool  { return p == PerturbFeatures || p == PerturbBoth }

// CooccurrenceThreshold is the fraction of a node's inverse word degrees a
// new word must reach through co-occurring words (Nettack's 0.5).
const CooccurrenceThreshold = 0.5

// wordGraph is the co-occurrence graph of the ORIGINAL binary features:
// words j ≠ f are adjacent if some node has both (XᵀX > 0 off the
// diagonal). inv[j] = 1/(deg(j) + 1e-8) as in the reference, so a word
// without co-occurrences dominates the node's total.
type wordGraph struct {
	d   int
	adj []bool // d×d
	inv []float64
}

// checkBinary verifies that every stored feature is 1.
func checkBinary(x *tensor.CSR) error {
	for r := 0; r < x.Rows; r++ {
		for k := x.Indptr[r]; k < x.Indptr[r+1]; k++ {
			if x.Values[k] != 1 {
				return fmt.Errorf("nettack: feature perturbations need binary features, but X[%d, %d] = %g (binarise them, e.g. rgnn --binary-attr)",
					r, x.Indices[k], x.Values[k])
			}
		}
	}
	return nil
}

func newWordGraph(x *tensor.CSR) *wordGraph {
	d := x.Cols
	wg := &wordGraph{d: d, adj: make([]bool, d*d), inv: make([]float64, d)}
	for r := 0; r < x.Rows; r++ {
		ws := x.Indices[x.Indptr[r]:x.Indptr[r+1]]
		for _, a := range ws {
			row := wg.adj[int(a)*d : (int(a)+1)*d]
			for _, b := range ws {
				if a != b {
					row[b] = true
				}
			}
		}
	}
	for j := range d {
		deg := 0
		for _, on := range wg.adj[j*d : (j+1)*d] {
			if on {
				deg++
			}
		}
		wg.inv[j] = 1 / (float64(deg) + 1e-8)
	}
	return wg
}

// allowedAdditions returns, for a node with the given (sorted) words, which
// words may be added: Σ_{j∈words, j~f} inv[j] > ½·Σ_{j∈words} inv[j].
func (wg *wordGraph) allowedAdditions(words []int32) []bool {
	score := make([]float64, wg.d)
	var sd float64
	for _, j := range words {
		w := wg.inv[j]
		sd += w
		for f, on := range wg.adj[int(j)*wg.d : (int(j)+1)*wg.d] {
			if on {
				score[f] += w
			}
		}
	}
	out := make([]bool, wg.d)
	for f, s := range score {
		out[f] = s-CooccurrenceThreshold*sd > 0
	}
	return out
}

// featureAttacker is one node whose features the attack may flip: its
// original binary row and the co-occurrence verdicts for additions.
type featureAttacker struct {
	node    int
	has     []bool // original X[node, :]
	canAdd  []bool
	flipped []bool
}

func (b *base) featureAttackers(nodes []int) []featureAttacker {
	out := make([]featureAttacker, len(nodes))
	for i, v := range nodes {
		words := b.x.Indices[b.x.Indptr[v]:b.x.Indptr[v+1]]
		has := make([]bool, b.x.Cols)
		for _, f := range words {
			has[f] = true
		}
		out[i] = featureAttacker{node: v, has: has, canAdd: b.words.allowedAdditions(words), flipped: make([]bool, b.x.Cols)}
	}
	return out
}

// a2 returns (Â²)_{ui} on the current graph:
// Σ_{k∈(N(u)∪{u})∩(N(i)∪{i})} 1/(√d_u·d_k·√d_i), d = degree + 1.
func (st *state) a2(u, i int) float64 {
	var s float64
	acc := func(k int) {
		if st.hasI(k, i) {
			s += 1 / float64(st.deg[k]+1)
		}
	}
	acc(u)
	st.neighbours(u, acc)
	return s / (math.Sqrt(float64(st.deg[u]+1)) * math.Sqrt(float64(st.deg[i]+1)))
}

// featureStep scores every admissible feature flip of the attackers on the
// current graph and features: flipping X[i, f] moves u's logits by
// (Â²)_{ui}·(±W[f, :]) exactly (the surrogate is linear in X). It returns
// the attacker index, the feature and the new surrogate margin (−1, −1 if
// no flip is admissible). Ties keep the first attacker, then the lowest
// feature.
func (st *state) featureStep(u, y int, atk []featureAttacker, sc *scratch) (int, int, float64) {
	c := st.c
	z := slices.Clone(st.logitsAfterNone(u, sc))
	zn := sc.z
	bi, bf, best := -1, -1, math.Inf(1)
	for ai := range atk {
		a := &atk[ai]
		coef := st.a2(u, a.node)
		if coef == 0 {
			continue
		}
		for f := range a.has {
			if a.flipped[f] {
				continue // never flip a feature twice
			}
			sign := 1.0
			if a.has[f] {
				sign = -1
			} else if !a.canAdd[f] {
				continue
			}
			wf := st.w[f*c : (f+1)*c]
			k := coef * sign
			for j := range c {
				zn[j] = z[j] + k*wf[j]
			}
			if s := margin(zn, y); s < best {
				bi, bf, best = ai, f, s
			}
		}
	}
	return bi, bf, best
}

// flipFeature flips feature f of attacker a (removes it if a's node had it,
// adds it otherwise) and marks it flipped.
func (st *state) flipFeature(a *featureAttacker, f int) {
	sign := 1.0
	if a.has[f] {
		sign = -1
	}
	a.flipped[f] = true
	st.applyFeature(a.node, f, sign)
}

// applyFeature flips X[i, f] (sign +1 adds, −1 removes): XW_i moves by
// sign·W[f, :] and S changes in the rows of N(i) ∪ {i}.
func (st *state) applyFeature(i, f int, sign float64) {
	c := st.c
	xi := st.xw[i*c : (i+1)*c]
	wf := st.w[f*c : (f+1)*c]
	for j := range c {
		xi[j] += sign * wf[j]
	}
	ks := []int{i}
	st.neighbours(i, func(k int) { ks = append(ks, k) })
	slices.Sort(ks)
	for _, k := range ks {
		st.recomputeS(k, st.s[k*c:(k+1)*c])
	}
}
