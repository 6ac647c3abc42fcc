package linalg

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rgnn/rgnn/tensor"
)

// denseTruncSVD is the reference: gonum's dense SVD, the rank largest
// singular values and L = U_r S_r V_rᵀ.
func denseTruncSVD(t *testing.T, a *tensor.CSR, rank int) (sv []float64, l *mat.Dense) {
	t.Helper()
	n := a.Rows
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			d.Set(i, int(a.Indices[k]), float64(a.Values[k]))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(d, mat.SVDThin) {
		t.Fatal("gonum SVD failed")
	}
	vals := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	us := mat.DenseCopyOf(u.Slice(0, n, 0, rank))
	for j := 0; j < rank; j++ {
		for i := 0; i < n; i++ {
			us.Set(i, j, us.At(i, j)*vals[j])
		}
	}
	l = mat.NewDense(n, n, nil)
	l.Mul(us, v.Slice(0, n, 0, rank).T())
	return vals[:rank], l
}

func TestTruncatedSVDvsDense(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, extra  int
		rank      int
		wantDense bool
	}{
		{"small dense path", 40, 60, 5, true},
		{"lanczos path", 400, 900, 10, false},
		{"lanczos rank 50", 600, 1500, 50, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := randomSym(t, tc.n, tc.extra, uint64(tc.n))
			b := lanczosBlock(tc.rank)
			if dense := tc.n <= 4*(tc.rank+b) || tc.n <= 256; dense != tc.wantDense {
				t.Fatalf("test does not exercise the intended path")
			}
			lr, err := TruncatedSVD(a, tc.rank)
			if err != nil {
				t.Fatal(err)
			}
			sv, ld := denseTruncSVD(t, a, tc.rank)
			got := lr.SingularValues()
			for i := range sv {
				if !closeRel(got[i], sv[i], 1e-10) {
					t.Errorf("σ_%d = %.15g, want %.15g", i, got[i], sv[i])
				}
			}
			var maxErr float64
			for i := 0; i < tc.n; i++ {
				for j := 0; j < tc.n; j++ {
					maxErr = max(maxErr, math.Abs(lr.At(i, j)-ld.At(i, j)))
				}
			}
			if maxErr > 1e-8 {
				t.Errorf("max |L − L_dense| = %g", maxErr)
			}
			// orthonormal vectors
			for s := 0; s < tc.rank; s++ {
				for u := s; u < tc.rank; u++ {
					var d float64
					for i := 0; i < tc.n; i++ {
						d += lr.Vectors[i*tc.rank+s] * lr.Vectors[i*tc.rank+u]
					}
					want := 0.0
					if s == u {
						want = 1
					}
					if math.Abs(d-want) > 1e-10 {
						t.Fatalf("v_%d·v_%d = %g", s, u, d)
					}
				}
			}
		})
	}
}

// TestTruncatedSVDMultiplicity: disjoint identical triangles give
// eigenvalue 2 with multiplicity 3 among the largest; block Lanczos must
// find every copy.
func TestTruncatedSVDMultiplicity(t *testing.T) {
	var edges [][2]int
	for c := 0; c < 3; c++ { // three K5's: eigenvalue 4, multiplicity 3
		for i := 0; i < 5; i++ {
			for j := i + 1; j < 5; j++ {
				edges = append(edges, [2]int{5*c + i, 5*c + j})
			}
		}
	}
	// plus a random sparse part on nodes 15..399
	for _, e := range randomEdges(385, 500, 9) {
		edges = append(edges, [2]int{e[0] + 15, e[1] + 15})
	}
	a := symmetric01(t, 400, edges)
	lr, err := TruncatedSVD(a, 8)
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := denseTruncSVD(t, a, 8)
	for i := range sv {
		if !closeRel(lr.SingularValues()[i], sv[i], 1e-10) {
			t.Errorf("σ = %v, want %v", lr.SingularValues(), sv)
			break
		}
	}
}

// TestTruncatedSVDLowRankGraph: a star has only two nonzero eigenvalues;
// the remaining kept pairs come from the null space (Krylov breakdown must
// be handled by deflation).
func TestTruncatedSVDLowRankGraph(t *testing.T) {
	var edges [][2]int
	for v := 1; v < 300; v++ {
		edges = append(edges, [2]int{0, v})
	}
	a := symmetric01(t, 300, edges)
	lr, err := TruncatedSVD(a, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Sqrt(299), math.Sqrt(299), 0, 0, 0}
	for i, s := range lr.SingularValues() {
		if math.Abs(s-want[i]) > 1e-8 {
			t.Fatalf("σ = %v, want %v", lr.SingularValues(), want)
		}
	}
}

// TestTruncatedSVDNodeLimit: above MaxSVDNodes the SVD is refused by name.
func TestTruncatedSVDNodeLimit(t *testing.T) {
	n := MaxSVDNodes + 1
	a := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	_, err := TruncatedSVD(a, 50)
	if err == nil || !strings.Contains(err.Error(), "MaxSVDNodes") {
		t.Fatalf("error %v", err)
	}
}

func TestTruncatedSVDErrors(t *testing.T) {
	a := randomSym(t, 10, 5, 1)
	asym := a.Clone()
	asym.Values[0] = 2
	inf := randomSym(t, 400, 900, 3)
	c := int(inf.Indices[inf.Indptr[7]]) // an edge (7, c), made infinite both ways
	k, _ := inf.Find(c, 7)
	inf.Values[inf.Indptr[7]], inf.Values[k] = float32(math.Inf(1)), float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		a    *tensor.CSR
		rank int
		want string
	}{
		{"rank0", a, 0, "rank"},
		{"rank n", a, 10, "rank"},
		{"asym", asym, 2, "symmetric"},
		{"nil", nil, 2, "nil"},
		{"non-square", &tensor.CSR{Rows: 2, Cols: 3, Indptr: make([]int, 3)}, 1, "square"},
		{"infinite", inf, 10, "svd"},
	} {
		if _, err := TruncatedSVD(tc.a, tc.rank); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestTruncatedSVDBitsPinned pins the bits of block Lanczos on a fixed
// random graph: the same in the assembly, archsimd and portable builds
// (every kernel is a chain of fused multiply-adds in a fixed order; the
// scalar code is not fused on amd64) and at any GOMAXPROCS (graph's
// TestSVDLowRankBeyondDenseLimit checks several node chunks). Other
// architectures and GOAMD64 ≥ v3 may fuse the scalar code's multiply-adds
// (Go allows it), so the digest is that of amd64 with the default
// GOAMD64=v1.
func TestTruncatedSVDBitsPinned(t *testing.T) {
	if runtime.GOARCH != "amd64" || fusedBuild {
		t.Skip("digest of amd64 with GOAMD64=v1")
	}
	a := randomSym(t, 700, 1500, 4)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3} {
		runtime.GOMAXPROCS(procs)
		l, err := TruncatedSVD(a, 20)
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		for _, v := range [][]float64{l.Values, l.Vectors} {
			for _, x := range v {
				binary.Write(h, binary.LittleEndian, math.Float64bits(x))
			}
		}
		const want = 0xe33650e2bb8b071b
		if got := h.Sum64(); got != want {
			t.Fatalf("GOMAXPROCS %d: SVD digest %#x, want %#x", procs, got, uint64(want))
		}
	}
}
