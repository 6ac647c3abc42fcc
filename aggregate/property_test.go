package aggregate

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/rgnn/rgnn/tensor"
)

// point cloud helpers: one row (row 0) aggregating n points with weights w.
func cloud(n int, w []float32) *tensor.CSR {
	a := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	for j := 0; j < n; j++ {
		a.Indices = append(a.Indices, int32(j))
		a.Values = append(a.Values, w[j])
	}
	for r := 1; r <= n; r++ {
		a.Indptr[r] = n
	}
	return a
}

func estimate(agg Aggregator, a *tensor.CSR, x *tensor.Dense) []float64 {
	out := tensor.NewDense(a.Rows, x.Cols)
	agg.Forward(a, x, out)
	r := make([]float64, x.Cols)
	for j := range r {
		r[j] = float64(out.At(0, j))
	}
	return r
}

// genCloud draws n points in general position (an index-dependent offset
// keeps drawn duplicates apart, so medoids are unique).
func genCloud(t *rapid.T, n, d int) *tensor.Dense {
	x := tensor.NewDense(n, d)
	for i := range x.Data {
		row := i / d
		x.Data[i] = float32(rapid.Float64Range(-3, 3).Draw(t, "x") + 0.0137*float64(row*row+i%d))
	}
	return x
}

func uniform(n int) []float32 {
	w := make([]float32, n)
	for i := range w {
		w[i] = 1 / float32(n)
	}
	return w
}

func near(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*(1+math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// TestSoftMedoidEquivariance: t(Rx + c) = R t(x) + c for rotations R and
// translations c (the distances are invariant).
func TestSoftMedoidEquivariance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 12).Draw(t, "n")
		x := genCloud(t, n, 2)
		temp := rapid.Float64Range(0.05, 20).Draw(t, "T")
		theta := rapid.Float64Range(0, 2*math.Pi).Draw(t, "theta")
		cx, cy := rapid.Float64Range(-5, 5).Draw(t, "cx"), rapid.Float64Range(-5, 5).Draw(t, "cy")
		agg, _ := New("soft_k_medoid", Options{K: 64, Temperature: temp})
		a := cloud(n, uniform(n))
		base := estimate(agg, a, x)
		y := tensor.NewDense(n, 2)
		cs, sn := math.Cos(theta), math.Sin(theta)
		for i := 0; i < n; i++ {
			u, v := float64(x.At(i, 0)), float64(x.At(i, 1))
			y.Set(i, 0, float32(cs*u-sn*v+cx))
			y.Set(i, 1, float32(sn*u+cs*v+cy))
		}
		got := estimate(agg, a, y)
		want := []float64{cs*base[0] - sn*base[1] + cx, sn*base[0] + cs*base[1] + cy}
		if !near(got, want, 2e-3) {
			t.Fatalf("t(Rx+c) = %v, R t(x) + c = %v", got, want)
		}
	})
}

// TestSoftMedoidLimits: T → ∞ gives the weighted mean, T → 0 the weighted
// Medoid.
func TestSoftMedoidLimits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(3, 10).Draw(t, "n")
		x := genCloud(t, n, 3)
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(rapid.Float64Range(0.1, 1).Draw(t, "w") + 0.0173*float64(i))
		}
		a := cloud(n, w)
		hot, _ := New("soft_k_medoid", Options{K: 64, Temperature: 1e7})
		mean, _ := New("sum", Options{})
		if got, want := estimate(hot, a, x), estimate(mean, a, x); !near(got, want, 1e-4) {
			t.Fatalf("T→∞: %v, weighted sum %v", got, want)
		}
		cold, _ := New("soft_k_medoid", Options{K: 64, Temperature: 1e-6})
		med, _ := New("medoid", Options{})
		if got, want := estimate(cold, a, x), estimate(med, a, x); !near(got, want, 1e-4) {
			t.Fatalf("T→0: %v, weighted medoid %v", got, want)
		}
	})
}

