package aggregate

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// randGraph returns an n×n weighted sparse matrix with self loops and about
// deg random neighbours per row, with distinct positive weights.
func randGraph(rng *rand.Rand, n, deg int) *tensor.CSR {
	var es []tensor.Entry
	for i := 0; i < n; i++ {
		es = append(es, tensor.Entry{Row: int32(i), Col: int32(i), Val: float32(0.5 + rng.Float64())})
		for j := 0; j < deg; j++ {
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(rng.IntN(n)), Val: float32(0.1 + rng.Float64())})
		}
	}
	a, _ := tensor.FromCOO(n, n, es)
	return a
}

func randX(rng *rand.Rand, n, d int) *tensor.Dense {
	x := tensor.NewDense(n, d)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	return x
}

// objective returns Σ out ⊙ w in float64.
func objective(agg Aggregator, a *tensor.CSR, x, w *tensor.Dense) float64 {
	out := tensor.NewDense(a.Rows, x.Cols)
	agg.Forward(a, x, out)
	var s float64
	for i, v := range out.Data {
		s += float64(v) * float64(w.Data[i])
	}
	return s
}

// TestGradients compares the analytic gradients with respect to x and to the
// edge values with central finite differences, for every aggregation.
func TestGradients(t *testing.T) {
	cases := []struct {
		name string
		o    Options
	}{
		{"sum", Options{}},
		{"soft_k_medoid", Options{K: 3, Temperature: 0.7}},
		{"soft_k_medoid", Options{K: 64, Temperature: 2}},
		{"soft_k_medoid", Options{K: 4, Temperature: 1, Normalization: "alt"}},
		{"k_medoid", Options{K: 3}},
		{"dimmedian", Options{}},
		{"soft_median", Options{Temperature: 0.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 5))
			a := randGraph(rng, 9, 4)
			x := randX(rng, 9, 5)
			w := randX(rng, 9, 5)
			agg, err := New(c.name, c.o)
			if err != nil {
				t.Fatal(err)
			}
			out := tensor.NewDense(a.Rows, x.Cols)
			st := agg.Forward(a, x, out)
			gx := tensor.NewDense(x.Rows, x.Cols)
			gv := make([]float32, a.Nnz())
			agg.Backward(st, w, gx, gv)
			const h = 1e-3
			check := func(what string, k int, p *float32, ana float32) {
				old := *p
				*p = old + h
				up := objective(agg, a, x, w)
				*p = old - h
				down := objective(agg, a, x, w)
				*p = old
				num := (up - down) / (2 * h)
				if math.Abs(num-float64(ana)) > 3e-2*math.Max(1, math.Abs(num)) {
					t.Errorf("%v: ∂/∂%s[%d]: analytic %.6g, numeric %.6g", c.o, what, k, ana, num)
				}
			}
			for k := range x.Data {
				check("x", k, &x.Data[k], gx.Data[k])
			}
			for k := range a.Values {
				check("A", k, &a.Values[k], gv[k])
			}
		})
	}
}

// TestDeterministic checks bitwise equality of forward and backward with
// one and two goroutines.
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	a := randGraph(rng, 400, 30)
	x := randX(rng, 400, 16)
	w := randX(rng, 400, 16)
	for _, name := range Names() {
		run := func() ([]float32, []float32, []float32) {
			agg, _ := New(name, Options{K: 16, Temperature: 0.5})
			out := tensor.NewDense(a.Rows, x.Cols)
			st := agg.Forward(a, x, out)
			gx := tensor.NewDense(x.Rows, x.Cols)
			gv := make([]float32, a.Nnz())
			agg.Backward(st, w, gx, gv)
			return out.Data, gx.Data, gv
		}
		prev := runtime.GOMAXPROCS(1)
		o1, x1, v1 := run()
		runtime.GOMAXPROCS(2)
		o2, x2, v2 := run()
		runtime.GOMAXPROCS(prev)
		for _, pair := range [][2][]float32{{o1, o2}, {x1, x2}, {v1, v2}} {
			for i := range pair[0] {
				if math.Float32bits(pair[0][i]) != math.Float32bits(pair[1][i]) {
					t.Fatalf("%s: results differ between GOMAXPROCS 1 and 2 at %d", name, i)
				}
			}
		}
	}
}

