package graph

import (
	"cmp"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

// tb is the part of testing.TB (and rapid.T) the graph builders need.
type tb interface {
	Helper()
	Fatal(args ...any)
}

// undirected builds a symmetric 0/1 adjacency from an edge list.
func undirected(t tb, n int, edges [][2]int) *tensor.CSR {
	t.Helper()
	var es []tensor.Entry
	for _, e := range edges {
		es = append(es, tensor.Entry{Row: int32(e[0]), Col: int32(e[1]), Val: 1},
			tensor.Entry{Row: int32(e[1]), Col: int32(e[0]), Val: 1})
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Values {
		a.Values[i] = 1 // duplicate edges were summed
	}
	return a
}

// randomGraph is a symmetric 0/1 graph: a random spanning tree (connected)
// plus extra random edges, deterministic in seed.
func randomGraph(t tb, n, extra int, seed uint64) *tensor.CSR {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var edges [][2]int
	for v := 1; v < n; v++ {
		edges = append(edges, [2]int{r.IntN(v), v})
	}
	for e := 0; e < extra; e++ {
		u, v := r.IntN(n), r.IntN(n)
		if u != v {
			edges = append(edges, [2]int{u, v})
		}
	}
	return undirected(t, n, edges)
}

type pprAnchors struct {
	Edges     [][2]int    `json:"gdc_graph_edges"`
	Dense     [][]float64 `json:"ppr_dense_alpha0.15"`
	Top3      [][]float64 `json:"ppr_top3_rownorm"`
	Top3GCN   [][]float64 `json:"ppr_top3_then_gcn_norm"`
	GCNNormed [][]float64 `json:"gcn_norm(G)"`
}

func loadPPRAnchors(t *testing.T) pprAnchors {
	t.Helper()
	b, err := os.ReadFile(fixture.Reference(t, "numeric_anchors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var an pprAnchors
	if err := json.Unmarshal(b, &an); err != nil {
		t.Fatalf("numeric_anchors.json: %v", err)
	}
	if len(an.Edges) == 0 || len(an.Dense) == 0 {
		t.Skip("numeric_anchors.json has no PPR anchors")
	}
	return an
}

func closeRel(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-12)
}

func checkDense(t *testing.T, name string, got *tensor.CSR, want [][]float64, rel float64) {
	t.Helper()
	d := got.ToDense()
	for i, row := range want {
		for j, w := range row {
			g := float64(d.At(i, j))
			if w == 0 {
				if _, ok := got.Find(i, j); ok && g != 0 {
					t.Errorf("%s[%d,%d] = %v, want absent", name, i, j, g)
				}
				continue
			}
			if !closeRel(g, w, rel) {
				t.Errorf("%s[%d,%d] = %.9g, want %.9g", name, i, j, g, w)
			}
		}
	}
}

func TestPPRAnchors(t *testing.T) {
	an := loadPPRAnchors(t)
	n := len(an.Dense)
	a := undirected(t, n, an.Edges)

	// The dense diffusion itself (CG path and dense LU path), before top-k.
	g, err := newDiffusionGraph(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"cg", "dense"} {
		res := newRowResults(n, n)
		if path == "cg" {
			err = g.exactRowsCG(0.15, res)
		} else {
			err = g.exactRowsDense(0.15, res)
		}
		if err != nil {
			t.Fatal(err)
		}
		for u := 0; u < n; u++ {
			for e, c := range res.cols[u] {
				if got, want := res.vals[u][e], an.Dense[u][c]; !closeRel(got, want, 1e-10) {
					t.Errorf("%s: S[%d,%d] = %.15g, want %.15g", path, u, c, got, want)
				}
			}
		}
	}

	s, err := ExactGDC(a, 0.15, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkDense(t, "top3", s, an.Top3, 1e-5)
	checkDense(t, "top3+gcn_norm", GCNNorm(s), an.Top3GCN, 1e-5)

	approx, err := ApproxGDC(a, 0.15, 3, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	checkDense(t, "approx top3", approx, an.Top3, 1e-5)
}

// TestExactPaths checks that CG and the dense LU inverse agree on a random
// graph, including a disconnected part.
func TestExactPaths(t *testing.T) {
	a := randomGraph(t, 150, 200, 3)
	// Detach nodes 140..149 into their own component.
	var es []tensor.Entry
	for i := 0; i < a.Rows; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			j := int(a.Indices[k])
			if i < 140 && j < 140 {
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: 1})
			}
		}
	}
	for v := 141; v < 150; v++ { // a path 140-141-…-149
		es = append(es, tensor.Entry{Row: int32(v - 1), Col: int32(v), Val: 1},
			tensor.Entry{Row: int32(v), Col: int32(v - 1), Val: 1})
	}
	a, _ = tensor.FromCOO(150, 150, es)
	g, err := newDiffusionGraph(a)
	if err != nil {
		t.Fatal(err)
	}
	cg, dense := newRowResults(150, 150), newRowResults(150, 150)
	if err := g.exactRowsCG(0.15, cg); err != nil {
		t.Fatal(err)
	}
	if err := g.exactRowsDense(0.15, dense); err != nil {
		t.Fatal(err)
	}
	var maxErr float64
	for u := range cg.vals {
		if !slices.Equal(cg.cols[u], dense.cols[u]) {
			t.Fatalf("row %d: columns differ between cg and dense", u)
		}
		for i := range cg.vals[u] {
			maxErr = max(maxErr, math.Abs(cg.vals[u][i]-dense.vals[u][i]))
		}
	}
	if maxErr > 1e-11 {
		t.Errorf("max |S_cg − S_dense| = %g", maxErr)
	}
	// top-k on the disconnected graph: exactly k entries per row, zeros
	// (other component) included for the small component when k > 10.
	s, err := ExactGDC(a, 0.15, 16)
	if err != nil {
		t.Fatal(err)
	}
	for u := 0; u < s.Rows; u++ {
		if lo, hi := s.RowRange(u); hi-lo != 16 {
			t.Fatalf("row %d has %d entries, want 16", u, hi-lo)
		}
	}
	lo, hi := s.RowRange(145)
	cols := s.Indices[lo:hi]
	want := []int32{0, 1, 2, 3, 4, 5, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149}
	if !slices.Equal(cols, want) {
		t.Errorf("row 145 columns %v, want %v (zeros by column ascending)", cols, want)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestGDCTies: on a star every leaf is equivalent, so the kept leaves must
// be the lowest-numbered ones, in the exact and in the approximate path.
func TestGDCTies(t *testing.T) {
	var edges [][2]int
	for v := 1; v < 10; v++ {
		edges = append(edges, [2]int{0, v})
	}
	a := undirected(t, 10, edges)
	for _, eps := range []float64{0, 1e-9} {
		s, err := GDC(a, GDCConfig{Alpha: 0.15, K: 4, Eps: eps})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			row  int
			want []int32
		}{
			{0, []int32{0, 1, 2, 3}},
			{5, []int32{0, 1, 2, 5}},
			{1, []int32{0, 1, 2, 3}},
		} {
			lo, hi := s.RowRange(tc.row)
			if got := s.Indices[lo:hi]; !slices.Equal(got, tc.want) {
				t.Errorf("eps=%g row %d: columns %v, want %v", eps, tc.row, got, tc.want)
			}
		}
	}
}

// TestGDCApproxConverges: with a tiny eps the push result equals the exact
// one to ~1e-6.
func TestGDCApproxConverges(t *testing.T) {
	a := randomGraph(t, 300, 600, 11)
	ex, err := ExactGDC(a, 0.15, 32)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := ApproxGDC(a, 0.15, 32, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ex.Indptr, ap.Indptr) || !slices.Equal(ex.Indices, ap.Indices) {
		t.Fatal("approximate top-k sets differ from the exact ones at eps=1e-9")
	}
	var maxErr float64
	for i := range ex.Values {
		maxErr = max(maxErr, math.Abs(float64(ex.Values[i]-ap.Values[i])))
	}
	if maxErr > 1e-6 {
		t.Errorf("max |exact − approx| = %g at eps=1e-9", maxErr)
	}
	t.Logf("max |exact − approx| = %.3g", maxErr)
}

// TestGDCDeterministic: same bits for GOMAXPROCS 1 and 2.
func TestGDCDeterministic(t *testing.T) {
	a := randomGraph(t, 500, 1500, 5)
	run := func(procs int) (*tensor.CSR, *tensor.CSR) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		ex, err := ExactGDC(a, 0.15, 64)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := ApproxGDC(a, 0.15, 64, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		return ex, ap
	}
	ex1, ap1 := run(1)
	ex2, ap2 := run(2)
	for _, p := range [][2]*tensor.CSR{{ex1, ex2}, {ap1, ap2}} {
		if !slices.Equal(p[0].Indptr, p[1].Indptr) || !slices.Equal(p[0].Indices, p[1].Indices) ||
			!slices.Equal(p[0].Values, p[1].Values) {
			t.Fatal("result depends on GOMAXPROCS")
		}
	}
	for u := 0; u < ex1.Rows; u++ {
		lo, hi := ex1.RowRange(u)
		var s float64
		for _, v := range ex1.Values[lo:hi] {
			s += float64(v)
		}
		if hi-lo != 64 || math.Abs(s-1) > 1e-5 {
			t.Fatalf("row %d: %d entries summing to %v", u, hi-lo, s)
		}
	}
}

func TestGDCErrors(t *testing.T) {
	sq := randomGraph(t, 5, 2, 1)
	rect := &tensor.CSR{Rows: 2, Cols: 3, Indptr: []int{0, 0, 0}}
	nan := sq.Clone()
	nan.Values[0] = float32(math.NaN())
	neg := sq.Clone()
	neg.Values[0] = -1
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"alpha", func() error { _, err := ExactGDC(sq, 1.5, 3); return err }, "alpha"},
		{"eps", func() error { _, err := GDC(sq, GDCConfig{Alpha: .15, K: 3, Eps: -1}); return err }, "eps"},
		{"rect", func() error { _, err := ExactGDC(rect, .15, 3); return err }, "square"},
		{"nan", func() error { _, err := ApproxGDC(nan, .15, 3, 1e-4); return err }, "non-finite"},
		{"neg push", func() error { _, err := ApproxGDC(neg, .15, 3, 1e-4); return err }, "nonnegative"},
		{"nil", func() error { _, err := ExactGDC(nil, .15, 3); return err }, "nil"},
	} {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	// A signed (asymmetric) graph still works through the dense path.
	if _, err := ExactGDC(neg, .15, 3); err != nil {
		t.Errorf("signed graph: %v", err)
	}
}

func TestTopKSelector(t *testing.T) {
	var s topKSelector
	row := []candidate{{0, 0.1}, {1, 0.5}, {2, 0.1}, {3, 0.3}, {4, 0.1 + 1e-12}, {5, 0.05}}
	got := s.selectTopK(slices.Clone(row), 3)
	// 0.5 (1), 0.3 (3), then the three ≈0.1 tie → lowest column 0.
	want := []candidate{{0, 0.1}, {1, 0.5}, {3, 0.3}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(50)
		row := make([]candidate, n)
		for i := range row {
			row[i] = candidate{int32(i), float64(r.IntN(8))}
		}
		k := 1 + r.IntN(n)
		got := slices.Clone(s.selectTopK(slices.Clone(row), k))
		ref := slices.Clone(row)
		slices.SortStableFunc(ref, func(a, b candidate) int {
			if a.val != b.val {
				if a.val > b.val {
					return -1
				}
				return 1
			}
			return int(a.col - b.col)
		})
		ref = ref[:k]
		slices.SortFunc(ref, func(a, b candidate) int { return int(a.col - b.col) })
		if !slices.Equal(got, ref) {
			t.Fatalf("trial %d: got %v, want %v", trial, got, ref)
		}
	}
}

// selectTopKBefore is selectTopK as it was before the shortcut for pools of
// exactly k candidates and the integer column sort: the reference for
// TestTopKSelectorSameAsBefore.
func selectTopKBefore(row []candidate, k int) []candidate {
	if k <= 0 || len(row) == 0 {
		return row[:0]
	}
	k = min(k, len(row))
	vals := make([]float64, 0, len(row))
	rowMax := math.Inf(-1)
	for _, c := range row {
		vals = append(vals, c.val)
		rowMax = max(rowMax, c.val)
	}
	kth := KthLargest(vals, k)
	tol := tieRel * math.Abs(rowMax)
	var pool []candidate
	for _, c := range row {
		if c.val >= kth-tol {
			pool = append(pool, c)
		}
	}
	out := regroupTies(pool, tol)[:k]
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Compare(a.col, b.col) })
	return out
}

