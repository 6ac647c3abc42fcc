package attack

import (
	"context"
	"github.com/rgnn/rgnn/data"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// smallProblem is a random graph of n nodes with 3 classes and 8 features.
func smallProblem(t testing.TB, n int, seed uint64) *data.Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var es []tensor.Entry
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < 0.25 {
				es = append(es, tensor.Entry{Row: int32(u), Col: int32(v), Val: 1}, tensor.Entry{Row: int32(v), Col: int32(u), Val: 1})
			}
		}
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	var fs []tensor.Entry
	labels := make([]int32, n)
	for i := 0; i < n; i++ {
		labels[i] = int32(rng.IntN(3))
		for j := 0; j < 8; j++ {
			if rng.Float64() < 0.4 {
				fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(rng.Float64())})
			}
		}
	}
	x, err := tensor.FromCOO(n, 8, fs)
	if err != nil {
		t.Fatal(err)
	}
	idx := rng.Perm(n)
	p := &data.Problem{Name: "small", Adj: adj, Features: x, Labels: labels, NumClasses: 3,
		Train: idx[:n/4], Val: idx[n/4 : n/2], Test: idx[n/2:]}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func randomGCN(t testing.TB, p *data.Problem, seed uint64) model.Model {
	m, err := model.Default(nil).New("gcn", p.Features.Cols, p.NumClasses, model.Options{Seed: seed, Hidden: 6})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, q := range m.Params() {
		for i := range q.Value.Data {
			q.Value.Data[i] = float32(rng.NormFloat64())
		}
	}
	return m
}

// The engine's logits equal the model's forward pass on the weighted graph.
func TestGCNEngineMatchesModel(t *testing.T) {
	p := smallProblem(t, 12, 1)
	m := randomGCN(t, p, 3)
	e, err := NewGCNEngine(m, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	pairs := []Flip{{0, 5}, {1, 2}, {3, 11}, {4, 7}}
	w, err := perturbed(p.Adj, pairs, []float32{0.3, 0.7, 0.2, 0.9}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Evaluate(w, ceLoss, p.Test, p.Labels, false); err != nil {
		t.Fatal(err)
	}
	g, err := m.Preprocess(w, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	want := train.Predict(m, g, autograd.NewSparse(p.Features))
	for i, v := range want.Data {
		if d := math.Abs(float64(v - e.Logits().Data[i])); d > 1e-4*(1+math.Abs(float64(v))) {
			t.Fatalf("logit %d: engine %v, model %v", i, e.Logits().Data[i], v)
		}
	}
}

// Pair gradients (edges and non-edges, PairGrad and ScanPairs) match
// central finite differences of the loss in float64-ish precision.
func TestGCNEnginePairGradFD(t *testing.T) {
	p := smallProblem(t, 10, 2)
	m := randomGCN(t, p, 4)
	e, err := NewGCNEngine(m, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ce", "tanh_margin", "margin"} {
		loss, _ := LossByName(name)
		var all []Flip
		for u := 0; u < 10; u++ {
			for v := u + 1; v < 10; v++ {
				all = append(all, Flip{int32(u), int32(v)})
			}
		}
		base := make([]float32, len(all))
		for i := range base {
			base[i] = 0.5 // weights of 1 − 0.5 or 0.5: every pair present
		}
		w, _ := perturbed(p.Adj, all, base, -1)
		if _, err := e.Evaluate(w, loss, p.Test, p.Labels, true); err != nil {
			t.Fatal(err)
		}
		g := make([]float32, len(all))
		if err := e.PairGrad(all, g); err != nil {
			t.Fatal(err)
		}
		scan := make([]float32, len(all))
		e.ScanPairs(func(u int, s []float32) {
			copy(scan[pairToLinear(10, Flip{int32(u), int32(u + 1)}):], s)
		})
		for i, f := range all {
			if d := math.Abs(float64(scan[i] - g[i])); d > 1e-5+1e-4*math.Abs(float64(g[i])) {
				t.Fatalf("%s pair %v: ScanPairs %v, PairGrad %v", name, f, scan[i], g[i])
			}
			const h = 1e-2
			val := func(delta float32) float64 {
				q := append([]float32(nil), base...)
				q[i] += delta * edgeSign(p.Adj, f)
				w, _ := perturbed(p.Adj, all, q, -1)
				ev, err := e.Evaluate(w, loss, p.Test, p.Labels, false)
				if err != nil {
					t.Fatal(err)
				}
				return ev.Loss
			}
			fd := (val(h) - val(-h)) / (2 * h)
			if math.Abs(fd-float64(g[i])) > 2e-3+2e-2*math.Abs(fd) {
				t.Errorf("%s pair %v: gradient %v, finite difference %v", name, f, g[i], fd)
			}
		}
	}
}

func TestLinearPairIndex(t *testing.T) {
	for _, n := range []int{2, 3, 7, 50} {
		lin := int64(0)
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if got := linearToPair(n, lin); got != (Flip{int32(u), int32(v)}) {
					t.Fatalf("n=%d lin %d: %v, want (%d,%d)", n, lin, got, u, v)
				}
				if pairToLinear(n, Flip{int32(u), int32(v)}) != lin {
					t.Fatalf("n=%d: pairToLinear(%d,%d) != %d", n, u, v, lin)
				}
				lin++
			}
		}
	}
}

func TestBudget(t *testing.T) {
	// cora_ml: 7981 undirected edges → 798 and 1995 flips (reference).
	if Budget(0.1, 7981) != 798 || Budget(0.25, 7981) != 1995 || Budget(0, 7981) != 0 {
		t.Fatalf("budgets %d %d", Budget(0.1, 7981), Budget(0.25, 7981))
	}
}

// Projection: the result lies in [eps, 1−eps], respects the budget up to
// the bisection tolerance, preserves order, and is a no-op clamp when the
// budget is not binding.
func TestProjectBudgetProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 200).Draw(rt, "n")
		p := make([]float32, n)
		for i := range p {
			p[i] = float32(rapid.Float64Range(-2, 3).Draw(rt, "p"))
		}
		budget := rapid.Float64Range(0.5, float64(n)).Draw(rt, "budget")
		orig := append([]float32(nil), p...)
		clampSum := 0.0
		for _, v := range orig {
			clampSum += math.Min(math.Max(float64(v), 0), 1)
		}
		const eps = 1e-7
		ProjectBudget(p, budget, eps)
		sum := 0.0
		for i, v := range p {
			if v < eps || v > 1-eps {
				rt.Fatalf("p[%d] = %v outside [eps, 1−eps]", i, v)
			}
			sum += float64(v)
		}
		if sum > budget+1e-3*float64(n)+float64(n)*eps {
			rt.Fatalf("sum %v > budget %v", sum, budget)
		}
		if clampSum <= budget {
			for i, v := range orig {
				if want := min(max(v, eps), 1-eps); p[i] != want {
					rt.Fatalf("non-binding budget changed p[%d]: %v → %v", i, v, p[i])
				}
			}
		} else if sum < budget-1e-3*float64(n)-1e-3 {
			rt.Fatalf("binding budget: sum %v well below %v", sum, budget)
		}
		for i := range orig {
			for j := range orig {
				if orig[i] < orig[j] && p[i] > p[j] {
					rt.Fatalf("order broken: %v<%v but %v>%v", orig[i], orig[j], p[i], p[j])
				}
			}
		}
	})
}

