package graph_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// walkPPR is row src of the walk PPR α(I − (1−α)P)⁻¹, P = D̃⁻¹(A+I), by
// power iteration to 1e-13 in the 1-norm, float64. If mod is not nil, row
// src of P is replaced by mod (a dense row).
func walkPPR(t testing.TB, a *tensor.CSR, src int, alpha float64, mod []float64) []float64 {
	t.Helper()
	n := a.Rows
	deg := make([]float64, n)
	for j := range n {
		d := 1.0
		lo, hi := a.RowRange(j)
		for _, v := range a.Values[lo:hi] {
			d += float64(v)
		}
		deg[j] = d
	}
	x, y := make([]float64, n), make([]float64, n)
	x[src] = 1
	for it := 0; it < 5000; it++ {
		clear(y)
		y[src] = alpha
		for j, xj := range x {
			if xj == 0 {
				continue
			}
			f := (1 - alpha) * xj
			if j == src && mod != nil {
				for l, r := range mod {
					y[l] += f * r
				}
				continue
			}
			y[j] += f / deg[j]
			lo, hi := a.RowRange(j)
			for k := lo; k < hi; k++ {
				y[a.Indices[k]] += f * float64(a.Values[k]) / deg[j]
			}
		}
		var d float64
		for l := range x {
			d += math.Abs(y[l] - x[l])
		}
		x, y = y, x
		if d < 1e-13 {
			return x
		}
	}
	t.Fatal("power iteration did not converge")
	return nil
}

// localCase is a target with a weighted change of its row: some of its
// edges lowered towards 0, some non-edges raised, at random.
type localCase struct {
	i int
	v []int32
	w []float64
}

func randomChange(a *tensor.CSR, i, removes, adds int, rng *rand.Rand) localCase {
	c := localCase{i: i}
	lo, hi := a.RowRange(i)
	nb := slices.Clone(a.Indices[lo:hi])
	rng.Shuffle(len(nb), func(x, y int) { nb[x], nb[y] = nb[y], nb[x] })
	for _, v := range nb[:min(removes, len(nb))] {
		c.v, c.w = append(c.v, v), append(c.w, rng.Float64())
	}
	for len(c.v) < min(removes, len(nb))+adds {
		v := int32(rng.IntN(a.Rows))
		if int(v) == i || slices.Contains(c.v, v) || slices.Contains(nb, v) {
			continue
		}
		c.v, c.w = append(c.v, v), append(c.w, rng.Float64())
	}
	return c
}

// modifiedRow is row i of D̃′⁻¹Â′ with the case's weights, dense.
func modifiedRow(a *tensor.CSR, c localCase) []float64 {
	row := make([]float64, a.Rows)
	row[c.i] = 1
	lo, hi := a.RowRange(c.i)
	for k := lo; k < hi; k++ {
		row[a.Indices[k]] += float64(a.Values[k])
	}
	for k, v := range c.v {
		row[v] = c.w[k]
	}
	var d float64
	for _, x := range row {
		d += x
	}
	for l := range row {
		row[l] /= d
	}
	return row
}

// exactRows are the exact walk-PPR rows of the nodes a local update of c
// reads (i, its neighbours, the changed pairs), the other rows empty.
func exactRows(t testing.TB, a *tensor.CSR, c localCase, alpha float64) *graph.PPRRows {
	need := []int{c.i}
	lo, hi := a.RowRange(c.i)
	for _, v := range a.Indices[lo:hi] {
		need = append(need, int(v))
	}
	for _, v := range c.v {
		need = append(need, int(v))
	}
	slices.Sort(need)
	need = slices.Compact(need)
	var es []tensor.Entry
	for _, j := range need {
		for l, x := range walkPPR(t, a, j, alpha, nil) {
			if x != 0 {
				es = append(es, tensor.Entry{Row: int32(j), Col: int32(l), Val: float32(x)})
			}
		}
	}
	m, err := tensor.FromCOO(a.Rows, a.Rows, es)
	if err != nil {
		t.Fatal(err)
	}
	return &graph.PPRRows{M: m}
}

