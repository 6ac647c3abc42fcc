package graph

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

func TestSVDNormAdj(t *testing.T) {
	a := randomGraph(t, 30, 40, 2)
	lr, err := linalg.TruncatedSVD(a, 6)
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
		{"rank0", func() error { _, err := SVDLowRank(a, 0); return err }, "rank"},
		{"rank n", func() error { _, err := SVDLowRank(a, 10); return err }, "rank"},
		{"asym", func() error { _, err := SVDLowRank(asym, 2); return err }, "symmetric"},
		{"nil", func() error { _, err := SVDGraph(nil, 2); return err }, "nil"},
	} {
		if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestSVDGraphStar: a star has only two nonzero eigenvalues, the other kept
// pairs come from the null space; both forms of the graph are built.
func TestSVDGraphStar(t *testing.T) {
	var edges [][2]int
	for v := 1; v < 300; v++ {
		edges = append(edges, [2]int{0, v})
	}
	a := undirected(t, 300, edges)
	if _, err := SVDGraph(a, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := SVDLowRank(a, 5); err != nil {
		t.Fatal(err)
	}
}
