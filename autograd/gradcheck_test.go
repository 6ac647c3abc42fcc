package autograd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

func randDense(rng *rand.Rand, r, c int) *tensor.Dense {
	d := tensor.NewDense(r, c)
	for i := range d.Data {
		d.Data[i] = float32(rng.NormFloat64())
	}
	return d
}

func to64(d *tensor.Dense) []float64 {
	out := make([]float64, len(d.Data))
	for i, v := range d.Data {
		out[i] = float64(v)
	}
	return out
}

func randCSR(rng *rand.Rand, r, c int, density float64) *tensor.CSR {
	var es []tensor.Entry
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.Float64() < density {
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(rng.Float64() + 0.1)})
			}
		}
	}
	a, err := tensor.FromCOO(r, c, es)
	if err != nil {
		panic(err)
	}
	return a
}

// gradCheck compares the analytic gradient of loss = Σ f(inputs) ⊙ R with
// central finite differences for every input element.
func gradCheck(t *testing.T, name string, inputs []*tensor.Dense, f func(tp *Tape, in []*Var) *Var) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var weights *tensor.Dense
	lossOf := func(tp *Tape, vars []*Var) *Var {
		out := f(tp, vars)
		if weights == nil {
			weights = randDense(rng, out.Value.Rows, out.Value.Cols)
		}
		return tp.Sum(tp.Mul(out, tp.Const(weights)))
	}
	eval := func() float64 {
		tp := NoGrad()
		vars := make([]*Var, len(inputs))
		for i, d := range inputs {
			vars[i] = tp.Const(d)
		}
		out := f(tp, vars)
		var s float64
		for i, v := range out.Value.Data {
			s += float64(v) * float64(weights.Data[i])
		}
		return s
	}
	tp := NewTape()
	vars := make([]*Var, len(inputs))
	for i, d := range inputs {
		vars[i] = tp.Leaf(d)
	}
	tp.Backward(lossOf(tp, vars))
	const h = 1e-2
	for vi, d := range inputs {
		g := vars[vi].Grad()
		for k := range d.Data {
			old := d.Data[k]
			d.Data[k] = old + h
			up := eval()
			d.Data[k] = old - h
			down := eval()
			d.Data[k] = old
			num := (up - down) / (2 * h)
			var ana float64
			if g != nil {
				ana = float64(g.Data[k])
			}
			if math.Abs(num-ana) > 2e-2*math.Max(1, math.Abs(num)) {
				t.Errorf("%s: input %d element %d: analytic %.6g, numeric %.6g", name, vi, k, ana, num)
				return
			}
		}
	}
}

func TestGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := randCSR(rng, 6, 5, 0.5)
	sa := NewSparse(a)
	sq := randCSR(rng, 6, 6, 0.5)
	ssq := NewSparse(sq)
	vals := func() *tensor.Dense { d := tensor.NewDense(a.Nnz(), 1); copy(d.Data, a.Values); return d }
	sqvals := func() *tensor.Dense { d := tensor.NewDense(sq.Nnz(), 1); copy(d.Data, sq.Values); return d }
	// shift values away from the kinks of ReLU & co.
	awayFromZero := func(d *tensor.Dense) *tensor.Dense {
		for i, v := range d.Data {
			if math.Abs(float64(v)) < 0.1 {
				d.Data[i] = 0.3
			}
		}
		return d
	}
	positive := func(d *tensor.Dense) *tensor.Dense {
		for i, v := range d.Data {
			d.Data[i] = float32(math.Abs(float64(v))) + 0.5
		}
		return d
	}
	lr := &tensor.SymLowRank{N: 7, Rank: 3, U: to64(randDense(rng, 7, 3)), Lambda: []float64{1.5, -0.7, 0.4},
		Diag: to64(positive(randDense(rng, 7, 1)))}
	idx := []int{0, 2, 3, 5}
	labels := []int32{1, 0, 2, 1, 0, 2}
	cases := []struct {
		name string
		in   []*tensor.Dense
		f    func(tp *Tape, in []*Var) *Var
	}{
		{"MatMul", []*tensor.Dense{randDense(rng, 4, 3), randDense(rng, 3, 5)},
			func(tp *Tape, in []*Var) *Var { return tp.MatMul(in[0], in[1]) }},
		{"AddBias", []*tensor.Dense{randDense(rng, 4, 3), randDense(rng, 1, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.AddBias(in[0], in[1]) }},
		{"ReLU", []*tensor.Dense{awayFromZero(randDense(rng, 4, 3))},
			func(tp *Tape, in []*Var) *Var { return tp.ReLU(in[0]) }},
		{"LeakyReLU", []*tensor.Dense{awayFromZero(randDense(rng, 4, 3))},
			func(tp *Tape, in []*Var) *Var { return tp.LeakyReLU(in[0], 0.2) }},
		{"ELU", []*tensor.Dense{awayFromZero(randDense(rng, 4, 3))},
			func(tp *Tape, in []*Var) *Var { return tp.ELU(in[0], 1) }},
		{"Exp", []*tensor.Dense{randDense(rng, 3, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.Exp(in[0]) }},
		{"Sqrt", []*tensor.Dense{positive(randDense(rng, 3, 3))},
			func(tp *Tape, in []*Var) *Var { return tp.Sqrt(in[0], 1e-8) }},
		{"Log", []*tensor.Dense{positive(randDense(rng, 3, 3))},
			func(tp *Tape, in []*Var) *Var { return tp.Log(in[0], 1e-8) }},
		{"Scale", []*tensor.Dense{randDense(rng, 3, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.Scale(in[0], -1.7) }},
		{"Add", []*tensor.Dense{randDense(rng, 3, 2), randDense(rng, 3, 2)},
			func(tp *Tape, in []*Var) *Var { return tp.Add(in[0], in[1]) }},
		{"Mul", []*tensor.Dense{randDense(rng, 3, 2), randDense(rng, 3, 2)},
			func(tp *Tape, in []*Var) *Var { return tp.Mul(in[0], in[1]) }},
		{"Dropout", []*tensor.Dense{randDense(rng, 5, 4)},
			func(tp *Tape, in []*Var) *Var { return tp.Dropout(in[0], 0.5, 42) }},
		{"SpMM", []*tensor.Dense{vals(), randDense(rng, 5, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.SpMM(sa, in[0], in[1]) }},
		{"SpMMT", []*tensor.Dense{vals(), randDense(rng, 6, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.SpMMT(sa, in[0], in[1]) }},
		{"SparseX", []*tensor.Dense{randDense(rng, 5, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.SparseX(sa, in[0]) }},
		{"EdgeAdd", []*tensor.Dense{randDense(rng, 6, 1), randDense(rng, 6, 1)},
			func(tp *Tape, in []*Var) *Var { return tp.EdgeAdd(ssq, in[0], in[1]) }},
		{"SegmentSoftmax", []*tensor.Dense{randDense(rng, sq.Nnz(), 1)},
			func(tp *Tape, in []*Var) *Var { return tp.SegmentSoftmax(ssq, in[0]) }},
		{"LogSoftmax", []*tensor.Dense{randDense(rng, 4, 5)},
			func(tp *Tape, in []*Var) *Var { return tp.LogSoftmax(in[0]) }},
		{"CrossEntropy", []*tensor.Dense{randDense(rng, 6, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.CrossEntropy(in[0], idx, labels) }},
		{"ColSlice", []*tensor.Dense{randDense(rng, 4, 6)},
			func(tp *Tape, in []*Var) *Var { return tp.ColSlice(in[0], 2, 5) }},
		{"ConcatCols", []*tensor.Dense{randDense(rng, 4, 2), randDense(rng, 4, 3)},
			func(tp *Tape, in []*Var) *Var { return tp.ConcatCols(in[0], in[1]) }},
		{"Gather", []*tensor.Dense{randDense(rng, 5, 1)},
			func(tp *Tape, in []*Var) *Var { return tp.Gather(in[0], []int{4, -1, 0, 0, 2}, 1) }},
		{"SymLowRank", []*tensor.Dense{randDense(rng, 7, 5)},
			func(tp *Tape, in []*Var) *Var { return tp.SymLowRank(lr, in[0]) }},
		{"SymLowRank twice (accumulating backward)", []*tensor.Dense{randDense(rng, 7, 2)},
			func(tp *Tape, in []*Var) *Var {
				return tp.Add(tp.SymLowRank(lr, in[0]), tp.SymLowRank(lr, tp.Scale(tp.SymLowRank(lr, in[0]), 0.5)))
			}},
		{"GCNNorm", []*tensor.Dense{sqvals()},
			func(tp *Tape, in []*Var) *Var { return tp.GCNNormValues(ssq, in[0]) }},
		{"GAT-like chain", []*tensor.Dense{randDense(rng, 6, 1), randDense(rng, 6, 1), randDense(rng, 6, 2)},
			func(tp *Tape, in []*Var) *Var {
				att := tp.SegmentSoftmax(ssq, tp.ELU(tp.EdgeAdd(ssq, in[0], in[1]), 1))
				return tp.SpMMT(ssq, att, in[2])
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { gradCheck(t, c.name, c.in, c.f) })
	}
}

// TestDeterministicAcrossProcs checks bitwise equality of a forward/backward
// pass for 1 and 2 goroutines.
func TestDeterministicAcrossProcs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := randCSR(rng, 300, 300, 0.05)
	sa := NewSparse(a)
	x := randDense(rng, 300, 16)
	w := randDense(rng, 16, 8)
	run := func() ([]float32, []float32) {
		tp := NewTape()
		wv := tp.Leaf(w.Clone())
		h := tp.SpMMT(sa, nil, tp.MatMul(tp.Const(x), wv))
		h = tp.Dropout(tp.ReLU(h), 0.5, 9)
		loss := tp.CrossEntropy(h, []int{1, 5, 7, 100, 200}, make([]int32, 300))
		tp.Backward(loss)
		return h.Value.Data, wv.Grad().Data
	}
	prev := setProcs(1)
	h1, g1 := run()
	setProcs(2)
	h2, g2 := run()
	setProcs(prev)
	for i := range h1 {
		if h1[i] != h2[i] {
			t.Fatalf("forward differs at %d", i)
		}
	}
	for i := range g1 {
		if g1[i] != g2[i] {
			t.Fatalf("gradient differs at %d", i)
		}
	}
}
