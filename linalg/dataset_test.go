package linalg_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

// coraML loads the standardised cora_ml adjacency, or skips.
func coraML(tb testing.TB) *tensor.CSR {
	tb.Helper()
	g, err := data.LoadFile(filepath.Join(fixture.DataDir(tb), "cora_ml.npz"), false)
	if err != nil {
		tb.Fatalf("load cora_ml: %v", err)
	}
	return g.Adj
}

// TestTruncatedSVDCoraML compares block Lanczos with gonum's dense
// EigenSym (values only) on cora_ml. Slow (dense O(n³), ~10 s); skipped
// with -short.
func TestTruncatedSVDCoraML(t *testing.T) {
	if testing.Short() {
		t.Skip("dense 2810² eigendecomposition; skipped with -short")
	}
	a := coraML(t)
	t0 := time.Now()
	lr, err := linalg.TruncatedSVD(a, 50)
	if err != nil {
		t.Fatal(err)
	}
	tl := time.Since(t0)
	n := a.Rows
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			if j := int(a.Indices[k]); j >= i {
				s.SetSym(i, j, float64(a.Values[k]))
			}
		}
	}
	t0 = time.Now()
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		t.Fatal("EigenSym failed")
	}
	td := time.Since(t0)
	sv := es.Values(nil)
	for i, v := range sv {
		sv[i] = math.Abs(v)
	}
	slices.Sort(sv)
	slices.Reverse(sv)
	var maxRel float64
	for i, g := range lr.SingularValues() {
		maxRel = max(maxRel, math.Abs(g-sv[i])/sv[i])
	}
	t.Logf("n=%d: block Lanczos %v, dense EigenSym (values only) %v, max rel σ error %.2g; σ_1=%.6g σ_50=%.6g σ_51=%.6g",
		n, tl, td, maxRel, sv[0], sv[49], sv[50])
	if maxRel > 1e-6 {
		t.Errorf("max relative singular value error %g > 1e-6", maxRel)
	}
}

func BenchmarkTruncatedSVD(b *testing.B) {
	a := coraML(b)
	for b.Loop() {
		if _, err := linalg.TruncatedSVD(a, 50); err != nil {
			b.Fatal(err)
		}
	}
}

// deleteEdges returns a with every undirected edge kept with probability
// 1−p (randomized smoothing's deletions), from a seeded generator.
func deleteEdges(a *tensor.CSR, p float64, seed uint64) *tensor.CSR {
	rng := rand.New(rand.NewPCG(seed, 1))
	var pairs [][2]int
	for i := 0; i < a.Rows; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			if j := int(a.Indices[k]); j > i && rng.Float64() < p {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	out, err := graph.FlipEdges(a, pairs)
	if err != nil {
		panic(err)
	}
	return out
}

// BenchmarkTruncatedSVDSampled is the SVD of certification's sampled
// graphs: cora_ml with 40% of the edges deleted (8 fixed samples per op).
func BenchmarkTruncatedSVDSampled(b *testing.B) {
	a := coraML(b)
	var samples []*tensor.CSR
	for s := range 8 {
		samples = append(samples, deleteEdges(a, 0.4, uint64(s)))
	}
	c0, _ := cputime.Process()
	for b.Loop() {
		for _, s := range samples {
			if _, err := linalg.TruncatedSVD(s, 50); err != nil {
				b.Fatal(err)
			}
		}
	}
	if c1, ok := cputime.Process(); ok {
		b.ReportMetric(float64(c1-c0)/1e6/float64(8*b.N), "cpu-ms/svd")
	}
}
