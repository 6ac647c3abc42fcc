package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cgMatrix is a random sparse symmetric structure with its diagonal (as
// GDC's Â = A + I) and random values in [0, 1/8): the C of (I − C)·x = b.
func cgMatrix(t testing.TB, n, extra int, seed uint64) (indptr []int, indices []int32, c []float64) {
	edges := randomEdges(n, extra, seed)
	for i := range n {
		edges = append(edges, [2]int{i, i})
	}
	a := symmetric01(t, n, edges)
	rng := rand.New(rand.NewPCG(seed, 3))
	c = make([]float64, a.Nnz())
	for e := range c {
		c[e] = rng.Float64() / 8
	}
	return a.Indptr, a.Indices, c
}

// The block-CG kernels in use (assembly in the default build, archsimd
// with GOEXPERIMENT=simd) give the same bits as the portable ones.
func TestCGKernelsMatchGeneric(t *testing.T) {
	const n = 50
	indptr, indices, ct := cgMatrix(t, n, 80, 9)
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func() [][CGBlock]float64 {
		m := make([][CGBlock]float64, n)
		for i := range m {
			for b := range CGBlock {
				m[i][b] = rng.NormFloat64()
			}
		}
		return m
	}
	clone := func(m [][CGBlock]float64) [][CGBlock]float64 { return append([][CGBlock]float64(nil), m...) }
	same := func(what string, x, y [][CGBlock]float64) {
		for i := range x {
			for b := range CGBlock {
				if math.Float64bits(x[i][b]) != math.Float64bits(y[i][b]) {
					t.Fatalf("%s[%d][%d]: %v vs %v", what, i, b, x[i][b], y[i][b])
				}
			}
		}
	}
	p, x, r := mk(), mk(), mk()
	q1, q2 := mk(), mk()
	var pq1, pq2, a, rrn1, rrn2 [CGBlock]float64
	CGMatVec(q1, p, indptr, indices, ct, &pq1)
	cgMatVecGeneric(q2, p, indptr, indices, ct, &pq2)
	same("q", q1, q2)
	if pq1 != pq2 {
		t.Fatalf("pq %v vs %v", pq1, pq2)
	}
	op, err := NewCGOperator(n, n, indptr, indices, ct)
	if err != nil {
		t.Fatal(err)
	}
	q3 := mk()
	var pq3 [CGBlock]float64
	op.MatVec(q3, p, &pq3)
	same("q (CGOperator)", q1, q3)
	if pq1 != pq3 {
		t.Fatalf("pq %v vs %v (CGOperator)", pq1, pq3)
	}
	if _, err := NewCGOperator(n, n-1, indptr, indices, ct); err == nil {
		t.Fatal("NewCGOperator accepted a column outside the operator")
	}
	for b := range a {
		a[b] = rng.Float64()
	}
	x1, x2, r1, r2 := clone(x), clone(x), clone(r), clone(r)
	CGUpdate(x1, r1, p, q1, &a, &rrn1)
	cgUpdateGeneric(x2, r2, p, q1, &a, &rrn2)
	same("x", x1, x2)
	same("r", r1, r2)
	if rrn1 != rrn2 {
		t.Fatalf("rrn %v vs %v", rrn1, rrn2)
	}
	p1, p2 := clone(p), clone(p)
	CGDirection(p1, r1, &a)
	cgDirectionGeneric(p2, r1, &a)
	same("p", p1, p2)
}

// BenchmarkCGIteration is one block-CG iteration (32 systems) on a random
// graph of cora_ml's size (n = 2810, ≈ 16k directed edges plus the
// diagonal): the portable kernels against the ones in use.
func BenchmarkCGIteration(b *testing.B) {
	const n = 2810
	indptr, indices, ct := cgMatrix(b, n, 5200, 1)
	w := struct{ x, r, p, q [][CGBlock]float64 }{make([][CGBlock]float64, n), make([][CGBlock]float64, n),
		make([][CGBlock]float64, n), make([][CGBlock]float64, n)}
	for i := range w.p {
		for s := range CGBlock {
			w.p[i][s] = float64(i%7) + float64(s)
		}
	}
	var pq, a, rrn [CGBlock]float64
	for s := range a {
		a[s] = 1e-3
	}
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			cgMatVecGeneric(w.q, w.p, indptr, indices, ct, &pq)
			cgUpdateGeneric(w.x, w.r, w.p, w.q, &a, &rrn)
			cgDirectionGeneric(w.p, w.r, &a)
		}
	})
	b.Run("inuse", func(b *testing.B) {
		for b.Loop() {
			CGMatVec(w.q, w.p, indptr, indices, ct, &pq)
			CGUpdate(w.x, w.r, w.p, w.q, &a, &rrn)
			CGDirection(w.p, w.r, &a)
		}
	})
}
