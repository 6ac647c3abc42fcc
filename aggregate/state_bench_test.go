package aggregate

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// arxivGDCGraph is shaped like ogbn-arxiv after GDC: 169,343 rows with 64
// weighted entries each (the self loop and 63 random columns), and
// embeddings of width d.
func arxivGDCGraph(d int) (*tensor.CSR, *tensor.Dense, *tensor.Dense) {
	const n, k = 169343, 64
	rng := rand.New(rand.NewPCG(2, 2))
	a := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1),
		Indices: make([]int32, 0, n*k), Values: make([]float32, 0, n*k)}
	row := make([]int32, 0, k)
	for i := range n {
		row = append(row[:0], int32(i))
		for len(row) < k {
			j := int32(rng.IntN(n))
			if !slices.Contains(row, j) {
				row = append(row, j)
			}
		}
		slices.Sort(row)
		for _, j := range row {
			v := float32(rng.Float64() * 0.02)
			if int(j) == i {
				v = 0.2
			}
			a.Indices = append(a.Indices, j)
			a.Values = append(a.Values, v)
		}
		a.Indptr[i+1] = len(a.Indices)
	}
	return a, randX(rng, n, d), randX(rng, n, d)
}

// BenchmarkForwardBackwardArxiv is one forward + backward of the Soft
// Medoid and the Soft Median at the arXiv-after-GDC shape (n = 169,343,
// k = 64, d = 64) for three state budgets: unbounded (everything kept, the
// Soft Medoid's distances included), the default, and 1 byte (only O(rows)
// kept; Backward recomputes every row). It reports the heap the aggregator
// holds after a step ("held-MB": its kept state plus its gradient and
// scratch buffers, measured after a GC; not out, ∂x and ∂A, 43 MB each) and the bytes allocated by the
// first step ("first-step-MB"). Slow; run alone:
//
//	go test ./aggregate -run '^$' -bench ForwardBackwardArxiv -benchtime 2x
func BenchmarkForwardBackwardArxiv(b *testing.B) {
	a, x, g := arxivGDCGraph(64)
	for _, name := range []string{"soft_k_medoid", "soft_median"} {
		for _, budget := range []int64{-1, 0, 1} {
			b.Run(fmt.Sprintf("%s/budget=%d", name, budget), func(b *testing.B) {
				out := tensor.NewDense(a.Rows, x.Cols)
				gx := tensor.NewDense(x.Rows, x.Cols)
				gv := make([]float32, a.Nnz())
				var m0, m1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m0)
				agg, _ := New(name, Options{K: 64, Temperature: 0.5, MaxStateBytes: budget})
				agg.Backward(forwardForBackward(agg, a, x, out), g, gx, gv)
				runtime.ReadMemStats(&m1)
				first := m1.TotalAlloc - m0.TotalAlloc
				runtime.GC()
				runtime.ReadMemStats(&m1)
				held := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
				b.ReportAllocs()
				c0 := cpuSeconds()
				for b.Loop() {
					agg.Backward(forwardForBackward(agg, a, x, out), g, gx, gv)
				}
				reportCPU(b, c0)
				b.ReportMetric(float64(held)/(1<<20), "held-MB")
				b.ReportMetric(float64(first)/(1<<20), "first-step-MB")
				b.ReportMetric(float64(levelOf(agg)), "keep-level")
				runtime.KeepAlive(agg)
			})
		}
	}
}
