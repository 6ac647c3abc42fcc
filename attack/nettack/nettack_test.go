package nettack

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// randomGraph returns a connected random symmetric graph (a path plus
// random extra edges) and a random XW.
func randomGraph(t testing.TB, n, extra, c int, seed uint64) (*tensor.CSR, *Surrogate) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	set := map[[2]int]bool{}
	for i := 1; i < n; i++ {
		set[[2]int{i - 1, i}] = true
	}
	for len(set) < n-1+extra {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			set[[2]int{min(a, b), max(a, b)}] = true
		}
	}
	var es []tensor.Entry
	for p := range set {
		es = append(es, tensor.Entry{Row: int32(p[0]), Col: int32(p[1]), Val: 1}, tensor.Entry{Row: int32(p[1]), Col: int32(p[0]), Val: 1})
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	xw := tensor.NewDense(n, c)
	for i := range xw.Data {
		xw.Data[i] = float32(rng.NormFloat64())
	}
	return adj, &Surrogate{XW: xw}
}

// TestClosedFormLogits checks the closed-form new logits of u against
// Â'²·XW computed from scratch on the flipped graph, for every candidate
// pair, after a few flips are already applied.
func TestClosedFormLogits(t *testing.T) {
	adj, s := randomGraph(t, 12, 10, 3, 7)
	b := newBase(adj, s.XW)
	for _, u := range []int{0, 5, 11} {
		st := b.targetState(false)
		sc := newScratch(b.c)
		var applied [][2]int
		for step := 0; step < 3; step++ {
			cur, err := graph.FlipEdges(adj, applied)
			if err != nil {
				t.Fatal(err)
			}
			want0 := s.Logits(cur)
			got0 := st.logitsAfterNone(u, sc)
			for i := range got0 {
				if math.Abs(got0[i]-float64(want0.At(u, i))) > 1e-5 {
					t.Fatalf("u=%d step %d: current logits %v, want row %v", u, step, got0, want0.Row(u))
				}
			}
			for a := 0; a < b.n; a++ {
				for v := a + 1; v < b.n; v++ {
					if st.flipped[key(a, v)] {
						continue
					}
					next, err := graph.FlipEdges(adj, append(append([][2]int{}, applied...), [2]int{a, v}))
					if err != nil {
						t.Fatal(err)
					}
					want := s.Logits(next)
					got := st.logitsAfter(u, a, v, sc)
					for i := range got {
						if math.Abs(got[i]-float64(want.At(u, i))) > 1e-5 {
							t.Fatalf("u=%d step %d flip (%d,%d): logits %v, want %v", u, step, a, v, got, want.Row(u))
						}
					}
				}
			}
			// apply a flip incident to u and one elsewhere
			p := [2]int{min(u, (u+step+3)%b.n), max(u, (u+step+3)%b.n)}
			st.apply(p[0], p[1])
			applied = append(applied, p)
		}
	}
}

// TestLikelihoodRatioHand checks Λ against values computed by hand (with
// Python's math module, formulas of Nettack eqs. 6–8) for a star-plus-path
// graph before and after adding one edge.
func TestLikelihoodRatioHand(t *testing.T) {
	orig := []int{3, 2, 2, 2, 1, 4}
	// n = 5, S_d = log 3 + 3 log 2 + log 4 = log 96
	p := newPowerLaw(orig)
	if p.n != 5 || math.Abs(p.sd-math.Log(96)) > 1e-12 {
		t.Fatalf("stats n=%v S_d=%v, want 5, log 96", p.n, p.sd)
	}
	// α = 1 + 5/(log 96 − 5 log 1.5) = 2.9101166...
	wantAlpha := 1 + 5/(math.Log(96)-5*math.Log(1.5))
	if math.Abs(p.alpha()-wantAlpha) > 1e-12 || math.Abs(wantAlpha-2.9708140950862334) > 1e-12 {
		t.Fatalf("alpha %v, want %v (Python: 2.9708140950862334)", p.alpha(), wantAlpha)
	}
	// l = 5 log α + 5 α log 2 − (α+1) log 96
	wantLL := 5*math.Log(wantAlpha) + 5*wantAlpha*math.Log(2) - (wantAlpha+1)*math.Log(96)
	if math.Abs(p.logLik()-wantLL) > 1e-9 {
		t.Fatalf("loglik %v, want %v", p.logLik(), wantLL)
	}
	// add edge (4, 5): degrees 1→2, 4→5
	newDeg := []int{3, 2, 2, 2, 2, 5}
	q := p.update(1, 4, +1)
	if r := newPowerLaw(newDeg); math.Abs(q.n-r.n) > 0 || math.Abs(q.sd-r.sd) > 1e-12 {
		t.Fatalf("incremental update %+v, from scratch %+v", q, r)
	}
	got := LikelihoodRatio(orig, newDeg)
	// Hand value (independent evaluation of −2 l(comb) + 2(l(new) + l(orig))).
	ll := func(n, sd float64) float64 {
		a := 1 + n/(sd-n*math.Log(1.5))
		return n*math.Log(a) + n*a*math.Log(2) - (a+1)*sd
	}
	sdNew := math.Log(3 * 2 * 2 * 2 * 2 * 5.0)
	want := -2*ll(11, math.Log(96)+sdNew) + 2*(ll(6, sdNew)+ll(5, math.Log(96)))
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("Λ = %v, want %v", got, want)
	}
	// Python (math module): 6.948194453570977e-06 — passes the 0.004 cutoff.
	if math.Abs(got-6.948194453570977e-06) > 1e-9 {
		t.Fatalf("Λ = %v, Python value 6.948194453570977e-06", got)
	}
	// A hub appearing fails the test: Python gives 1.6900149952243524.
	if l := LikelihoodRatio(orig, []int{3, 2, 2, 2, 1, 40}); math.Abs(l-1.6900149952243524) > 1e-9 || l < DefaultLLCutoff {
		t.Fatalf("Λ(hub) = %v, Python value %v (must fail the cutoff)", l, 1.6900149952243524)
	}
	// The nettack repository's variant (+(α+1)·S_d); Python: 1.793705257568945e-05.
	if l := (Options{RepoLogLikelihood: true}).ratio(newPowerLaw(orig), newPowerLaw(newDeg)); math.Abs(l-1.793705257568945e-05) > 1e-9 {
		t.Fatalf("repository Λ = %v, Python value 1.793705257568945e-05", l)
	}
	if l := LikelihoodRatioRepo(orig, newDeg); math.Abs(l-1.793705257568945e-05) > 1e-9 {
		t.Fatalf("LikelihoodRatioRepo = %v, Python value 1.793705257568945e-05", l)
	}
	if LikelihoodRatio(orig, orig) > 1e-9 {
		t.Fatalf("Λ of identical sequences = %v, want 0", LikelihoodRatio(orig, orig))
	}
}