// Every attack: at most budget flips, pairs u<v, no self loops, no repeats,
// the perturbed graph symmetric with exactly the flips toggled, and the
// same flips for the same seed.
func TestAttacksBookkeeping(t *testing.T) {
	p := smallProblem(t, 24, 5)
	sur := randomGCN(t, p, 6)
	reg := Default()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			if s, _ := reg.Lookup(name); s.Targeted {
				t.Skip("targeted: TestRunTargeted*")
			}
			cfg := Config{Attack: name, Epsilons: []float64{0.1, 0.3}, Seed: 7, Surrogate: sur,
				Options: Options{Epochs: 20, BlockSize: 100}, Victims: []Victim{{Name: "gcn", Model: sur,
					Train: func(context.Context, *tensor.CSR) (model.Model, error) { return sur, nil }}}}
			r1, err := Run(context.Background(), cfg, p)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := Run(context.Background(), cfg, p)
			if err != nil {
				t.Fatal(err)
			}
			m := p.Adj.Nnz() / 2
			for i, b := range r1.Budgets {
				if b.Budget != Budget(cfg.Epsilons[i], m) || len(b.Flips) > b.Budget {
					t.Fatalf("ε=%v: %d flips for budget %d", b.Epsilon, len(b.Flips), b.Budget)
				}
				if err := CheckFlips(b.Flips, p.Adj.Rows, b.Budget); err != nil {
					t.Fatal(err)
				}
				if b.Added+b.Removed != len(b.Flips) {
					t.Fatalf("added %d + removed %d != %d", b.Added, b.Removed, len(b.Flips))
				}
				checkPerturbed(t, p.Adj, b.Adj, b.Flips)
				if len(r2.Budgets[i].Flips) != len(b.Flips) {
					t.Fatalf("not deterministic: %d vs %d flips", len(r2.Budgets[i].Flips), len(b.Flips))
				}
				for k := range b.Flips {
					if r2.Budgets[i].Flips[k] != b.Flips[k] {
						t.Fatalf("not deterministic at flip %d", k)
					}
				}
			}
			if name == "fgsm" || name == "dice" {
				for _, b := range r1.Budgets {
					if len(b.Flips) != b.Budget {
						t.Fatalf("%s: %d flips, want exactly %d", name, len(b.Flips), b.Budget)
					}
				}
			}
			if name == "fgsm" || name == "metattack" { // incremental: the larger budget extends the smaller
				small, big := r1.Budgets[0].Flips, r1.Budgets[1].Flips
				for k := range small {
					if big[k] != small[k] {
						t.Fatalf("fgsm not incremental at %d", k)
					}
				}
			}
		})
	}
}

