package aggregate

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/tensor"
)

// benchGraph is the cora_ml first layer after GDC: n = 2810 rows with 64
// weighted entries each, d = 64.
func benchGraph() (*tensor.CSR, *tensor.Dense, *tensor.Dense) {
	rng := rand.New(rand.NewPCG(1, 1))
	n, k, d := 2810, 64, 64
	var es []tensor.Entry
	for i := 0; i < n; i++ {
		seen := map[int]bool{i: true}
		es = append(es, tensor.Entry{Row: int32(i), Col: int32(i), Val: 0.2})
		for len(seen) < k {
			j := rng.IntN(n)
			if !seen[j] {
				seen[j] = true
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(rng.Float64() * 0.02)})
			}
		}
	}
	a, _ := tensor.FromCOO(n, n, es)
	return a, randX(rng, n, d), randX(rng, n, d)
}

func BenchmarkForward(b *testing.B) {
	a, x, _ := benchGraph()
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			agg, _ := New(name, Options{K: 64, Temperature: 0.5})
			out := tensor.NewDense(a.Rows, x.Cols)
			agg.Forward(a, x, out)
			b.ReportAllocs()
			c0 := cpuSeconds()
			for b.Loop() {
				agg.Forward(a, x, out)
			}
			reportCPU(b, c0)
		})
	}
}

func BenchmarkForwardBackward(b *testing.B) {
	a, x, g := benchGraph()
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			agg, _ := New(name, Options{K: 64, Temperature: 0.5})
			out := tensor.NewDense(a.Rows, x.Cols)
			gx := tensor.NewDense(x.Rows, x.Cols)
			gv := make([]float32, a.Nnz())
			// A warm-up step allocates the buffers (the Soft Medoid's kept
			// distances among them), once.
			agg.Backward(forwardForBackward(agg, a, x, out), g, gx, gv)
			b.ReportAllocs()
			c0 := cpuSeconds()
			for b.Loop() {
				st := forwardForBackward(agg, a, x, out)
				agg.Backward(st, g, gx, gv)
			}
			reportCPU(b, c0)
		})
	}
}

// forwardForBackward is the forward pass autograd.Tape.Aggregate runs when
// a Backward follows: ForwardForBackward where agg has one.
func forwardForBackward(agg Aggregator, a *tensor.CSR, x, out *tensor.Dense) any {
	if fb, ok := agg.(interface {
		ForwardForBackward(a *tensor.CSR, x, out *tensor.Dense) any
	}); ok {
		return fb.ForwardForBackward(a, x, out)
	}
	return agg.Forward(a, x, out)
}

// cpuSeconds is the process's CPU time so far (0 where not reported).
func cpuSeconds() float64 {
	c, _ := cputime.Process()
	return c.Seconds()
}

// gdcEmbeddings loads dataset ds from dir (binary attributes) and returns
// its GDC rows (α = 0.15, k = 64) and a first layer's embeddings: the
// features times a random 0.05·N(0, 1) weight matrix with 64 columns.
func gdcEmbeddings(tb testing.TB, dir, ds string) (*tensor.CSR, *tensor.Dense) {
	tb.Helper()
	g, err := data.Load(context.Background(), ds, data.Options{Dir: dir, BinaryAttr: true})
	if err != nil {
		tb.Fatal(err)
	}
	a, err := graph.GDC(g.Adj, graph.DefaultGDCConfig())
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	w := tensor.NewDense(g.Features.Cols, 64)
	for i := range w.Data {
		w.Data[i] = float32(0.05 * rng.NormFloat64())
	}
	x := tensor.NewDense(a.Rows, 64)
	tensor.SpMM(x, g.Features, w, false)
	return a, x
}

// BenchmarkForwardGDC is the median aggregations' forward on the GDC rows
// (α = 0.15, k = 64) of cora_ml and citeseer with a first layer's
// embeddings (binary features times a random 0.05·N(0, 1) weight matrix,
// d = 64): unlike benchGraph's, feature vectors repeat, so their values
// tie. It needs the datasets ($RGNN_DATA_DIR).
func BenchmarkForwardGDC(b *testing.B) {
	dir := fixture.DataDir(b)
	for _, ds := range []string{"cora_ml", "citeseer"} {
		a, x := gdcEmbeddings(b, dir, ds)
		for _, name := range []string{"dimmedian", "soft_median"} {
			b.Run(ds+"/"+name, func(b *testing.B) {
				agg, _ := New(name, Options{K: 64, Temperature: 0.5})
				out := tensor.NewDense(a.Rows, x.Cols)
				agg.Forward(a, x, out)
				c0 := cpuSeconds()
				for b.Loop() {
					agg.Forward(a, x, out)
				}
				reportCPU(b, c0)
			})
		}
	}
}

