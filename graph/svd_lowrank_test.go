package graph

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

// TestSVDLowRankMatchesDense: the low-rank propagation Op·H equals the
// dense path's Âᵀ·H (the CSR of SVDNormAdj, float32 entries) within float
// tolerance, on the dense-eigensolver and the Lanczos paths.
func TestSVDLowRankMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, tc := range []struct{ n, extra, rank int }{{30, 40, 6}, {400, 900, 10}, {600, 1500, 50}} {
		a := randomGraph(t, tc.n, tc.extra, uint64(tc.n)+1)
		s, err := SVDLowRank(a, tc.rank)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Op.Validate(); err != nil {
			t.Fatal(err)
		}
		dense, err := s.Dense()
		if err != nil {
			t.Fatal(err)
		}
		at, _ := dense.Transpose()
		for _, d := range []int{1, 7, 64} {
			h := tensor.NewDense(tc.n, d)
			for i := range h.Data {
				h.Data[i] = float32(rng.NormFloat64())
			}
			got := tensor.NewDense(tc.n, d)
			s.Op.Mul(got, h, false)
			for i := 0; i < tc.n; i++ {
				for c := 0; c < d; c++ {
					var want, scale float64
					for k := at.Indptr[i]; k < at.Indptr[i+1]; k++ {
						v := float64(at.Values[k]) * float64(h.At(int(at.Indices[k]), c))
						want += v
						scale += math.Abs(v)
					}
					if g := float64(got.At(i, c)); math.Abs(g-want) > 1e-6*(1+scale) {
						t.Fatalf("n %d d %d: (Op·H)[%d,%d] = %.9g, dense Âᵀ·H %.9g", tc.n, d, i, c, g, want)
					}
				}
			}
		}
		// the operator's entries are the dense graph's
		dd := dense.ToDense()
		for i := 0; i < tc.n; i += 7 {
			for j := 0; j < tc.n; j += 5 {
				if math.Abs(s.Op.At(i, j)-float64(dd.At(i, j))) > 1e-6*math.Max(1, math.Abs(s.Op.At(i, j))) {
					t.Fatalf("Op(%d,%d) = %g, dense %g", i, j, s.Op.At(i, j), dd.At(i, j))
				}
			}
		}
	}
}

// TestSVDNormNegativeRowSum: both forms give a negative row sum of L + I
// the reference's NaN scale (torch's pow(−0.5)), so the graph's row and
// column are NaN and the model predicts class 0 everywhere, as the
// reference does on such a sampled graph.
func TestSVDNormNegativeRowSum(t *testing.T) {
	// L = −3·v vᵀ with v = (1, 1)/√2: rows of L + I sum to 1 − 3 = −2.
	l := &linalg.LowRank{N: 2, Rank: 1, Values: []float64{-3}, Vectors: []float64{1 / math.Sqrt2, 1 / math.Sqrt2}}
	s, err1 := NewSVDNorm(l)
	d, err2 := SVDNormAdj(l)
	if err1 != nil || err2 != nil {
		t.Fatalf("errors %v and %v", err1, err2)
	}
	if !math.IsNaN(s.Scale[0]) || !math.IsNaN(s.Op.Diag[1]) {
		t.Errorf("low-rank scale %v, diagonal %v: want NaN", s.Scale, s.Op.Diag)
	}
	if k := s.NegativeRows(); k != 2 {
		t.Errorf("NegativeRows = %d, want 2", k)
	}
	for _, v := range d.Values {
		if !math.IsNaN(float64(v)) {
			t.Errorf("dense entries %v: want NaN", d.Values)
			break
		}
	}
}