// checkPerturbed verifies that pert is symmetric, loop-free and differs from
// adj exactly on the flipped pairs.
func checkPerturbed(t *testing.T, adj, pert *tensor.CSR, flips []Flip) {
	t.Helper()
	n := adj.Rows
	flipped := map[Flip]bool{}
	for _, f := range flips {
		flipped[f] = true
	}
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			a, b := hasEdge(adj, u, v), hasEdge(pert, u, v)
			if u == v && b {
				t.Fatalf("self loop at %d", u)
			}
			if b != hasEdge(pert, v, u) {
				t.Fatalf("perturbed graph not symmetric at (%d,%d)", u, v)
			}
			if u < v && (a != b) != flipped[Flip{int32(u), int32(v)}] {
				t.Fatalf("pair (%d,%d): clean %v perturbed %v flipped %v", u, v, a, b, flipped[Flip{int32(u), int32(v)}])
			}
		}
	}
}

func TestCheckFlipsRejects(t *testing.T) {
	for _, f := range [][]Flip{{{1, 1}}, {{2, 1}}, {{0, 1}, {0, 1}}, {{0, 9}}} {
		if err := CheckFlips(f, 5, -1); err == nil {
			t.Errorf("%v accepted", f)
		}
	}
	if err := CheckFlips([]Flip{{0, 1}, {0, 2}}, 5, 1); err == nil {
		t.Error("over budget accepted")
	}
}

// Attacks lower the attacked model's loss-relevant accuracy on average: a
// sanity check that the gradient sign is right.
func TestGradientAttacksHurt(t *testing.T) {
	p := smallProblem(t, 40, 9)
	sur := randomGCN(t, p, 10)
	for _, name := range []string{"fgsm", "pgd", "prbcd", "grbcd"} {
		r, err := Run(context.Background(), Config{Attack: name, Epsilons: []float64{0.2}, Seed: 1, Surrogate: sur,
			Options: Options{Epochs: 30, BlockSize: 400}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Budgets[0].AttackedAccuracy > r.AttackedClean {
			t.Errorf("%s: accuracy rose from %v to %v", name, r.AttackedClean, r.Budgets[0].AttackedAccuracy)
		}
	}
}

// The row-streamed block gradient equals PairGrad.
func TestPairGraderScanPath(t *testing.T) {
	p := smallProblem(t, 30, 11)
	e, err := NewGCNEngine(randomGCN(t, p, 12), p.Features)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Evaluate(p.Adj, ceLoss, p.Test, p.Labels, true); err != nil {
		t.Fatal(err)
	}
	b := newBlock(p.Adj)
	b.fill(newRNG(1, 1), 200)
	want, got := make([]float32, len(b.pairs)), make([]float32, len(b.pairs))
	if err := e.PairGrad(b.pairs, want); err != nil {
		t.Fatal(err)
	}
	pg := newPairGrader(e, 30, numPairs(30))
	if err := pg.grad(b.pairs, got); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(float64(want[i]-got[i])) > 1e-6+1e-5*math.Abs(float64(want[i])) {
			t.Fatalf("pair %v: scan %v, PairGrad %v", b.pairs[i], got[i], want[i])
		}
	}
}

func TestRowsToCSRMatchesFromCOO(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "n")
		m := rapid.IntRange(0, 60).Draw(rt, "m")
		es := make([]tensor.Entry, m)
		for i := range es {
			es[i] = tensor.Entry{Row: int32(rapid.IntRange(0, n-1).Draw(rt, "r")), Col: int32(rapid.IntRange(0, n-1).Draw(rt, "c")),
				Val: float32(rapid.IntRange(-3, 3).Draw(rt, "v"))}
		}
		want, err := tensor.FromCOO(n, n, es)
		if err != nil {
			rt.Fatal(err)
		}
		got := rowsToCSR(n, es)
		if !slices.Equal(want.Indptr, got.Indptr) || !slices.Equal(want.Indices, got.Indices) || !slices.Equal(want.Values, got.Values) {
			rt.Fatalf("rowsToCSR %+v, FromCOO %+v", got, want)
		}
	})
}

