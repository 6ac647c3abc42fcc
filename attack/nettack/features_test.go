package nettack

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

func binaryCSR(t testing.TB, rows [][]int32, d int) *tensor.CSR {
	t.Helper()
	var es []tensor.Entry
	for r, ws := range rows {
		for _, f := range ws {
			es = append(es, tensor.Entry{Row: int32(r), Col: f, Val: 1})
		}
	}
	x, err := tensor.FromCOO(len(rows), d, es)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestCooccurrenceHand checks the co-occurrence constraint on a tiny
// example computed by hand. Nodes {0,1}, {1,2}, {0,2}, {2,3}, {4}: the
// word graph is the triangle 0–1–2 plus 2–3, word 4 is isolated, so the
// word degrees are 2, 2, 3, 1, 0 and inv = ½, ½, ⅓, 1, 1e8.
func TestCooccurrenceHand(t *testing.T) {
	x := binaryCSR(t, [][]int32{{0, 1}, {1, 2}, {0, 2}, {2, 3}, {4}}, 5)
	wg := newWordGraph(x)
	wantInv := []float64{0.5, 0.5, 1.0 / 3, 1, 1e8}
	for j, w := range wantInv {
		if math.Abs(wg.inv[j]-w) > 1e-7*w {
			t.Errorf("inv[%d] = %v, want %v", j, wg.inv[j], w)
		}
	}
	for _, tc := range []struct {
		words []int32
		want  []bool
	}{
		// Σ inv = 1, threshold ½: word 2 scores ½+½ = 1 (allowed), 3 and
		// 4 score 0; 0 and 1 score ½ and ½ (not > ½)
		{[]int32{0, 1}, []bool{false, false, true, false, false}},
		// Σ inv = ⅓ + 1, threshold ⅔: 0 and 1 score ⅓, 2 scores 1, 3 ⅓
		{[]int32{2, 3}, []bool{false, false, true, false, false}},
		// Σ inv = 1, threshold ½: only word 2 (score 1)
		{[]int32{3}, []bool{false, false, true, false, false}},
		// the isolated word's 1e8 blocks every addition
		{[]int32{4}, []bool{false, false, false, false, false}},
		{[]int32{1, 4}, []bool{false, false, false, false, false}},
		// Σ inv = ½+½+⅓ = 4/3, threshold ⅔: 3 scores ⅓; 0, 1 score ⅚, 2 1
		{[]int32{0, 1, 2}, []bool{true, true, true, false, false}},
	} {
		if got := wg.allowedAdditions(tc.words); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("words %v: allowed %v, want %v", tc.words, got, tc.want)
		}
	}
}