func denseRow(n int, cols []int32, vals []float64) []float64 {
	out := make([]float64, n)
	for k, c := range cols {
		out[c] += vals[k]
	}
	return out
}

// TestLocalPPRExact: with exact clean rows, the Sherman–Morrison update
// equals the PPR of the walk whose row i is the new one, by power
// iteration (float32 storage of the rows is the only error).
func TestLocalPPRExact(t *testing.T) {
	const alpha = 0.15
	graphs := map[string]*tensor.CSR{"power-law": powerLawGraph(t, 300, 1200, 1)}
	if !testing.Short() {
		graphs["cora_ml"] = dataset(t, "cora_ml").Adj
	}
	for name, a := range graphs {
		rng := rand.New(rand.NewPCG(7, 7))
		deg := graph.Degrees(a)
		for trial := 0; trial < 4; trial++ {
			i := rng.IntN(a.Rows)
			for deg[i] < 3 {
				i = rng.IntN(a.Rows)
			}
			c := randomChange(a, i, 2, 5+trial, rng)
			l, err := graph.NewLocalPPR(a, exactRows(t, a, c, alpha), alpha)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Update(c.i, c.v, c.w); err != nil {
				t.Fatal(err)
			}
			cols, vals := l.Row(nil, nil)
			got := denseRow(a.Rows, cols, vals)
			want := walkPPR(t, a, c.i, alpha, modifiedRow(a, c))
			var l1, mx float64
			for v := range want {
				d := math.Abs(got[v] - want[v])
				l1 += d
				mx = max(mx, d)
			}
			if l1 > 2e-6 || mx > 2e-7 {
				t.Errorf("%s target %d: ‖π′ − exact‖₁ = %.3g, max %.3g", name, i, l1, mx)
			}
			if b := l.ErrorBound(); !(b < 1e-5) {
				t.Errorf("%s target %d: bound %g with exact rows", name, i, b)
			}
		}
	}
}

// TestLocalPPRTopKBound: with the push's top-k rows (TopKPPRScaled,
// WalkRows) the update's 1-norm error against the exact update stays
// within ErrorBound; the test logs how tight the bound is.
func TestLocalPPRTopKBound(t *testing.T) {
	const alpha = 0.15
	graphs := map[string]*tensor.CSR{"power-law": powerLawGraph(t, 2000, 10000, 2)}
	if !testing.Short() {
		graphs["cora_ml"] = dataset(t, "cora_ml").Adj
	}
	for name, a := range graphs {
		for _, k := range []int{16, 64} {
			pi, sums, err := graph.TopKPPRScaled(a, nil, alpha, 1e-5, k, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := graph.WalkRows(a, pi, sums)
			if err != nil {
				t.Fatal(err)
			}
			l, err := graph.NewLocalPPR(a, rows, alpha)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(8, uint64(k)))
			deg := graph.Degrees(a)
			var worst, worstErr, worstBound float64
			for trial := 0; trial < 5; trial++ {
				i := rng.IntN(a.Rows)
				for deg[i] < 2 {
					i = rng.IntN(a.Rows)
				}
				c := randomChange(a, i, 1, 10, rng)
				if err := l.Update(c.i, c.v, c.w); err != nil {
					t.Fatal(err)
				}
				cols, vals := l.Row(nil, nil)
				got := denseRow(a.Rows, cols, vals)
				want := walkPPR(t, a, c.i, alpha, modifiedRow(a, c))
				var l1 float64
				for v := range want {
					l1 += math.Abs(got[v] - want[v])
				}
				b := l.ErrorBound()
				if !(l1 <= b*(1+1e-6)+1e-6) {
					t.Errorf("%s k=%d target %d: error %.4g above the bound %.4g", name, k, i, l1, b)
				}
				worst = max(worst, l1/b)
				worstErr, worstBound = max(worstErr, l1), max(worstBound, b)
			}
			t.Logf("%s k=%d: largest error/bound %.3f; largest error %.3g, largest bound %.3g", name, k, worst, worstErr, worstBound)
		}
	}
}