func TestBudgets(t *testing.T) {
	if BudgetDegreePlus2(5) != 7 {
		t.Error("deg+2")
	}
	for _, c := range []struct {
		deg  int
		eps  float64
		want int
	}{{5, 0.1, 0}, {5, 0.5, 2}, {15, 0.1, 2}, {10, 0.25, 2}, {6, 0.25, 2}, {3, 0.5, 2}, {7, 1, 7}} {
		if got := BudgetFraction(c.deg, c.eps); got != c.want {
			t.Errorf("BudgetFraction(%d, %g) = %d, want %d", c.deg, c.eps, got, c.want)
		}
	}
	if MinDegreeFor([]float64{0.1, 0.25, 1}) != 10 || MinDegreeFor(nil) != 1 {
		t.Error("MinDegreeFor")
	}
}

// TestAttackSmallGraph runs the attack on a small random graph: budgets are
// respected, no singleton appears, the surrogate margin drops, and the
// result is identical for 1 and 2 workers.
func TestAttackSmallGraph(t *testing.T) {
	adj, s := randomGraph(t, 40, 30, 3, 3)
	labels := make([]int32, 40)
	z := s.Logits(adj)
	for i := range labels {
		labels[i] = int32(z.ArgmaxRow(i))
	}
	var targets []Target
	deg := graph.Degrees(adj)
	for u := 0; u < 40; u += 3 {
		targets = append(targets, Target{Node: u, Budget: BudgetDegreePlus2(deg[u])})
	}
	for _, infl := range []int{0, 2} {
		dropped := 0
		r1, err := Attack(context.Background(), adj, s, labels, targets, Options{Workers: 1, Influencers: infl}, nil)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		r2, err := Attack(context.Background(), adj, s, labels, targets, Options{Workers: 2, Influencers: infl}, func(done, total int) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r1, r2) || calls != len(targets) {
			t.Fatalf("influencers=%d: results differ between 1 and 2 workers (progress calls %d)", infl, calls)
		}
		for _, r := range r1 {
			if len(r.Flips) > r.Budget {
				t.Errorf("node %d: %d flips for budget %d", r.Node, len(r.Flips), r.Budget)
			}
			if r.SurrogateAfter < r.SurrogateBefore {
				dropped++
			}
			p, err := Perturbed(adj, r)
			if err != nil {
				t.Fatal(err)
			}
			for v, d := range graph.Degrees(p) {
				if d == 0 {
					t.Errorf("node %d: attack left node %d a singleton", r.Node, v)
				}
			}
			if got := ProbMargins(s.Logits(p), labels); false && got[r.Node] > 0 {
				t.Log(got)
			}
			// the reported surrogate margin equals the recomputed one
			zz := s.Logits(p).Row(r.Node)
			zf := make([]float64, len(zz))
			for i, v := range zz {
				zf[i] = float64(v)
			}
			if m := margin(zf, int(labels[r.Node])); math.Abs(m-r.SurrogateAfter) > 1e-4 {
				t.Errorf("node %d: reported surrogate margin %g, recomputed %g", r.Node, r.SurrogateAfter, m)
			}
			if infl > 0 {
				for _, f := range r.Flips {
					if f[0] == r.Node || f[1] == r.Node {
						t.Errorf("influencer attack on %d flipped an incident pair %v", r.Node, f)
					}
				}
			}
		}
		if 2*dropped < len(r1) {
			t.Errorf("influencers=%d: surrogate margin dropped for only %d of %d targets", infl, dropped, len(r1))
		}
	}
}

