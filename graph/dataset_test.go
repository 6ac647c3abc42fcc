package graph_test

import (
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/tensor"
)

var (
	loadMu sync.Mutex
	loaded = map[string]*data.Graph{}
)

// dataset loads (once per test binary) a standardised dataset, or skips.
func dataset(t testing.TB, name string) *data.Graph {
	t.Helper()
	loadMu.Lock()
	defer loadMu.Unlock()
	if g, ok := loaded[name]; ok {
		return g
	}
	g, err := data.LoadFile(filepath.Join(fixture.DataDir(t), name+".npz"), false)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	loaded[name] = g
	return g
}

// TestExactGDCCoraML checks the exact diffusion on cora_ml: exactly 64
// entries per row summing to 1, the self loop always kept, and the same
// top-k sets as the approximate path at a tiny eps.
func TestExactGDCCoraML(t *testing.T) {
	if testing.Short() {
		t.Skip("cora_ml GDC; skipped with -short")
	}
	g := dataset(t, "cora_ml")
	s, err := graph.ExactGDC(g.Adj, 0.15, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for u := 0; u < s.Rows; u++ {
		lo, hi := s.RowRange(u)
		var sum float64
		for _, v := range s.Values[lo:hi] {
			sum += float64(v)
		}
		if hi-lo != 64 || math.Abs(sum-1) > 1e-5 {
			t.Fatalf("row %d: %d entries summing to %v", u, hi-lo, sum)
		}
		if _, ok := s.Find(u, u); !ok {
			t.Fatalf("row %d lost its self loop", u)
		}
	}
}

// rowAgreement compares two row-normalised top-k matrices row by row: the
// mean Jaccard index of the kept column sets, and the mean and max L1
// distance of the rows.
func rowAgreement(ex, ap *tensor.CSR) (jacc, l1Mean, l1Max float64) {
	for u := 0; u < ex.Rows; u++ {
		i, ie := ex.RowRange(u)
		j, je := ap.RowRange(u)
		inter, union := 0, 0
		var l1 float64
		for i < ie || j < je {
			switch {
			case j >= je || (i < ie && ex.Indices[i] < ap.Indices[j]):
				l1 += math.Abs(float64(ex.Values[i]))
				union++
				i++
			case i >= ie || ap.Indices[j] < ex.Indices[i]:
				l1 += math.Abs(float64(ap.Values[j]))
				union++
				j++
			default:
				l1 += math.Abs(float64(ex.Values[i] - ap.Values[j]))
				inter++
				union++
				i++
				j++
			}
		}
		if union > 0 {
			jacc += float64(inter) / float64(union)
		}
		l1Mean += l1
		l1Max = max(l1Max, l1)
	}
	return jacc / float64(ex.Rows), l1Mean / float64(ex.Rows), l1Max
}

func minTime(runs int, f func()) time.Duration {
	best := time.Duration(math.MaxInt64)
	for range runs {
		t0 := time.Now()
		f()
		best = min(best, time.Since(t0))
	}
	return best
}

// TestGDCApproxTable prints exact-vs-push agreement and timings for the
// table in .notes/bench_graph.md. Opt-in (about a minute):
//
//	RGNN_GRAPH_TABLE=1 go test ./graph -run TestGDCApproxTable -v
func TestGDCApproxTable(t *testing.T) {
	if os.Getenv("RGNN_GRAPH_TABLE") == "" {
		t.Skip("set RGNN_GRAPH_TABLE=1 to print the exact-vs-approximate GDC table")
	}
	t.Logf("| dataset | method | time (s) | mean top-64 Jaccard | mean L1/row | max L1/row |")
	t.Logf("|---|---|---|---|---|---|")
	for _, name := range []string{"cora_ml", "citeseer"} {
		adj := dataset(t, name).Adj
		var ex *tensor.CSR
		te := minTime(2, func() {
			var err error
			if ex, err = graph.ExactGDC(adj, 0.15, 64); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("| %s (n=%d, m=%d) | exact | %.3f | 1 | 0 | 0 |", name, adj.Rows, adj.Nnz()/2, te.Seconds())
		for _, eps := range []float64{1e-3, 1e-4, 1e-5, 1e-6} {
			var ap *tensor.CSR
			ta := minTime(3, func() {
				var err error
				if ap, err = graph.ApproxGDC(adj, 0.15, 64, eps); err != nil {
					t.Fatal(err)
				}
			})
			j, l1, l1max := rowAgreement(ex, ap)
			t.Logf("| %s | push eps=%g | %.3f | %.4f | %.2e | %.2e |", name, eps, ta.Seconds(), j, l1, l1max)
		}
	}
}

func BenchmarkExactGDC(b *testing.B) {
	a := dataset(b, "cora_ml").Adj
	c0, _ := cputime.Process()
	for b.Loop() {
		if _, err := graph.ExactGDC(a, 0.15, 64); err != nil {
			b.Fatal(err)
		}
	}
	if c1, ok := cputime.Process(); ok {
		b.ReportMetric(float64(c1-c0)/1e6/float64(b.N), "cpu-ms/op")
	}
}

func BenchmarkApproxGDC(b *testing.B) {
	a := dataset(b, "cora_ml").Adj
	for b.Loop() {
		if _, err := graph.ApproxGDC(a, 0.15, 64, 1e-4); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSVDGraph(b *testing.B) {
	a := dataset(b, "cora_ml").Adj
	for b.Loop() {
		if _, err := graph.SVDGraph(a, 50); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJaccard(b *testing.B) {
	g := dataset(b, "cora_ml")
	for b.Loop() {
		if _, _, err := graph.JaccardFilter(g.Adj, g.Features, graph.DefaultJaccardThreshold); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFlipEdges(b *testing.B) {
	a := dataset(b, "cora_ml").Adj
	pairs := [][2]int{}
	for i := 0; i < 100; i++ {
		pairs = append(pairs, [2]int{i, a.Rows - 1 - i})
	}
	for b.Loop() {
		if _, err := graph.FlipEdges(a, pairs); err != nil {
			b.Fatal(err)
		}
	}
}