// TestSVDLowRankBeyondDenseLimit: the low-rank form works above the dense
// form's MaxSVDGraphNodes (several node chunks of the Lanczos kernels), its
// bits do not depend on GOMAXPROCS, and the dense form refuses by name.
func TestSVDLowRankBeyondDenseLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a 21,000-node SVD")
	}
	n := MaxSVDGraphNodes + 1000
	a := randomGraph(t, n, 3*n, 11)
	run := func(p int) *SVDNorm {
		old := runtime.GOMAXPROCS(p)
		defer runtime.GOMAXPROCS(old)
		s, err := SVDLowRank(a, 10)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s1, s3 := run(1), run(3)
	if !slices.Equal(s1.L.Values, s3.L.Values) || !slices.Equal(s1.L.Vectors, s3.L.Vectors) || !slices.Equal(s1.Op.U, s3.Op.U) {
		t.Fatal("the SVD depends on GOMAXPROCS")
	}
	// A·v = λ·v for the kept pairs.
	v := make([]float64, n)
	for t0 := 0; t0 < 10; t0++ {
		for i := range v {
			v[i] = s1.L.Vectors[i*10+t0]
		}
		var res float64
		for i := 0; i < n; i++ {
			var av float64
			for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
				av += float64(a.Values[k]) * v[a.Indices[k]]
			}
			res = max(res, math.Abs(av-s1.L.Values[t0]*v[i]))
		}
		if res > 1e-8*math.Abs(s1.L.Values[0]) {
			t.Fatalf("pair %d: residual %g", t0, res)
		}
	}
	if _, err := SVDGraph(a, 10); err == nil || !strings.Contains(err.Error(), "MaxSVDGraphNodes") {
		t.Fatalf("dense form: error %v", err)
	}
}

// svdDigest hashes the bits of the low-rank SVD graph of a fixed random
// graph (block Lanczos path).
func svdDigest(t *testing.T) uint64 {
	a := randomGraph(t, 700, 1500, 4)
	s, err := SVDLowRank(a, 20)
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	for _, v := range [][]float64{s.L.Values, s.L.Vectors, s.Op.U, s.Op.Diag} {
		for _, x := range v {
			binary.Write(h, binary.LittleEndian, math.Float64bits(x))
		}
	}
	return h.Sum64()
}

// TestSVDBitsPinned pins the truncated SVD's bits: the same in the
// assembly, archsimd and portable builds (every kernel is a chain of fused
// multiply-adds in a fixed order; the scalar code is not fused on amd64)
// and at any GOMAXPROCS. Other architectures and GOAMD64 ≥ v3 may fuse the
// scalar code's multiply-adds (Go allows it), so the digest is that of
// amd64 with the default GOAMD64=v1.
func TestSVDBitsPinned(t *testing.T) {
	if runtime.GOARCH != "amd64" || fusedBuild {
		t.Skip("digest of amd64 with GOAMD64=v1")
	}
	const want = 0xc0116437ffc87c8a
	if got := svdDigest(t); got != want {
		t.Fatalf("SVD digest %#x, want %#x", got, uint64(want))
	}
}

// TestSVDNormMalformed: malformed low-rank input is an error in both forms,
// and a non-finite adjacency is an error.
func TestSVDNormMalformed(t *testing.T) {
	for _, l := range []*linalg.LowRank{nil, {N: 3, Rank: 1, Values: []float64{1}, Vectors: []float64{1, 2}}, {N: 2, Rank: 0}} {
		if _, err := NewSVDNorm(l); err == nil {
			t.Errorf("NewSVDNorm(%+v): no error", l)
		}
		if _, err := SVDNormAdj(l); err == nil {
			t.Errorf("SVDNormAdj(%+v): no error", l)
		}
	}
	a := randomGraph(t, 400, 900, 3)
	c := int(a.Indices[a.Indptr[7]]) // an edge (7, c), made infinite both ways
	k, _ := a.Find(c, 7)
	a.Values[a.Indptr[7]], a.Values[k] = float32(math.Inf(1)), float32(math.Inf(1))
	if _, err := SVDLowRank(a, 10); err == nil {
		t.Errorf("infinite adjacency: error %v", err)
	}
}
