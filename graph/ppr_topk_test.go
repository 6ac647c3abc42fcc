package graph_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/tensor"
)

// powerLawGraph is a symmetric 0/1 graph without self loops with about m
// undirected edges whose degrees spread like a power law (Chung–Lu: both
// ends of an edge drawn with probability ∝ (i+1)^−0.6, ids then shuffled),
// deterministic in seed. Duplicates and self loops are dropped, so the
// edge count is a little below m.
func powerLawGraph(t testing.TB, n, m int, seed uint64) *tensor.CSR {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	cum := make([]float64, n)
	var s float64
	for i := range cum {
		s += math.Pow(float64(i+1), -0.6)
		cum[i] = s
	}
	perm := rng.Perm(n)
	draw := func() int32 {
		i, _ := slices.BinarySearch(cum, rng.Float64()*s)
		return int32(perm[min(i, n-1)])
	}
	es := make([]tensor.Entry, 0, 2*m)
	for range m {
		u, v := draw(), draw()
		if u != v {
			es = append(es, tensor.Entry{Row: u, Col: v, Val: 1}, tensor.Entry{Row: v, Col: u, Val: 1})
		}
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Values {
		a.Values[i] = 1 // duplicates were summed
	}
	return a
}

func sameCSR(a, b *tensor.CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) &&
		slices.Equal(a.Indices, b.Indices) && slices.Equal(a.Values, b.Values)
}

// rowOf returns row u of c as (columns, values).
func rowOf(c *tensor.CSR, u int) ([]int32, []float32) {
	lo, hi := c.RowRange(u)
	return c.Indices[lo:hi], c.Values[lo:hi]
}