// featureProblem is a random graph with random binary features and W.
func featureProblem(t testing.TB, n, d, c int, seed uint64) (*tensor.CSR, *Surrogate, [][]bool) {
	t.Helper()
	adj, _ := randomGraph(t, n, n, c, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	xb := make([][]bool, n)
	rows := make([][]int32, n)
	for i := range n {
		xb[i] = make([]bool, d)
		for f := range d {
			if rng.Float64() < 0.4 {
				xb[i][f] = true
				rows[i] = append(rows[i], int32(f))
			}
		}
	}
	w := tensor.NewDense(d, c)
	for i := range w.Data {
		w.Data[i] = float32(rng.NormFloat64())
	}
	return adj, &Surrogate{XW: denseXW(xb, w), W: w, X: binaryCSR(t, rows, d)}, xb
}

func denseXW(xb [][]bool, w *tensor.Dense) *tensor.Dense {
	xw := tensor.NewDense(len(xb), w.Cols)
	for i, row := range xb {
		for j := range w.Cols {
			var s float64
			for f, on := range row {
				if on {
					s += float64(w.At(f, j))
				}
			}
			xw.Set(i, j, float32(s))
		}
	}
	return xw
}

// scratchMargin recomputes u's surrogate margin from scratch: Â'²·X'W on
// the graph with the given flips.
func scratchMargin(t testing.TB, adj *tensor.CSR, flips [][2]int, xb [][]bool, w *tensor.Dense, u, y int) float64 {
	t.Helper()
	g, err := graph.FlipEdges(adj, flips)
	if err != nil {
		t.Fatal(err)
	}
	z := (&Surrogate{XW: denseXW(xb, w)}).Logits(g).Row(u)
	zz := make([]float64, len(z))
	for i, v := range z {
		zz[i] = float64(v)
	}
	return margin(zz, y)
}

func cloneBool(x [][]bool) [][]bool {
	out := make([][]bool, len(x))
	for i, r := range x {
		out[i] = append([]bool(nil), r...)
	}
	return out
}

// TestFeatureScoresBruteForce checks every closed-form feature score of
// featureStep against Â'²·X'W recomputed from scratch, and its choice,
// while feature and edge flips are applied to the state in turn.
func TestFeatureScoresBruteForce(t *testing.T) {
	const n, d, c = 14, 10, 3
	adj, s, xb := featureProblem(t, n, d, c, 11)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % c
	}
	b := newBase(adj, s.XW)
	if err := b.withFeatures(s); err != nil {
		t.Fatal(err)
	}
	for _, u := range []int{0, 6, 13} {
		y := labels[u]
		st := b.targetState(true)
		sc := newScratch(c)
		atk := b.featureAttackers([]int{u, (u + 1) % n})
		cur := cloneBool(xb)
		var flips [][2]int
		for step := 0; step < 6; step++ {
			if got, want := margin(st.logitsAfterNone(u, sc), y), scratchMargin(t, adj, flips, cur, s.W, u, y); math.Abs(got-want) > 1e-5 {
				t.Fatalf("u=%d step %d: current margin %v, from scratch %v", u, step, got, want)
			}
			ai, f, score := st.featureStep(u, y, atk, sc)
			// brute force over every admissible (attacker, feature)
			bi, bf, best := -1, -1, math.Inf(1)
			for i, a := range atk {
				if st.a2(u, a.node) == 0 {
					continue // outside u's two hops: no effect (the reference drops zero gradients)
				}
				for g := range d {
					if a.flipped[g] || (!a.has[g] && !a.canAdd[g]) {
						continue
					}
					x2 := cloneBool(cur)
					x2[a.node][g] = !x2[a.node][g]
					m := scratchMargin(t, adj, flips, x2, s.W, u, y)
					if m < best-1e-9 {
						bi, bf, best = i, g, m
					}
				}
			}
			if bi < 0 {
				if ai >= 0 {
					t.Fatalf("u=%d step %d: featureStep found (%d, %d), brute force none", u, step, ai, f)
				}
				break
			}
			if ai != bi || f != bf || math.Abs(score-best) > 1e-5 {
				t.Fatalf("u=%d step %d: featureStep (%d, %d) margin %v, brute force (%d, %d) %v", u, step, ai, f, score, bi, bf, best)
			}
			if step%2 == 0 {
				a := &atk[ai]
				st.flipFeature(a, f)
				cur[a.node][f] = !cur[a.node][f]
			} else {
				// an edge flip at u, then one elsewhere
				v := (u + 2*step + 1) % n
				st.apply(min(u, v), max(u, v))
				flips = append(flips, [2]int{min(u, v), max(u, v)})
			}
		}
	}
}