// TestLocalPPRNoChange: pairs at their clean weights leave the row as it
// was, and TopK returns the top-k PPR row of TopKPPR.
func TestLocalPPRNoChange(t *testing.T) {
	a := powerLawGraph(t, 500, 2500, 3)
	pi, sums, err := graph.TopKPPRScaled(a, nil, 0.15, 1e-4, 32, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := graph.TopKPPR(a, nil, 0.15, 1e-4, 32, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !sameCSR(pi, plain) {
		t.Fatal("TopKPPRScaled's matrix differs from TopKPPR's")
	}
	rows, err := graph.WalkRows(a, pi, sums)
	if err != nil {
		t.Fatal(err)
	}
	l, err := graph.NewLocalPPR(a, rows, 0.15)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 17, 250} {
		lo, _ := a.RowRange(i)
		v := []int32{int32((i + 1) % a.Rows), int32((i + 7) % a.Rows)}
		var w []float64
		for _, x := range v {
			_, isEdge := a.Find(i, int(x))
			w = append(w, map[bool]float64{true: 1, false: 0}[isEdge])
		}
		v = append(v, a.Indices[lo])
		w = append(w, 1)
		if err := l.Update(i, v, w); err != nil {
			t.Fatal(err)
		}
		cols, vals, err := l.TopK(32)
		if err != nil {
			t.Fatal(err)
		}
		wc, wv := rowOf(pi, i)
		if !slices.Equal(cols, wc) {
			t.Fatalf("row %d: columns %v, want %v", i, cols, wc)
		}
		for k := range vals {
			if math.Abs(vals[k]-float64(wv[k])) > 1e-6 {
				t.Errorf("row %d col %d: %v, want %v", i, cols[k], vals[k], wv[k])
			}
		}
	}
}

// TestLocalPPRGradient: Backward and TopKBackward against central
// differences of a random linear function of π′_i and of the top-k row.
func TestLocalPPRGradient(t *testing.T) {
	const alpha = 0.15
	a := powerLawGraph(t, 200, 800, 4)
	rng := rand.New(rand.NewPCG(9, 9))
	deg := graph.Degrees(a)
	i := 0
	for deg[i] < 3 {
		i++
	}
	c := randomChange(a, i, 2, 6, rng)
	for k := range c.w {
		c.w[k] = 0.2 + 0.6*c.w[k] // away from 0 for the differences
	}
	for _, rowsName := range []string{"exact", "top-k"} {
		var rows *graph.PPRRows
		if rowsName == "exact" {
			rows = exactRows(t, a, c, alpha)
		} else {
			pi, sums, err := graph.TopKPPRScaled(a, nil, alpha, 1e-5, 24, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rows, err = graph.WalkRows(a, pi, sums); err != nil {
				t.Fatal(err)
			}
		}
		l, err := graph.NewLocalPPR(a, rows, alpha)
		if err != nil {
			t.Fatal(err)
		}
		h := make([]float64, a.Rows)
		for v := range h {
			h[v] = rng.NormFloat64()
		}
		rowLoss := func(w []float64) float64 {
			if err := l.Update(c.i, c.v, w); err != nil {
				t.Fatal(err)
			}
			cols, vals := l.Row(nil, nil)
			var s float64
			for k, col := range cols {
				s += h[col] * vals[k]
			}
			return s
		}
		topLoss := func(w []float64) float64 {
			if err := l.Update(c.i, c.v, w); err != nil {
				t.Fatal(err)
			}
			cols, vals, err := l.TopK(12)
			if err != nil {
				t.Fatal(err)
			}
			var s float64
			for k, col := range cols {
				s += h[col] * vals[k]
			}
			return s
		}
		for _, which := range []string{"row", "top-k"} {
			loss := rowLoss
			if which == "top-k" {
				loss = topLoss
			}
			loss(c.w)
			got := make([]float64, len(c.v))
			if which == "row" {
				cols, _ := l.Row(nil, nil)
				g := make([]float64, len(cols))
				for k, col := range cols {
					g[k] = h[col]
				}
				if err := l.Backward(cols, g, got); err != nil {
					t.Fatal(err)
				}
			} else {
				cols, _, _ := l.TopK(12)
				g := make([]float64, len(cols))
				for k, col := range cols {
					g[k] = h[col]
				}
				if err := l.TopKBackward(g, got); err != nil {
					t.Fatal(err)
				}
			}
			const step = 1e-6
			for k := range c.w {
				w := slices.Clone(c.w)
				w[k] += step
				up := loss(w)
				w[k] -= 2 * step
				down := loss(w)
				fd := (up - down) / (2 * step)
				if math.Abs(fd-got[k]) > 1e-6*max(1, math.Abs(fd)) {
					t.Errorf("%s rows, %s: ∂/∂w[%d] = %.8g, differences %.8g", rowsName, which, k, got[k], fd)
				}
			}
		}
	}
}

// TestLocalPPRErrors: bad input is an error, not a panic, and leaves no
// update behind.
func TestLocalPPRErrors(t *testing.T) {
	a := powerLawGraph(t, 50, 150, 5)
	pi, sums, err := graph.TopKPPRScaled(a, nil, 0.15, 1e-4, 8, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := graph.WalkRows(a, pi, sums)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := graph.NewLocalPPR(a, rows, 1.5); err == nil {
		t.Error("alpha 1.5 accepted")
	}
	if _, err := graph.WalkRows(a, pi, sums[:3]); err == nil {
		t.Error("short sums accepted")
	}
	l, err := graph.NewLocalPPR(a, rows, 0.15)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]localCase{
		"target":     {i: 50},
		"negative":   {i: -1},
		"pair":       {i: 1, v: []int32{60}, w: []float64{1}},
		"self loop":  {i: 1, v: []int32{1}, w: []float64{1}},
		"twice":      {i: 1, v: []int32{2, 2}, w: []float64{1, 1}},
		"weight":     {i: 1, v: []int32{2}, w: []float64{math.NaN()}},
		"negative w": {i: 1, v: []int32{2}, w: []float64{-1}},
		"lengths":    {i: 1, v: []int32{2}, w: nil},
	} {
		if err := l.Update(c.i, c.v, c.w); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if _, _, err := l.TopK(4); err == nil {
			t.Errorf("%s: TopK after a failed update", name)
		}
	}
}

// TestTopKPPRFewNodes: the push from a few sources on the CSR itself
// (nodePush) gives the rows of the push on the prepared graph bit for bit:
// roots, leaves of roots (derived from their root), the two ends of an
// isolated edge, a node with a stored self loop, weighted graphs.
func TestTopKPPRFewNodes(t *testing.T) {
	a := powerLawGraph(t, 3000, 9000, 11)
	// an isolated edge (0, 1) and a stored self loop at 5 with weights
	es := []tensor.Entry{}
	for i := range a.Rows {
		lo, hi := a.RowRange(i)
		for k := lo; k < hi; k++ {
			j := int(a.Indices[k])
			if i <= 1 || j <= 1 {
				continue
			}
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(1 + (i*j)%3)})
		}
	}
	es = append(es, tensor.Entry{Row: 0, Col: 1, Val: 1}, tensor.Entry{Row: 1, Col: 0, Val: 1}, tensor.Entry{Row: 5, Col: 5, Val: 2})
	w, err := tensor.FromCOO(a.Rows, a.Rows, es)
	if err != nil {
		t.Fatal(err)
	}
	deg := graph.Degrees(a)
	var nodes []int
	for v := 2; v < a.Rows && len(nodes) < 40; v++ {
		if deg[v] == 1 || v%97 == 0 {
			nodes = append(nodes, v)
		}
	}
	nodes = append(nodes, 0, 1, 5)
	for name, g := range map[string]*tensor.CSR{"0/1": a, "weighted": w} {
		all, allSums, err := graph.TopKPPRScaled(g, nil, 0.15, 1e-4, 16, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range nodes {
			one, sums, err := graph.TopKPPRScaled(g, []int{u}, 0.15, 1e-4, 16, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			wc, wv := rowOf(all, u)
			gc, gv := rowOf(one, 0)
			if !slices.Equal(wc, gc) || !slices.Equal(wv, gv) || sums[0] != allSums[u] {
				t.Fatalf("%s node %d (degree %d): %v %v (sum %v), want %v %v (sum %v)", name, u, deg[u], gc, gv, sums[0], wc, wv, allSums[u])
			}
		}
	}
}
