package attack

import (
	"math"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
	"pgregory.net/rapid"
)

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
	// The first and the last pair of every row of cora_ml-, arXiv- and
	// Products-sized graphs (where the floating-point estimate of the row
	// is only a starting point).
	for _, n := range []int{2810, 169_343, 2_449_029} {
		for u := 0; u < n-1; u += 1 + u/1000 {
			for _, v := range []int{u + 1, n - 1} {
				f := Flip{int32(u), int32(v)}
				if got := linearToPair(n, pairToLinear(n, f)); got != f {
					t.Fatalf("n=%d: linearToPair(pairToLinear(%v)) = %v", n, f, got)
				}
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
