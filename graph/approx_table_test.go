package graph

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/rgnn/rgnn/tensor"
)

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
// table in .notes/bench_graph.md. Opt-in (it takes ~20 s):
//
//	RGNN_GRAPH_TABLE=1 go test ./graph -run TestGDCApproxTable -v
func TestGDCApproxTable(t *testing.T) {
	if os.Getenv("RGNN_GRAPH_TABLE") == "" {
		t.Skip("set RGNN_GRAPH_TABLE=1 to print the exact-vs-approximate GDC table")
	}
	for _, ds := range benchGraphs(t) {
		var ex *tensor.CSR
		te := minTime(2, func() {
			var err error
			if ex, err = ExactGDC(ds.adj, 0.15, 64); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s (n=%d, %d edges): exact %.3f s", ds.name, ds.adj.Rows, ds.adj.Nnz()/2, te.Seconds())
		t.Logf("| dataset | eps | time (s) | mean top-64 Jaccard | mean L1/row | max L1/row |")
		for _, eps := range []float64{1e-3, 1e-4, 1e-5, 1e-6} {
			var ap *tensor.CSR
			ta := minTime(3, func() {
				var err error
				if ap, err = ApproxGDC(ds.adj, 0.15, 64, eps); err != nil {
					t.Fatal(err)
				}
			})
			j, l1, l1max := rowAgreement(ex, ap)
			t.Logf("| %s | %g | %.3f | %.4f | %.2e | %.2e |", ds.name, eps, ta.Seconds(), j, l1, l1max)
		}
	}
}

type benchGraph struct {
	name     string
	adj      *tensor.CSR
	features *tensor.CSR
}

// syntheticFeatures is a sparse binary n×d matrix with about nnzPerRow
// entries per row, for the Jaccard benchmark without the datasets.
func syntheticFeatures(n, d, nnzPerRow int, seed uint64) *tensor.CSR {
	r := rand.New(rand.NewPCG(seed, 1))
	var es []tensor.Entry
	for i := 0; i < n; i++ {
		for range nnzPerRow {
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(r.IntN(d)), Val: 1})
		}
	}
	x, _ := tensor.FromCOO(n, d, es)
	for i := range x.Values {
		x.Values[i] = 1
	}
	return x
}