// TestWeightedSelect compares the quickselect weighted median with a sort.
func TestWeightedSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.IntN(120)
		w := make([]float32, n)
		keys := make([]uint64, n)
		for i := range keys {
			w[i] = float32(rng.IntN(4)) // zeros and ties in weight
			if trial%7 == 0 {
				w[i] = -w[i] // no prefix may reach the target
			}
			keys[i] = uint64(orderedBits(float32(rng.IntN(10))))<<32 | uint64(i)
		}
		var total float64
		for _, v := range w {
			total += float64(v)
		}
		sorted := slices.Clone(keys)
		slices.Sort(sorted)
		want := sorted[len(sorted)-1]
		var cum float64
		for _, k := range sorted {
			cum += float64(w[k&0xffffffff])
			if cum >= total/2 {
				want = k
				break
			}
		}
		if got := weightedSelect(slices.Clone(keys), w, total/2); got != want {
			t.Fatalf("trial %d (n=%d): got key %x, want %x", trial, n, got, want)
		}
	}
}

// TestDeterministicChunks checks bitwise equality of forward and backward
// for GOMAXPROCS 1, 2, 3 and 8 on a graph large enough for several of
// runFixed's chunks (whose private gradient buffers are summed in chunk
// order), with neighbours shared across chunks.
func TestDeterministicChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	a := randGraph(rng, 1100, 12)
	if c, _ := fixedChunks(a.Rows); c < 4 {
		t.Fatalf("want ≥ 4 fixed chunks, got %d", c)
	}
	x := randX(rng, 1100, 8)
	w := randX(rng, 1100, 8)
	for _, name := range Names() {
		run := func(procs int) []float32 {
			prev := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(prev)
			agg, _ := New(name, Options{K: 8, Temperature: 0.5})
			out := tensor.NewDense(a.Rows, x.Cols)
			gx := tensor.NewDense(x.Rows, x.Cols)
			gv := make([]float32, a.Nnz())
			for range 2 { // the second pass reuses the (cleared) buffers
				clear(gx.Data)
				clear(gv)
				st := agg.Forward(a, x, out)
				agg.Backward(st, w, gx, gv)
			}
			return slices.Concat(out.Data, gx.Data, gv)
		}
		want := run(1)
		for _, procs := range []int{2, 3, 8} {
			got := run(procs)
			for i := range want {
				if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
					t.Fatalf("%s: GOMAXPROCS %d differs from 1 at %d: %v vs %v", name, procs, i, got[i], want[i])
				}
			}
		}
	}
}

// TestDistancesGram checks the Gram-matrix distances (neighbourhoods of
// gramMin and more, vector tile transposes where nk and d are multiples of
// 16) against float64 pairwise distances, and that the matrix is exactly
// symmetric with a zero diagonal.
func TestDistancesGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for _, d := range []int{64, 16, 24} {
		x := randX(rng, 300, d)
		var ents []tensor.Entry
		for j := range 300 {
			ents = append(ents, tensor.Entry{Row: 0, Col: int32(j), Val: 1})
		}
		a, _ := tensor.FromCOO(1, 300, ents)
		for _, nk := range []int{16, 17, 32, 40, 48, 64, 96} {
			sel := rng.Perm(300)[:nk]
			var ws workspace
			dist := make([]float32, nk*nk)
			ws.distances(sel, a, x, dist)
			for i := range nk {
				for j := range nk {
					var s float64
					for c := range d {
						v := float64(x.At(sel[i], c)) - float64(x.At(sel[j], c))
						s += v * v
					}
					got := dist[i*nk+j]
					if math.Float32bits(got) != math.Float32bits(dist[j*nk+i]) || (i == j && got != 0) {
						t.Fatalf("d=%d nk=%d: (%d,%d) = %v, (%d,%d) = %v", d, nk, i, j, got, j, i, dist[j*nk+i])
					}
					if math.Abs(float64(got)-math.Sqrt(s)) > 1e-3*math.Sqrt(float64(d)) {
						t.Fatalf("d=%d nk=%d: (%d,%d) = %v, want %v", d, nk, i, j, got, math.Sqrt(s))
					}
				}
			}
		}
	}
}

