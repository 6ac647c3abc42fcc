package graph

import (
	"math"
	"runtime"
	"slices"
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
			a := randomGraph(t, tc.n, tc.extra, uint64(tc.n))
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
	r := randomGraph(t, 385, 500, 9)
	for _, e := range UpperTriangleEdges(r) {
		edges = append(edges, [2]int{e[0] + 15, e[1] + 15})
	}
	a := undirected(t, 400, edges)
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

func TestSVDNormAdj(t *testing.T) {
	a := randomGraph(t, 30, 40, 2)
	lr, err := TruncatedSVD(a, 6)
	if err != nil {
		t.Fatal(err)
	}
	g, err := SVDNormAdj(lr)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	n := 30
	rows := make([]float64, n)
	for i := 0; i < n; i++ {
		rows[i] = 1
		for j := 0; j < n; j++ {
			rows[i] += lr.At(i, j)
		}
	}
	d := g.ToDense()
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m := lr.At(i, j)
			if i == j {
				m++
			}
			want := m / math.Sqrt(rows[i]*rows[j])
			if got := float64(d.At(i, j)); math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("(%d,%d) = %v, want %v", i, j, got, want)
			}
		}
	}
	if g.Nnz() != n*n {
		t.Errorf("nnz %d, want %d", g.Nnz(), n*n)
	}
}

func TestSVDDeterministic(t *testing.T) {
	a := randomGraph(t, 700, 1500, 4)
	run := func(p int) *tensor.CSR {
		old := runtime.GOMAXPROCS(p)
		defer runtime.GOMAXPROCS(old)
		g, err := SVDGraph(a, 20)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g1, g2 := run(1), run(2)
	if !slices.Equal(g1.Values, g2.Values) || !slices.Equal(g1.Indices, g2.Indices) {
		t.Fatal("SVD graph depends on GOMAXPROCS")
	}
}

func TestSVDErrors(t *testing.T) {
	a := randomGraph(t, 10, 5, 1)
	asym := a.Clone()
	asym.Values[0] = 2
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"rank0", func() error { _, err := TruncatedSVD(a, 0); return err }, "rank"},
		{"rank n", func() error { _, err := TruncatedSVD(a, 10); return err }, "rank"},
		{"asym", func() error { _, err := TruncatedSVD(asym, 2); return err }, "symmetric"},
		{"nil", func() error { _, err := SVDGraph(nil, 2); return err }, "nil"},
	} {
		if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
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
	a := undirected(t, 300, edges)
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
	if _, err := SVDNormAdj(lr); err != nil {
		t.Fatal(err)
	}
}
