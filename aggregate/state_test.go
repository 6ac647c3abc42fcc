package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// raggedGraph is an n×n weighted matrix whose rows have 0 to 2k entries
// (every fifth row fewer than 3, a few empty), weights in (0.1, 1.1) with
// some exact ties, so the top-k sees short, full and overfull rows.
func raggedGraph(rng *rand.Rand, n, k int) *tensor.CSR {
	var es []tensor.Entry
	for i := range n {
		deg := rng.IntN(2*k + 1)
		if i%5 == 0 {
			deg = rng.IntN(3)
		}
		for _, j := range rng.Perm(n)[:min(deg, n)] {
			v := float32(0.1 + rng.Float64())
			if rng.IntN(4) == 0 {
				v = 0.5 // ties in the top-k
			}
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: v})
		}
	}
	a, _ := tensor.FromCOO(n, n, es)
	return a
}

// levelOf reports what agg's last forward pass kept.
func levelOf(agg Aggregator) keepLevel {
	switch m := agg.(type) {
	case *SoftKMedoid:
		return m.st.level
	case *SoftMedian:
		return m.st.level
	}
	panic("no keep level")
}

// passResult is one forward + backward: out, ∂x and ∂(edge values).
type passResult struct{ out, gx, gv []float32 }

func runPass(agg Aggregator, lone bool, a *tensor.CSR, x, g *tensor.Dense) passResult {
	out := tensor.NewDense(a.Rows, x.Cols)
	gx := tensor.NewDense(x.Rows, x.Cols)
	gv := make([]float32, a.Nnz())
	var st any
	if lone {
		st = agg.Forward(a, x, out)
	} else {
		st = forwardForBackward(agg, a, x, out)
	}
	agg.Backward(st, g, gx, gv)
	return passResult{out.Data, gx.Data, gv}
}

func sameBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestKeepLevelsBitIdentical: whatever a forward pass keeps for Backward
// (everything, the per-entry state, or only O(rows) scalars with Backward
// recomputing each row), the outputs and both gradients are the same bits —
// for the Soft Medoid (all normalisations) and the Soft Median, on ragged
// rows (empty, fewer than k, more than k), k and d multiples of 16 or not,
// d below 16, and at GOMAXPROCS 1 and 2.
func TestKeepLevelsBitIdentical(t *testing.T) {
	type aggCase struct {
		name string
		o    Options
	}
	shapes := []struct{ n, k, d int }{
		{60, 5, 3}, {80, 20, 7}, {70, 37, 16}, {90, 32, 33}, {140, 64, 64}, {100, 16, 15},
	}
	for _, sh := range shapes {
		aggs := []aggCase{
			{"soft_k_medoid", Options{K: sh.k, Temperature: 0.7}},
			{"soft_k_medoid", Options{K: sh.k, Temperature: 2, Normalization: "alt"}},
			{"soft_k_medoid", Options{K: sh.k, Temperature: 1, NoWeightCorrection: true}},
			{"soft_median", Options{Temperature: 0.5}},
		}
		rng := rand.New(rand.NewPCG(uint64(sh.n), uint64(sh.d)))
		a := raggedGraph(rng, sh.n, sh.k)
		x, g := randX(rng, sh.n, sh.d), randX(rng, sh.n, sh.d)
		for _, ac := range aggs {
			name := fmt.Sprintf("%s%+v/n%d_k%d_d%d", ac.name, ac.o, sh.n, sh.k, sh.d)
			o := ac.o
			o.MaxStateBytes = -1
			full, _ := New(ac.name, o)
			want := runPass(full, false, a, x, g)
			wantLevel := keepEntries
			if ac.name == "soft_k_medoid" && sh.d >= smallD {
				wantLevel = keepAll
			}
			if l := levelOf(full); l != wantLevel {
				t.Fatalf("%s: unbounded ForwardForBackward kept level %d, want %d", name, l, wantLevel)
			}
			for _, tc := range []struct {
				budget int64
				lone   bool
				procs  int
				level  keepLevel
			}{
				{1, false, 2, keepRows},      // nothing fits: recompute every row
				{1, false, 1, keepRows},      // the same on one core
				{-1, true, 2, keepRows},      // a lone Forward keeps nothing
				{1 << 24, false, 2, keepAll}, // distances fit
			} {
				if tc.level == keepAll && wantLevel != keepAll {
					continue
				}
				o.MaxStateBytes = tc.budget
				agg, _ := New(ac.name, o)
				old := runtime.GOMAXPROCS(tc.procs)
				got := runPass(agg, tc.lone, a, x, g)
				// A second pass on the same aggregator reuses its buffers.
				again := runPass(agg, tc.lone, a, x, g)
				runtime.GOMAXPROCS(old)
				if l := levelOf(agg); l != tc.level {
					t.Fatalf("%s budget %d: kept level %d, want %d", name, tc.budget, l, tc.level)
				}
				for _, p := range []passResult{got, again} {
					for _, part := range []struct {
						what      string
						got, want []float32
					}{{"out", p.out, want.out}, {"∂x", p.gx, want.gx}, {"∂A", p.gv, want.gv}} {
						if i := sameBits(part.got, part.want); i >= 0 {
							t.Fatalf("%s budget %d lone %v procs %d: %s[%d] = %v, want %v",
								name, tc.budget, tc.lone, tc.procs, part.what, i, part.got[i], part.want[i])
						}
					}
				}
			}
		}
	}
}

// TestKeepLevelBudget: the Soft Medoid keeps its per-entry state but not
// its distances when only the former fits, and the level is chosen per
// call from the budget.
func TestKeepLevelBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := randGraph(rng, 200, 40) // ~41 entries per row, k = 32
	x, g := randX(rng, 200, 16), randX(rng, 200, 16)
	var entries, pairs int64
	for r := range a.Rows {
		nk := int64(min(32, a.Indptr[r+1]-a.Indptr[r]))
		entries += nk
		pairs += nk * nk
	}
	for _, tc := range []struct {
		budget int64
		want   keepLevel
	}{
		{24*entries - 1, keepRows},
		{24 * entries, keepEntries},
		{24*entries + 4*pairs - 1, keepEntries},
		{24*entries + 4*pairs, keepAll},
		{0, keepAll}, // the default bound
		{-1, keepAll},
	} {
		agg, _ := New("soft_k_medoid", Options{K: 32, MaxStateBytes: tc.budget})
		runPass(agg, false, a, x, g)
		if l := levelOf(agg); l != tc.want {
			t.Errorf("budget %d: level %d, want %d", tc.budget, l, tc.want)
		}
	}
	if got := chooseKeep(keepAll, 0, [...]int64{0, DefaultMaxStateBytes, DefaultMaxStateBytes + 1}); got != keepEntries {
		t.Errorf("default budget: level %d, want keepEntries", got)
	}
}