// TestGradientsGram is TestGradients' finite-difference check for the Soft
// Medoid with neighbourhoods of 32 (the Gram-matrix distances and, with
// AVX-512, the tile transposes), on a sample of the coordinates.
func TestGradientsGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	// Exactly 32 distinct entries per row, all of them in the top 32: the
	// selection does not change under the perturbations.
	var es []tensor.Entry
	for i := range 40 {
		for _, j := range rng.Perm(40)[:32] {
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(0.1 + rng.Float64())})
		}
	}
	a, _ := tensor.FromCOO(40, 40, es)
	x := randX(rng, 40, 16)
	for i := range x.Data { // criteria of a few T: a smooth softmax
		x.Data[i] *= 0.1
	}
	w := randX(rng, 40, 16)
	agg, _ := New("soft_k_medoid", Options{K: 32, Temperature: 1})
	out := tensor.NewDense(a.Rows, x.Cols)
	st := agg.Forward(a, x, out)
	gx := tensor.NewDense(x.Rows, x.Cols)
	gv := make([]float32, a.Nnz())
	sm := agg.(*SoftKMedoid)
	if sm.st.level == keepAll {
		t.Fatal("Forward kept the distances")
	}
	agg.Backward(st, w, gx, gv)
	// ForwardForBackward keeps the distances for Backward instead of
	// Backward recomputing them: the same bits.
	gx2 := tensor.NewDense(x.Rows, x.Cols)
	gv2 := make([]float32, a.Nnz())
	agg.Backward(sm.ForwardForBackward(a, x, out), w, gx2, gv2)
	if sm.st.level != keepAll {
		t.Fatal("ForwardForBackward did not keep the distances")
	}
	want, got := slices.Concat(gx.Data, gv), slices.Concat(gx2.Data, gv2)
	for i, v := range want {
		if math.Float32bits(v) != math.Float32bits(got[i]) {
			t.Fatalf("kept distances: gradient %d differs", i)
		}
	}
	// A Forward after a Backward still does not keep them: forward-only
	// use of a trained model never pays for them.
	agg.Forward(a, x, out)
	if sm.st.level == keepAll {
		t.Fatal("Forward after a Backward kept the distances")
	}
	const h = 1e-3
	check := func(what string, k int, p *float32, ana float32) {
		old := *p
		*p = old + h
		up := objective(agg, a, x, w)
		*p = old - h
		down := objective(agg, a, x, w)
		*p = old
		num := (up - down) / (2 * h)
		if math.Abs(num-float64(ana)) > 3e-2*math.Max(1, math.Abs(num)) {
			t.Errorf("∂/∂%s[%d]: analytic %.6g, numeric %.6g", what, k, ana, num)
		}
	}
	for _, k := range rng.Perm(len(x.Data))[:80] {
		check("x", k, &x.Data[k], gx.Data[k])
	}
	for _, k := range rng.Perm(len(a.Values))[:80] {
		check("A", k, &a.Values[k], gv[k])
	}
}

// TestBackwardReusesBuffers runs every aggregation's backward on a
// sequence of graphs and widths with one aggregator (its gradient buffers
// reused over different layouts: row and column counts, widths, chunk
// counts) and checks each result against a fresh aggregator's, bit for bit.
func TestBackwardReusesBuffers(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	type problem struct {
		a    *tensor.CSR
		x, w *tensor.Dense
	}
	var ps []problem
	for _, c := range []struct{ rows, cols, deg, d int }{
		{1100, 1100, 12, 8}, {300, 300, 10, 16}, {600, 900, 8, 5}, {1100, 700, 6, 8}, {300, 300, 10, 16},
	} {
		var es []tensor.Entry
		for i := range c.rows {
			for range c.deg {
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(rng.IntN(c.cols)), Val: float32(0.1 + rng.Float64())})
			}
		}
		a, err := tensor.FromCOO(c.rows, c.cols, es)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, problem{a, randX(rng, c.cols, c.d), randX(rng, c.rows, c.d)})
	}
	backward := func(agg Aggregator, p problem) []float32 {
		out := tensor.NewDense(p.a.Rows, p.x.Cols)
		gx := tensor.NewDense(p.x.Rows, p.x.Cols)
		agg.Backward(forwardForBackward(agg, p.a, p.x, out), p.w, gx, nil)
		return gx.Data
	}
	for _, name := range Names() {
		reused, _ := New(name, Options{K: 8, Temperature: 0.5})
		for i, p := range ps {
			fresh, _ := New(name, Options{K: 8, Temperature: 0.5})
			want, got := backward(fresh, p), backward(reused, p)
			for j := range want {
				if math.Float32bits(want[j]) != math.Float32bits(got[j]) {
					t.Fatalf("%s: problem %d: gradient %d: reused %v, fresh %v", name, i, j, got[j], want[j])
				}
			}
		}
	}
}

// TestScatterGradsInterrupted checks that a pass whose reduce never came
// (a panic in a backward kernel) leaves no partial sums behind for the
// next pass, even one of a shorter layout.
func TestScatterGradsInterrupted(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	big, small := randGraph(rng, 1100, 4), randGraph(rng, 300, 4)
	var e scatterGrads
	e.reset(big, 8)
	for c := range e.count {
		for j := range e.xRows {
			for k := range e.row(c, j) {
				e.row(c, j)[k] = 1
			}
		}
	}
	e.reset(small, 8)
	if i := slices.IndexFunc(e.buf[:cap(e.buf)], func(v float32) bool { return v != 0 }); i >= 0 {
		t.Fatalf("element %d of the buffers is %v after an interrupted pass", i, e.buf[i])
	}
}