// TestTopKPPRMatchesApproxGDC: for all nodes TopKPPR is ApproxGDC bit for
// bit, and a node set (in any order, leaves among them) gets exactly those
// nodes' rows.
func TestTopKPPRMatchesApproxGDC(t *testing.T) {
	for _, tc := range []struct {
		n, m, k int
		eps     float64
	}{{300, 500, 16, 1e-4}, {1000, 2500, 64, 1e-4}, {200, 150, 5, 1e-3}} {
		a := powerLawGraph(t, tc.n, tc.m, uint64(tc.n))
		want, err := graph.ApproxGDC(a, 0.15, tc.k, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		got, err := graph.TopKPPR(a, nil, 0.15, tc.eps, tc.k, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !sameCSR(got, want) {
			t.Fatalf("n=%d: TopKPPR(all nodes) differs from ApproxGDC", tc.n)
		}
		rng := rand.New(rand.NewPCG(uint64(tc.m), 1))
		nodes := rng.Perm(tc.n)[:tc.n/3]
		sub, err := graph.TopKPPR(a, nodes, 0.15, tc.eps, tc.k, 2)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Rows != len(nodes) || sub.Cols != tc.n {
			t.Fatalf("node set: %d×%d result, want %d×%d", sub.Rows, sub.Cols, len(nodes), tc.n)
		}
		for i, u := range nodes {
			gc, gv := rowOf(sub, i)
			wc, wv := rowOf(want, u)
			if !slices.Equal(gc, wc) || !slices.Equal(gv, wv) {
				t.Fatalf("n=%d: row %d (node %d) differs from the all-nodes row", tc.n, i, u)
			}
		}
	}
}

// checkPushBound checks every row of the top-k push result got (rows =
// nodes) against the exact diffusion s (dense n×n) under the push's error
// bound: with p the push estimate, 0 ≤ π_u(v) − p(v) ≤ eps·d̃_v, so the
// ranking value Ŝ_uv = √d̃_u·p(v)/√d̃_v is below S_uv by at most
// b_v = eps·√(d̃_u·d̃_v). Then (i) no unselected w beats a selected v by
// more than b_w, (ii) an unselected w of a row with fewer than k entries has
// S_uw ≤ b_w (it was never reached), and (iii) the normalised value
// Ŝ_v/ΣŜ differs from S_v/Z (Z = Σ_selected S) by at most (b_v + Σ b)/Z.
func checkPushBound(t *testing.T, a, got *tensor.CSR, s *tensor.Dense, nodes []int, eps float64, k int) {
	t.Helper()
	n := a.Rows
	deg := make([]float64, n) // d̃ = row sums of A + I
	for v := range n {
		deg[v] = 1
		lo, hi := a.RowRange(v)
		for _, x := range a.Values[lo:hi] {
			deg[v] += float64(x)
		}
	}
	const tol = 1e-6 // float32 S and output
	var worst float64
	sel := make([]bool, n)
	for i, u := range nodes {
		cols, vals := rowOf(got, i)
		srow := s.Row(u)
		b := func(v int) float64 { return eps * math.Sqrt(deg[u]*deg[v]) }
		clear(sel)
		var z, bsum, minSel float64
		minSel = math.Inf(1)
		for _, c := range cols {
			sel[c] = true
			z += float64(srow[c])
			bsum += b(int(c))
			minSel = min(minSel, float64(srow[c]))
		}
		if len(cols) > k || len(cols) == 0 {
			t.Fatalf("row %d: %d entries (k = %d)", u, len(cols), k)
		}
		for w := range n {
			if sel[w] {
				continue
			}
			if d := float64(srow[w]) - minSel; d > b(w)+tol {
				t.Fatalf("row %d: unselected %d exceeds a selected value by %g > bound %g", u, w, d, b(w))
			}
			if len(cols) < k && float64(srow[w]) > b(w)+tol {
				t.Fatalf("row %d: short row misses %d with S = %g > bound %g", u, w, srow[w], b(w))
			}
		}
		for j, c := range cols {
			err := math.Abs(float64(vals[j]) - float64(srow[c])/z)
			bound := (b(int(c)) + bsum) / z
			if err > bound+tol {
				t.Fatalf("row %d col %d: |approx − exact| = %g > bound %g", u, c, err, bound)
			}
			worst = max(worst, err/(bound+tol))
		}
	}
	t.Logf("largest error / bound: %.3f", worst)
}

// exactS is the dense exact diffusion of a.
func exactS(t *testing.T, a *tensor.CSR) *tensor.Dense {
	t.Helper()
	_, s, err := graph.ExactGDCDense(a, 0.15, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func allNodes(n int) []int {
	nodes := make([]int, n)
	for i := range nodes {
		nodes[i] = i
	}
	return nodes
}

// TestTopKPPRBound: on small random graphs, at coarse and fine eps, every
// row is within the push's error bound of the exact diffusion.
func TestTopKPPRBound(t *testing.T) {
	for _, tc := range []struct {
		n, m int
		eps  float64
		k    int
	}{{300, 600, 1e-3, 16}, {300, 600, 1e-5, 32}, {500, 400, 1e-4, 64}} {
		a := powerLawGraph(t, tc.n, tc.m, uint64(tc.m))
		s := exactS(t, a)
		nodes := allNodes(tc.n)
		got, err := graph.TopKPPR(a, nodes, 0.15, tc.eps, tc.k, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkPushBound(t, a, got, s, nodes, tc.eps, tc.k)
	}
}

// TestTopKPPRBoundCoraML: the same on cora_ml (k = 64, eps = 1e-4, every
// node) against the exact conjugate-gradient diffusion.
func TestTopKPPRBoundCoraML(t *testing.T) {
	if testing.Short() {
		t.Skip("cora_ml exact PPR; skipped with -short")
	}
	a := dataset(t, "cora_ml").Adj
	s := exactS(t, a)
	nodes := allNodes(a.Rows)
	got, err := graph.TopKPPR(a, nodes, 0.15, 1e-4, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkPushBound(t, a, got, s, nodes, 1e-4, 64)
}

// TestTopKPPRTies: leaves of a star are exactly tied; the top-k takes the
// lowest columns among them, from the hub and from a leaf.
func TestTopKPPRTies(t *testing.T) {
	var es []tensor.Entry
	for v := int32(1); v <= 10; v++ {
		es = append(es, tensor.Entry{Row: 0, Col: v, Val: 1}, tensor.Entry{Row: v, Col: 0, Val: 1})
	}
	a, err := tensor.FromCOO(11, 11, es)
	if err != nil {
		t.Fatal(err)
	}
	got, err := graph.TopKPPR(a, []int{0, 7}, 0.15, 1e-6, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]int32{{0, 1, 2, 3}, {0, 1, 2, 7}} {
		if cols, _ := rowOf(got, i); !slices.Equal(cols, want) {
			t.Errorf("row %d: columns %v, want %v", i, cols, want)
		}
	}
}

// TestTopKPPRDeterministic: the same bits for GOMAXPROCS 1 and 2 and for
// 1, 2 and 3 workers.
func TestTopKPPRDeterministic(t *testing.T) {
	a := powerLawGraph(t, 3000, 12000, 9)
	var ref *tensor.CSR
	for _, procs := range []int{1, 2} {
		for _, workers := range []int{0, 1, 3} {
			old := runtime.GOMAXPROCS(procs)
			got, err := graph.TopKPPR(a, nil, 0.15, 1e-4, 64, workers)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = got
			} else if !sameCSR(got, ref) {
				t.Fatalf("GOMAXPROCS=%d workers=%d: result differs", procs, workers)
			}
		}
	}
}

func TestTopKPPRErrors(t *testing.T) {
	a := powerLawGraph(t, 20, 40, 1)
	rect := &tensor.CSR{Rows: 2, Cols: 3, Indptr: []int{0, 0, 0}}
	neg := a.Clone()
	neg.Values[0] = -1
	nan := a.Clone()
	nan.Values[0] = float32(math.NaN())
	for _, tc := range []struct {
		name  string
		a     *tensor.CSR
		nodes []int
		alpha float64
		eps   float64
		k     int
		want  string
	}{
		{"nil", nil, nil, .15, 1e-4, 8, "nil"},
		{"rect", rect, nil, .15, 1e-4, 8, "square"},
		{"rect nodes", rect, []int{0}, .15, 1e-4, 8, "square"},
		{"alpha", a, nil, 1, 1e-4, 8, "alpha"},
		{"eps 0", a, nil, .15, 0, 8, "eps"},
		{"eps inf", a, nil, .15, math.Inf(1), 8, "eps"},
		{"k", a, nil, .15, 1e-4, 0, "k must"},
		{"node range", a, []int{3, 20}, .15, 1e-4, 8, "outside"},
		{"node negative", a, []int{-1}, .15, 1e-4, 8, "outside"},
		{"duplicate", a, []int{3, 5, 3}, .15, 1e-4, 8, "twice"},
		{"negative weight", neg, nil, .15, 1e-4, 8, "nonnegative"},
		{"nan", nan, nil, .15, 1e-4, 8, "non-finite"},
	} {
		_, err := graph.TopKPPR(tc.a, tc.nodes, tc.alpha, tc.eps, tc.k, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	// An empty node set is a 0×n result.
	got, err := graph.TopKPPR(a, []int{}, .15, 1e-4, 8, 0)
	if err != nil || got.Rows != 0 || got.Cols != 20 {
		t.Errorf("empty node set: %v, %v", got, err)
	}
}

// peakRSS is the process's peak resident set (VmHWM) in bytes, 0 where
// /proc does not report it.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkTopKPPRArxiv is top-k PPR (k = 64, α = 0.15, eps = 1e-4) for
// every node of an arXiv-sized power-law graph (169,343 nodes, ~1.17M
// undirected edges), reporting CPU seconds and the process's peak RSS:
//
//	go test ./graph -run '^$' -bench TopKPPRArxiv -benchtime 1x
func BenchmarkTopKPPRArxiv(b *testing.B) {
	a := powerLawGraph(b, 169343, 1_190_000, 1)
	b.Logf("graph: %d nodes, %d undirected edges", a.Rows, a.Nnz()/2)
	b.ResetTimer()
	c0, _ := cputime.Process()
	t0 := time.Now()
	var out *tensor.CSR
	for b.Loop() {
		var err error
		if out, err = graph.TopKPPR(a, nil, 0.15, 1e-4, 64, 0); err != nil {
			b.Fatal(err)
		}
	}
	c1, _ := cputime.Process()
	b.ReportMetric((c1-c0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(time.Since(t0).Seconds()/float64(b.N), "wall-s/op")
	b.ReportMetric(peakRSS()/(1<<20), "peak-MiB")
	b.ReportMetric(float64(out.Nnz())/float64(out.Rows), "entries/row")
}

// TestPushPrefetchSameBits: on a graph large enough for the push to
// prefetch (graph.prefetchMinNodes), the estimates are the same bits with
// and without prefetching, in sparse mode (eps 1e-4) and in dense mode
// (eps 1e-7: the pushes reach most of the graph).
func TestPushPrefetchSameBits(t *testing.T) {
	a := powerLawGraph(t, 40000, 280000, 2)
	sources := make([]int, 0, 200)
	for u := 0; u < a.Rows; u += a.Rows / 200 {
		sources = append(sources, u)
	}
	for _, c := range []struct {
		eps     float64
		sources []int
	}{{1e-4, sources}, {1e-7, sources[:6]}} {
		on, _, err := graph.PushFrom(a, 0.15, c.eps, c.sources, true, true)
		if err != nil {
			t.Fatal(err)
		}
		off, _, err := graph.PushFrom(a, 0.15, c.eps, c.sources, false, true)
		if err != nil {
			t.Fatal(err)
		}
		for i := range on {
			if !slices.Equal(on[i], off[i]) {
				t.Fatalf("eps %g: push from %d differs with prefetching", c.eps, c.sources[i])
			}
		}
	}
}

// BenchmarkPushArxivSized times single pushes (eps = 1e-4, one goroutine;
// push-µs/source excludes the set-up) from 2,000 sources of an arXiv-sized
// power-law graph, with and without the prefetching of the rows and
// residuals ahead of the queue:
//
//	go test ./graph -run '^$' -bench PushArxivSized -count 6
func BenchmarkPushArxivSized(b *testing.B) {
	a := powerLawGraph(b, 169343, 1_190_000, 1)
	sources := make([]int, 2000)
	for i := range sources {
		sources[i] = (i * 7919) % a.Rows
	}
	for _, pf := range []bool{false, true} {
		b.Run(fmt.Sprintf("prefetch=%v", pf), func(b *testing.B) {
			var took time.Duration
			for b.Loop() {
				_, d, err := graph.PushFrom(a, 0.15, 1e-4, sources, pf, false)
				if err != nil {
					b.Fatal(err)
				}
				took += d
			}
			b.ReportMetric(took.Seconds()/float64(b.N*len(sources))*1e6, "push-µs/source")
		})
	}
}

// TopKPPRProgress gives TopKPPR's bits and ends with every row reported.
func TestTopKPPRProgress(t *testing.T) {
	adj := powerLawGraph(t, 400, 2000, 9)
	want, err := graph.TopKPPR(adj, nil, 0.15, 1e-4, 16, 2)
	if err != nil {
		t.Fatal(err)
	}
	var last [2]int
	calls := 0
	got, err := graph.TopKPPRProgress(adj, nil, 0.15, 1e-4, 16, 2, func(done, total int) { last, calls = [2]int{done, total}, calls+1 })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || calls == 0 || last != [2]int{400, 400} {
		t.Fatalf("progress variant: same result %v, %d calls, last %v", reflect.DeepEqual(got, want), calls, last)
	}
}