// TestLLFilter checks that every applied flip passes the likelihood test
// against the original degree sequence.
func TestLLFilter(t *testing.T) {
	adj, s := randomGraph(t, 60, 80, 3, 11)
	labels := make([]int32, 60)
	deg := graph.Degrees(adj)
	rs, err := Attack(context.Background(), adj, s, labels, []Target{{Node: 4, Budget: 10}, {Node: 30, Budget: 10}}, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		var applied [][2]int
		for _, f := range r.Flips {
			applied = append(applied, f)
			p, err := graph.FlipEdges(adj, applied)
			if err != nil {
				t.Fatal(err)
			}
			if l := LikelihoodRatio(deg, graph.Degrees(p)); l >= DefaultLLCutoff {
				t.Errorf("node %d: after %v Λ = %g ≥ cutoff", r.Node, applied, l)
			}
		}
	}
}

// TestDirectFastPath checks the O(C + deg) direct scoring against the
// general closed form: identical flips and margins.
func TestDirectFastPath(t *testing.T) {
	adj, s := randomGraph(t, 50, 60, 4, 5)
	z := s.Logits(adj)
	labels := make([]int32, 50)
	for i := range labels {
		labels[i] = int32(z.ArgmaxRow(i))
	}
	var targets []Target
	for u := 0; u < 50; u += 2 {
		targets = append(targets, Target{Node: u, Budget: 6})
	}
	fast, err := Attack(context.Background(), adj, s, labels, targets, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := Attack(context.Background(), adj, s, labels, targets, Options{generic: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fast {
		if !reflect.DeepEqual(fast[i].Flips, slow[i].Flips) || math.Abs(fast[i].SurrogateAfter-slow[i].SurrogateAfter) > 1e-9 {
			t.Errorf("node %d: fast %v (%g), general %v (%g)", fast[i].Node, fast[i].Flips, fast[i].SurrogateAfter, slow[i].Flips, slow[i].SurrogateAfter)
		}
	}
}

func TestAttackErrors(t *testing.T) {
	adj, s := randomGraph(t, 10, 5, 2, 1)
	labels := make([]int32, 10)
	if _, err := Attack(context.Background(), adj, s, labels, []Target{{Node: 10, Budget: 1}}, Options{}, nil); err == nil {
		t.Error("out-of-range target accepted")
	}
	if _, err := Attack(context.Background(), adj, s, labels[:3], nil, Options{}, nil); err == nil {
		t.Error("short labels accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Attack(ctx, adj, s, labels, []Target{{Node: 1, Budget: 3}}, Options{}, nil); err == nil {
		t.Error("cancelled context not reported")
	}
}

func TestSelectTargets(t *testing.T) {
	adj, _ := randomGraph(t, 80, 60, 2, 4)
	deg := graph.Degrees(adj)
	margins := make([]float64, 80)
	idx := make([]int, 0, 80)
	for i := range margins {
		margins[i] = math.Sin(float64(i)) // about half negative (misclassified)
		idx = append(idx, i)
	}
	o := SelectOptions{Top: 3, Bottom: 3, Random: 4, MinDegree: 2, Seed: 1}
	got, err := SelectTargets(adj, margins, idx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Fatalf("%d targets, want 10", len(got))
	}
	seen := map[int]bool{}
	for k, v := range got {
		if seen[v] || margins[v] <= 0 || deg[v] < 2 {
			t.Errorf("target %d: node %d (margin %g, degree %d) duplicate or ineligible", k, v, margins[v], deg[v])
		}
		seen[v] = true
	}
	for _, v := range idx {
		if margins[v] > 0 && deg[v] >= 2 && !seen[v] {
			if margins[v] > margins[got[2]] || margins[v] < margins[got[5]] {
				t.Errorf("node %d (margin %g) should be among the top or bottom", v, margins[v])
			}
		}
	}
	again, _ := SelectTargets(adj, margins, idx, o)
	if !reflect.DeepEqual(got, again) {
		t.Error("selection not deterministic for a seed")
	}
	if _, err := SelectTargets(adj, margins, idx[:5], o); err == nil {
		t.Error("too few eligible nodes accepted")
	}
	if s := Summarize([]float64{0.5, -0.2, -0.1, 0.2}); s.FailureRate != 0.5 || math.Abs(s.MeanMargin-0.1) > 1e-12 {
		t.Errorf("Summarize = %+v", s)
	}
	pm := ProbMargins(tensor.NewDense(1, 3), []int32{0})
	if pm[0] != 0 {
		t.Errorf("uniform probabilities: margin %g, want 0", pm[0])
	}
}