func TestKthLargest(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 50).Draw(rt, "n")
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rapid.IntRange(0, 6).Draw(rt, "v"))
		}
		k := rapid.IntRange(1, n).Draw(rt, "k")
		s := slices.Clone(v)
		slices.Sort(s)
		if got, want := graph.KthLargest(slices.Clone(v), k), s[n-k]; got != want {
			rt.Fatalf("KthLargest(%v, %d) = %v, want %v", v, k, got, want)
		}
	})
}

// PR-BCD's greedy refinement keeps the bookkeeping (budget, no repeated
// pairs, determinism) and never leaves the attacked model more accurate
// than the unrefined result; the fill step spends the whole budget.
func TestPRBCDRefine(t *testing.T) {
	p := smallProblem(t, 40, 11)
	sur := randomGCN(t, p, 12)
	run := func(refine int) *Result {
		r, err := Run(context.Background(), Config{Attack: "prbcd", Epsilons: []float64{0.15}, Seed: 3, Surrogate: sur,
			Options: Options{Epochs: 30, BlockSize: 300, Refine: refine}}, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base, ref, again := run(0), run(10), run(10)
	b, r := base.Budgets[0], ref.Budgets[0]
	if err := CheckFlips(r.Flips, p.Adj.Rows, r.Budget); err != nil {
		t.Fatal(err)
	}
	checkPerturbed(t, p.Adj, r.Adj, r.Flips)
	if len(r.Flips) != len(b.Flips) {
		t.Fatalf("refinement changed the number of flips: %d → %d", len(b.Flips), len(r.Flips))
	}
	if r.AttackedAccuracy > b.AttackedAccuracy {
		t.Fatalf("refinement raised the accuracy: %v → %v", b.AttackedAccuracy, r.AttackedAccuracy)
	}
	if !slices.Equal(again.Budgets[0].Flips, r.Flips) {
		t.Fatal("refinement not deterministic")
	}
	t.Logf("flips %d/%d, accuracy %.4f → %.4f", len(r.Flips), r.Budget, b.AttackedAccuracy, r.AttackedAccuracy)
}

// --refine against a model behind the tape engine (no gradients for pairs
// outside the block's structure) is an error naming the model, not a
// silently unrefined result.
func TestPRBCDRefineNeedsAnyPair(t *testing.T) {
	p := smallProblem(t, 30, 5)
	m := mustModel(t, "sm_gcn", p)
	_, err := Run(context.Background(), Config{Attack: "prbcd", Epsilons: []float64{0.1}, Seed: 1, Adaptive: true,
		Options: Options{Epochs: 10, BlockSize: 30, Refine: 5}, Victims: []Victim{{Name: "sm_gcn", Model: m}}}, p)
	if err == nil || !strings.Contains(err.Error(), "sm_gcn") || !strings.Contains(err.Error(), "tape engine") {
		t.Fatalf("refine with the tape engine: %v", err)
	}
}

// topK gives the same order (largest first, ties by lower index) on both
// of its paths (selection for k ≤ 64, stable sort above).
func TestTopKOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 200).Draw(rt, "n")
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rapid.IntRange(-3, 3).Draw(rt, "x"))
		}
		k := rapid.IntRange(1, n).Draw(rt, "k")
		var want []int
		taken := make([]bool, n)
		for len(want) < k {
			bi := -1
			for i, v := range x {
				if !taken[i] && (bi < 0 || v > x[bi]) {
					bi = i
				}
			}
			taken[bi] = true
			want = append(want, bi)
		}
		if got := topK(x, k); !slices.Equal(got, want) {
			rt.Fatalf("topK(%v, %d) = %v, want %v", x, k, got, want)
		}
	})
}

// Run and RunTargeted reject an unknown attack name with the known ones,
// from the default registry when the config has none.
func TestUnknownAttack(t *testing.T) {
	p := smallProblem(t, 20, 1)
	_, err := Run(context.Background(), Config{Attack: "nope", Epsilons: []float64{0.1}}, p)
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "prbcd") {
		t.Fatalf("Run: %v", err)
	}
	_, err = RunTargeted(context.Background(), TargetedConfig{Attack: "nope"}, p)
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "nettack") {
		t.Fatalf("RunTargeted: %v", err)
	}
}