// TestBreakdownPoint (Theorem 1): with m < n/2 points moved to a point mass
// at distance p the Soft Medoid stays bounded as p grows from 1e2 to 1e12,
// for any T in [1e-3, 1e3]; with m ≥ n/2 it follows p. With weights, it stays
// bounded while the perturbed weight is below the clean weight.
func TestBreakdownPoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(4, 20).Draw(t, "n")
		temp := math.Pow(10, rapid.Float64Range(-3, 3).Draw(t, "log10 T"))
		x := genCloud(t, n, 2)
		agg, _ := New("soft_k_medoid", Options{K: 64, Temperature: temp})
		perturbed := func(m int, p float64) *tensor.Dense {
			y := x.Clone()
			for i := 0; i < m; i++ {
				y.Set(i, 0, float32(p))
				y.Set(i, 1, float32(p))
			}
			return y
		}
		norm := func(v []float64) float64 { return math.Hypot(v[0], v[1]) }
		// Bounded: below a bound that depends on T and n but not on p; and
		// once p dwarfs T, inside the clean points' range (the perturbed
		// points get no weight).
		mBad := (n - 1) / 2 // m < n/2
		var clean float64
		for i := mBad; i < n; i++ {
			clean = max(clean, math.Hypot(float64(x.At(i, 0)), float64(x.At(i, 1))))
		}
		for _, p := range []float64{1e2, 1e4, 1e8, 1e12} {
			e := norm(estimate(agg, cloud(n, uniform(n)), perturbed(mBad, p)))
			if bound := 50 * (1 + temp) * float64(n); e > bound || math.IsNaN(e) {
				t.Fatalf("n=%d m=%d T=%g p=%g: estimate at distance %g, not bounded", n, mBad, temp, p, e)
			}
			if p >= 1e8 && e > clean+1e-3 {
				t.Fatalf("n=%d m=%d T=%g p=%g: estimate at %g, outside the clean points (max norm %g)", n, mBad, temp, p, e, clean)
			}
		}
		// m ≥ n/2 (strictly more than half of the weight): the estimate follows p.
		mOver := n/2 + 1
		if e := norm(estimate(agg, cloud(n, uniform(n)), perturbed(mOver, 1e8))); e < 1e7 {
			t.Fatalf("n=%d m=%d: estimate %g does not follow the perturbation", n, mOver, e)
		}
		// Weighted: perturbed weight below the clean weight stays bounded.
		w := make([]float32, n)
		for i := range w {
			w[i] = 1
		}
		m := n / 2
		for i := 0; i < m; i++ {
			w[i] = float32(n-m) / float32(m) * 0.9 // total perturbed weight 0.9 × clean
		}
		if e := norm(estimate(agg, cloud(n, w), perturbed(m, 1e10))); e > 10*float64(n) {
			t.Fatalf("weighted n=%d m=%d: estimate at %g", n, m, e)
		}
	})
}

// TestReferenceExamples are the unit examples of the reference tests
// (tests/means_test.py of the reference, tests/aggregation_test.py of the
// at-scale repository).
func TestReferenceExamples(t *testing.T) {
	A := dense([][]float64{{.5, .3, 0, .4}, {.3, .2, 0, 0}, {0, 0, .9, .3}, {.4, 0, .4, .4}})
	X := dense([][]float64{{-10, 10, 10}, {-1, 1, 1}, {0, 0, 0}, {10, -10, -10}})
	a := tensor.DenseToCSR(A)
	rows := a.RowSums()
	check := func(name string, got *tensor.Dense, want [][]float64) {
		t.Helper()
		for i, w := range want {
			if w == nil {
				continue
			}
			for j := range w {
				if math.Abs(float64(got.At(i, j))-w[j]) > 1e-4*(1+math.Abs(w[j])) {
					t.Errorf("%s row %d: got %v, want %v", name, i, got.Row(i), w)
					break
				}
			}
		}
	}
	scaled := func(r int, x int) []float64 {
		return []float64{rows[r] * float64(X.At(x, 0)), rows[r] * float64(X.At(x, 1)), rows[r] * float64(X.At(x, 2))}
	}
	sm3, _ := New("soft_k_medoid", Options{K: 3, Temperature: 1e-3})
	check("k=3", run(t, sm3, a, X), [][]float64{scaled(0, 1), scaled(1, 0), scaled(2, 2), scaled(3, 2)})
	sm2, _ := New("soft_k_medoid", Options{K: 2, Temperature: 1e-3})
	check("k=2", run(t, sm2, a, X), [][]float64{scaled(0, 0), scaled(1, 0), scaled(2, 2), nil})
	U := tensor.DenseToCSR(dense([][]float64{{1, 1, 0, 1}, {1, 1, 0, 0}, {0, 0, 1, 1}, {1, 0, 1, 1}}))
	got := run(t, sm3, U, X)
	mid := func(p, q int) []float64 {
		return []float64{float64(X.At(p, 0)+X.At(q, 0)) / 2 * 2, float64(X.At(p, 1)+X.At(q, 1)) / 2 * 2, float64(X.At(p, 2)+X.At(q, 2)) / 2 * 2}
	}
	check("unweighted k=3", got, [][]float64{{-3, 3, 3}, mid(0, 1), mid(2, 3), {0, 0, 0}})
	dm, _ := New("dimmedian", Options{})
	gotD := run(t, dm, U, X)
	// First element whose cumulative weight reaches half the total, per dimension.
	check("dimmedian", gotD, [][]float64{{-3, 3, 3}, {-20, 2, 2}, {0, -20, -20}, {0, 0, 0}})
	// A disconnected node (zero row) gives 0, no NaN, for every aggregation.
	Z := tensor.DenseToCSR(dense([][]float64{{1, 1, 0}, {1, 1, 0}, {0, 0, 0}}))
	for _, name := range Names() {
		agg, _ := New(name, Options{K: 2})
		out := run(t, agg, Z, dense([][]float64{{1, 2}, {3, 4}, {5, 6}}))
		if out.At(2, 0) != 0 || out.At(2, 1) != 0 || out.CheckFinite(name) != nil {
			t.Errorf("%s: isolated node gives %v", name, out.Row(2))
		}
	}
}