// reportCPU adds the process CPU time per operation (all goroutines) as
// "cpu-ms/op": on a shared machine it is much less sensitive to other
// processes than the wall time, and on an idle one the wall time is about
// cpu-ms/op divided by the cores used.
func reportCPU(b *testing.B, c0 float64) {
	if c := cpuSeconds(); c > 0 && b.N > 0 {
		b.ReportMetric((c-c0)*1e3/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkForwardBackwardNarrow is the Soft Medoid's forward+backward on
// benchGraph with d = 7: the second layer of Soft Medoid GDC on cora_ml
// (7 classes).
func BenchmarkForwardBackwardNarrow(b *testing.B) {
	a, _, _ := benchGraph()
	rng := rand.New(rand.NewPCG(1, 9))
	x, g := randX(rng, a.Rows, 7), randX(rng, a.Rows, 7)
	agg, _ := New("soft_k_medoid", Options{K: 64, Temperature: 0.5})
	out := tensor.NewDense(a.Rows, x.Cols)
	gx := tensor.NewDense(x.Rows, x.Cols)
	gv := make([]float32, a.Nnz())
	agg.Backward(forwardForBackward(agg, a, x, out), g, gx, gv) // warm-up
	b.ReportAllocs()
	c0 := cpuSeconds()
	for b.Loop() {
		agg.Backward(forwardForBackward(agg, a, x, out), g, gx, gv)
	}
	reportCPU(b, c0)
}

// BenchmarkGramBlocks is the matrix-product part of the Soft Medoid's
// distances alone, for one neighbourhood of k = 64 rows of d = 64 in the
// cache: the blocks on and above the diagonal that workspace.distances
// computes (two diagonal 32-blocks without their lower-left 16×16 tiles,
// one whole 32×32 block; 163,840 multiply-adds). It reports the rate in
// GFLOP/s: the ceiling of the kernels on this core, against which the
// forward pass's time is read (BenchmarkForward computes 2,810 of these,
// 0.92 GFLOP).
func BenchmarkGramBlocks(b *testing.B) {
	const nk, d = 64, 64
	rng := rand.New(rand.NewPCG(3, 3))
	xs := make([]float32, nk*d)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64())
	}
	xt := make([]float32, nk*d) // per 32-column block the d×32 transpose
	for bj := 0; bj < nk/gramBlock; bj++ {
		for c := 0; c < gramBlock; c++ {
			for t := 0; t < d; t++ {
				xt[bj*gramBlock*d+t*gramBlock+c] = xs[(bj*gramBlock+c)*d+t]
			}
		}
	}
	dist := make([]float32, nk*nk)
	var ws workspace
	gram := func() {
		for bi := 0; bi < nk/gramBlock; bi++ {
			xsI := xs[bi*gramBlock*d : (bi+1)*gramBlock*d]
			for bj := bi; bj < nk/gramBlock; bj++ {
				j0 := bj * gramBlock
				xtJ := xt[bj*gramBlock*d : (bj+1)*gramBlock*d]
				if bj == bi && gemmDiag(dist[bi*gramBlock*nk+j0:], nk, xsI, xtJ, d) {
					continue
				}
				gemmStrided(dist[bi*gramBlock*nk+j0:], nk, xsI, xtJ, gramBlock, d, gramBlock, gramBlock, &ws)
			}
		}
	}
	gram()
	macs := 2*(16*32+2*8*16)*d + 32*32*d
	if !gemmDiag(make([]float32, gramBlock*nk), nk, xs, xt, d) { // whole diagonal blocks here
		macs = 3 * 32 * 32 * d
	}
	b.ReportAllocs()
	c0 := cpuSeconds()
	for b.Loop() {
		gram()
	}
	reportCPU(b, c0)
	b.ReportMetric(2*float64(macs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