// TestTopKSelectorSameAsBefore: rows in arbitrary column order (columns
// dense or far apart) with exact ties, ties within tieRel, chains of values
// each within tieRel of the next, rows mostly of zeros (a small component
// of a sampled graph) and distinct values select what the previous
// implementation (regroupTies on the whole pool) selected.
func TestTopKSelectorSameAsBefore(t *testing.T) {
	var s topKSelector
	r := rand.New(rand.NewPCG(7, 9))
	for trial := range 6000 {
		n := 1 + r.IntN(300)
		row := make([]candidate, n)
		zeros := trial%3 == 2 // most values 0, some −0 or a rounding's −1e-18
		for i, c := range r.Perm(4 * n)[:n] {
			v := r.Float64()
			switch r.IntN(5) {
			case 0:
				v = float64(r.IntN(6)) / 8 // exact ties
			case 1:
				v = 0.5 + float64(r.IntN(3))*1e-12 // within tieRel of each other
			case 2:
				v = 0.25 + float64(r.IntN(8))*4e-10 // chained: runs cut the chain
			}
			if zeros && r.IntN(6) > 0 {
				v = [...]float64{0, 0, 0, math.Copysign(0, -1), -1e-18, 1e-300}[r.IntN(6)]
			}
			row[i] = candidate{int32(c * (1 + 999*(trial%2))), v} // odd trials: columns far apart
		}
		k := 1 + r.IntN(n+5)
		got := slices.Clone(s.selectTopK(slices.Clone(row), k))
		want := selectTopKBefore(slices.Clone(row), k)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n %d, k %d): got %v, want %v", trial, n, k, got, want)
		}
	}
}

// TestTopKSelectorBlock: selecting from a slot of block-CG vectors in place
// gives selectTopK's selection of the same row (exact ties, ties within
// tieRel, negative values, k below, at and above n).
func TestTopKSelectorBlock(t *testing.T) {
	var s, ref topKSelector
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 2000 {
		n := 1 + r.IntN(300)
		x := make([][linalg.CGBlock]float64, n)
		b := r.IntN(linalg.CGBlock)
		row := make([]candidate, n)
		for j := range x {
			for l := range linalg.CGBlock {
				x[j][l] = r.NormFloat64()
			}
			v := r.Float64()
			switch r.IntN(5) {
			case 0:
				v = float64(r.IntN(6)) / 8
			case 1:
				v = 0.5 + float64(r.IntN(3))*1e-12
			case 2:
				v = -v
			}
			x[j][b] = v
			row[j] = candidate{int32(j), v}
		}
		k := 1 + r.IntN(n+5)
		got := slices.Clone(s.selectTopKBlock(x, b, k))
		want := ref.selectTopK(row, k)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n %d, k %d): got %v, want %v", trial, n, k, got, want)
		}
	}
}