// TestAttackFeatures runs the whole attack with feature and combined
// perturbations, direct and via influencers, and checks the final
// surrogate margin against the graph and features recomputed from the
// returned flips, the budget, no repeated flips and determinism across
// worker counts.
func TestAttackFeatures(t *testing.T) {
	const n, d, c = 30, 12, 3
	adj, s, xb := featureProblem(t, n, d, c, 5)
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(i % c)
	}
	deg := graph.Degrees(adj)
	var targets []Target
	for _, u := range []int{0, 3, 7, 12, 29} {
		targets = append(targets, Target{Node: u, Budget: deg[u] + 2})
	}
	for _, o := range []Options{
		{Perturb: PerturbFeatures},
		{Perturb: PerturbBoth},
		{Perturb: PerturbBoth, LLCutoff: -1},
		{Perturb: PerturbBoth, Influencers: 2},
	} {
		o.Workers = 1
		res, err := Attack(context.Background(), adj, s, labels, targets, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		o.Workers = 4
		res4, err := Attack(context.Background(), adj, s, labels, targets, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res, res4) {
			t.Fatalf("%v: results depend on the number of workers", o.Perturb)
		}
		nf, ns := 0, 0
		for _, r := range res {
			if len(r.Flips)+len(r.FeatureFlips) > r.Budget {
				t.Errorf("%v node %d: %d+%d flips for budget %d", o.Perturb, r.Node, len(r.Flips), len(r.FeatureFlips), r.Budget)
			}
			if o.Perturb == PerturbFeatures && len(r.Flips) > 0 {
				t.Errorf("features only, node %d: edge flips %v", r.Node, r.Flips)
			}
			cur := cloneBool(xb)
			seen := map[[2]int]bool{}
			for _, ff := range r.FeatureFlips {
				if seen[ff] {
					t.Errorf("%v node %d: feature %v flipped twice", o.Perturb, r.Node, ff)
				}
				seen[ff] = true
				if (o.Influencers == 0) != (ff[0] == r.Node) {
					t.Errorf("%v node %d: feature flip %v at the wrong node", o.Perturb, r.Node, ff)
				}
				cur[ff[0]][ff[1]] = !cur[ff[0]][ff[1]]
			}
			m := scratchMargin(t, adj, r.Flips, cur, s.W, r.Node, int(labels[r.Node]))
			if math.Abs(m-r.SurrogateAfter) > 1e-5 {
				t.Errorf("%v node %d: surrogate margin %v, recomputed %v", o.Perturb, r.Node, r.SurrogateAfter, m)
			}
			nf += len(r.FeatureFlips)
			ns += len(r.Flips)
		}
		t.Logf("%v influencers %d cutoff %v: %d edge, %d feature flips", o.Perturb, o.Influencers, o.LLCutoff, ns, nf)
		if nf == 0 {
			t.Errorf("%v: no feature flip at all", o.Perturb)
		}
	}
}

// TestStructureModeUnchanged checks that PerturbStructure ignores W and X
// (the structure attack is the same with or without them).
func TestStructureModeUnchanged(t *testing.T) {
	adj, s, _ := featureProblem(t, 25, 8, 3, 9)
	labels := make([]int32, 25)
	for i := range labels {
		labels[i] = int32(i % 3)
	}
	targets := []Target{{0, 4}, {5, 3}, {17, 5}}
	a, err := Attack(context.Background(), adj, s, labels, targets, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Attack(context.Background(), adj, &Surrogate{XW: s.XW}, labels, targets, Options{Perturb: PerturbStructure}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("structure results differ:\n%v\n%v", a, b)
	}
	for _, r := range a {
		if r.FeatureFlips != nil {
			t.Fatalf("structure mode made feature flips %v", r.FeatureFlips)
		}
	}
}

func TestFeatureErrors(t *testing.T) {
	adj, s, _ := featureProblem(t, 10, 6, 3, 3)
	labels := make([]int32, 10)
	targets := []Target{{0, 2}}
	ctx := context.Background()
	if _, err := Attack(ctx, adj, &Surrogate{XW: s.XW}, labels, targets, Options{Perturb: PerturbBoth}, nil); err == nil || !strings.Contains(err.Error(), "W = W1·W2") {
		t.Errorf("missing W: %v", err)
	}
	x := s.X.Clone()
	x.Values[3] = 0.5
	if _, err := Attack(ctx, adj, &Surrogate{XW: s.XW, W: s.W, X: x}, labels, targets, Options{Perturb: PerturbFeatures}, nil); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("non-binary X: %v", err)
	}
	if _, err := Attack(ctx, adj, &Surrogate{XW: s.XW, W: s.W, X: x}, labels, targets, Options{}, nil); err != nil {
		t.Errorf("structure mode must not check X: %v", err)
	}
	if _, err := Attack(ctx, adj, s, labels, targets, Options{Perturb: 7}, nil); err == nil {
		t.Error("unknown perturbation accepted")
	}
	for _, name := range PerturbNames {
		p, err := ParsePerturb(name)
		if err != nil || p.String() != name {
			t.Errorf("ParsePerturb(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := ParsePerturb("edges"); err == nil {
		t.Error(`ParsePerturb("edges") accepted`)
	}
}
