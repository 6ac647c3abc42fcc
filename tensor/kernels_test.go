package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randDense(rng *rand.Rand, r, c int) *Dense {
	d := NewDense(r, c)
	for i := range d.Data {
		d.Data[i] = float32(rng.NormFloat64())
	}
	return d
}

// randSparse is randDense with every entry zeroed with probability pZero
// (one draw per entry, after the values) and, where emptyRow ≥ 0, all of
// row emptyRow: the dense source of a sparse matrix.
func randSparse(rng *rand.Rand, r, c int, pZero float64, emptyRow int) *Dense {
	d := randDense(rng, r, c)
	for i := range d.Data {
		if rng.Float64() < pZero || i/c == emptyRow {
			d.Data[i] = 0
		}
	}
	return d
}

func naiveMul(a, b *Dense) *Dense {
	out := NewDense(a.Rows, b.Cols)
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < b.Cols; j++ {
			var s float64
			for k := 0; k < a.Cols; k++ {
				s += float64(a.At(i, k)) * float64(b.At(k, j))
			}
			out.Set(i, j, float32(s))
		}
	}
	return out
}

func transpose(a *Dense) *Dense {
	t := NewDense(a.Cols, a.Rows)
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			t.Set(j, i, a.At(i, j))
		}
	}
	return t
}

func assertClose(t *testing.T, name string, got, want *Dense) {
	t.Helper()
	if !got.SameShape(want) {
		t.Fatalf("%s: shape %s, want %s", name, got.Shape(), want.Shape())
	}
	for i := range got.Data {
		if math.Abs(float64(got.Data[i]-want.Data[i])) > 1e-4*(1+math.Abs(float64(want.Data[i]))) {
			t.Fatalf("%s: element %d = %v, want %v", name, i, got.Data[i], want.Data[i])
		}
	}
}

func TestKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randDense(rng, 130, 17)
	b := randDense(rng, 17, 9)
	c := randDense(rng, 130, 9)

	got := NewDense(130, 9)
	MatMul(got, a, b, false)
	assertClose(t, "MatMul", got, naiveMul(a, b))

	gotBT := NewDense(130, 17)
	MatMulBT(gotBT, c, b, false)
	assertClose(t, "MatMulBT", gotBT, naiveMul(c, transpose(b)))

	gotAT := NewDense(17, 9)
	MatMulAT(gotAT, a, c, false)
	assertClose(t, "MatMulAT", gotAT, naiveMul(transpose(a), c))

	// SpMM against the dense product.
	sp := randSparse(rng, 130, 17, 0.8, -1)
	csr := DenseToCSR(sp)
	if err := csr.Validate(); err != nil {
		t.Fatal(err)
	}
	gotS := NewDense(130, 9)
	SpMM(gotS, csr, b, false)
	assertClose(t, "SpMM", gotS, naiveMul(sp, b))

	// Transpose round trip and permutation.
	tr, perm := csr.Transpose()
	assertClose(t, "Transpose", tr.ToDense(), transpose(sp))
	for p, k := range perm {
		if tr.Values[p] != csr.Values[k] {
			t.Fatalf("perm %d -> %d: %v != %v", p, k, tr.Values[p], csr.Values[k])
		}
	}
}

func TestFromCOO(t *testing.T) {
	m, err := FromCOO(3, 3, []Entry{{Row: 2, Col: 1, Val: 1}, {Row: 0, Col: 2, Val: 2}, {Row: 2, Col: 1, Val: 3}, {Row: 0, Col: 0, Val: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Nnz() != 3 || m.ToDense().At(2, 1) != 4 {
		t.Fatalf("duplicates not summed: %+v", m)
	}
	if _, err := FromCOO(2, 2, []Entry{{Row: 2, Col: 0, Val: 1}}); err == nil {
		t.Fatal("out of range entry accepted")
	}
	bad := &CSR{Rows: 2, Cols: 2, Indptr: []int{0, 2, 2}, Indices: []int32{1, 0}, Values: []float32{1, 1}}
	if bad.Validate() == nil {
		t.Fatal("unsorted columns accepted")
	}
}

func BenchmarkSpMM(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 2810, 64
	var es []Entry
	for i := 0; i < n; i++ {
		for j := 0; j < 6; j++ {
			es = append(es, Entry{Row: int32(i), Col: int32(rng.IntN(n)), Val: 1})
		}
	}
	a, _ := FromCOO(n, n, es)
	x := randDense(rng, n, d)
	out := NewDense(n, d)
	b.ReportAllocs()
	for b.Loop() {
		SpMM(out, a, x, false)
	}
}

func TestGemmSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, s := range [][3]int{{5, 7, 32}, {64, 64, 64}, {3, 2, 5}, {1, 9, 64}} {
		m, k, n := s[0], s[1], s[2]
		a, b := randDense(rng, m, k), randDense(rng, k, n)
		got := NewDense(m, n)
		GemmSmall(got.Data, a.Data, b.Data, m, k, n, false)
		assertClose(t, "GemmSmall", got, naiveMul(a, b))
		GemmSmall(got.Data, a.Data, b.Data, m, k, n, true)
		want := naiveMul(a, b)
		for i := range want.Data {
			want.Data[i] *= 2
		}
		assertClose(t, "GemmSmall acc", got, want)
	}
}
