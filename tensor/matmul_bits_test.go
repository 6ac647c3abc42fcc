package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// The loops MatMul, MatMulAT and MatMulBT ran before their register-blocked
// kernels (one axpy per nonzero a value, one dot per output element), with
// the dispatch between their paths unchanged: the reference whose bits the
// kernels must give.

func refMatMul(dst, a, b *Dense, acc bool) {
	if b.Cols <= 8 && a.Cols <= 256 && matMulNarrowVec(dst, a, b, acc, 0, 0) {
		matMulNarrowVec(dst, a, b, acc, 0, a.Rows)
		return
	}
	if b.Cols < smallDim && a.Cols >= smallDim {
		refDotRows(dst, a, transposeDense(b), acc)
		return
	}
	n := b.Cols
	for i := range a.Rows {
		out := dst.Data[i*n : (i+1)*n]
		if !acc {
			clear(out)
		}
		for k, av := range a.Data[i*a.Cols : (i+1)*a.Cols] {
			if av != 0 {
				axpy(out, b.Data[k*n:(k+1)*n], av)
			}
		}
	}
}

func refMatMulBT(dst, a, b *Dense, acc bool) {
	if a.Cols < smallDim && b.Rows >= smallDim {
		refMatMul(dst, a, transposeDense(b), acc)
		return
	}
	refDotRows(dst, a, b, acc)
}

func refDotRows(dst, a, b *Dense, acc bool) {
	for i := range a.Rows {
		for j := range b.Rows {
			s := dot(a.Row(i), b.Row(j))
			if acc {
				dst.Data[i*b.Rows+j] += s
			} else {
				dst.Data[i*b.Rows+j] = s
			}
		}
	}
}

func refMatMulAT(dst, a, b *Dense, acc bool) {
	if b.Cols < smallDim {
		nt := b.Cols
		tr := make([]float32, nt*a.Cols)
		for r := range a.Rows {
			arow := a.Row(r)
			for j, bv := range b.Row(r) {
				if bv != 0 {
					axpy(tr[j*a.Cols:(j+1)*a.Cols], arow, bv)
				}
			}
		}
		for i := range a.Cols {
			for j := range nt {
				if acc {
					dst.Data[i*nt+j] += tr[j*a.Cols+i]
				} else {
					dst.Data[i*nt+j] = tr[j*a.Cols+i]
				}
			}
		}
		return
	}
	n := b.Cols
	for i := range a.Cols {
		out := dst.Data[i*n : (i+1)*n]
		if !acc {
			clear(out)
		}
		for r := range a.Rows {
			if av := a.Data[r*a.Cols+i]; av != 0 {
				axpy(out, b.Row(r), av)
			}
		}
	}
}

// bitsInput returns an r×c matrix of normal values over a wide range of
// magnitudes (so that fused and unfused updates round differently), a
// fraction zeros of them +0 or −0.
func bitsInput(rng *rand.Rand, r, c int, zeros float64) *Dense {
	d := NewDense(r, c)
	for i := range d.Data {
		switch u := rng.Float64(); {
		case u < zeros/2:
			d.Data[i] = 0
		case u < zeros:
			d.Data[i] = float32(math.Copysign(0, -1))
		default:
			d.Data[i] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(24)-12))
		}
	}
	return d
}

// sameBits reports the first element where got and want differ in their
// bits, or -1.
func sameBits(got, want []float32) int {
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i
		}
	}
	return -1
}

// sameBitsOrNaN is sameBits with any two NaNs equal: which NaN operand an
// addition returns depends on the operand order, which IEEE 754 leaves open
// and Go's compiler chooses freely for scalar float32 additions (the old
// four-at-a-time a·bᵀ kernel already returned other NaNs than the dot loop).
func sameBitsOrNaN(got, want []float32) int {
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			return i
		}
	}
	return -1
}

// gemmKernelsUnderTest runs f once per kernel family this build has on this
// CPU (gemmKernelVariants), naming each.
func gemmKernelsUnderTest(t *testing.T, f func(t *testing.T)) {
	for _, v := range gemmKernelVariants() {
		t.Run(v.name, func(t *testing.T) {
			defer v.set()()
			f(t)
		})
	}
}

// checkProducts runs MatMul, MatMulBT and MatMulAT on a (m×k) and b (k×n,
// n×k or m×n as each needs) for both acc, from an output holding ±0 and
// normal values, and compares every bit with the reference loops.
func checkProducts(t *testing.T, rng *rand.Rand, m, k, n int, zeros float64) {
	t.Helper()
	a := bitsInput(rng, m, k, zeros)
	for _, acc := range []bool{false, true} {
		run := func(op string, got, want *Dense, f, ref func(dst *Dense)) {
			t.Helper()
			f(got)
			ref(want)
			if i := sameBits(got.Data, want.Data); i >= 0 {
				t.Fatalf("%s m=%d k=%d n=%d acc=%v: element %d (%d, %d) = %v (%#x), loop %v (%#x)", op, m, k, n, acc,
					i, i/got.Cols, i%got.Cols, got.Data[i], math.Float32bits(got.Data[i]), want.Data[i], math.Float32bits(want.Data[i]))
			}
		}
		b := bitsInput(rng, k, n, zeros/2)
		got := bitsInput(rng, m, n, 0.3)
		want := got.Clone()
		run("MatMul", got, want, func(d *Dense) { MatMul(d, a, b, acc) }, func(d *Dense) { refMatMul(d, a, b, acc) })

		bt := bitsInput(rng, n, k, zeros/2)
		got = bitsInput(rng, m, n, 0.3)
		want = got.Clone()
		run("MatMulBT", got, want, func(d *Dense) { MatMulBT(d, a, bt, acc) }, func(d *Dense) { refMatMulBT(d, a, bt, acc) })

		g := bitsInput(rng, m, n, zeros/2)
		got = bitsInput(rng, k, n, 0.3)
		want = got.Clone()
		run("MatMulAT", got, want, func(d *Dense) { MatMulAT(d, a, g, acc) }, func(d *Dense) { refMatMulAT(d, a, g, acc) })
	}
}

// TestDenseProductsSameBitsAsLoops checks MatMul, MatMulBT and MatMulAT
// against the loops of one axpy per nonzero value and one dot per element,
// bit for bit, at every width around the kernels' units (8 and 16 columns,
// panels of 64, tiles of 1–8 rows, dot's 16-element steps and its tail),
// with ±0 in every operand.
func TestDenseProductsSameBitsAsLoops(t *testing.T) {
	gemmKernelsUnderTest(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 7))
		ms := []int{1, 2, 3, 5, 7, 8, 9, 13, 17, 66}
		ks := []int{0, 1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 40, 47, 64, 65, 129}
		ns := []int{1, 2, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 31, 32, 33, 40, 47, 48, 56, 63, 64, 65, 70, 71, 72, 79, 80, 96, 130, 137}
		for _, m := range ms {
			for _, k := range ks {
				for _, n := range ns {
					checkProducts(t, rng, m, k, n, 0.4)
				}
			}
		}
	})
}

// TestDenseProductsLongSameBits covers MatMulAT's blocks over a's rows
// (atBlock), hidden-layer shapes of the models, dense operands and
// operands that are nearly all zero.
func TestDenseProductsLongSameBits(t *testing.T) {
	gemmKernelsUnderTest(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 55))
		for _, s := range [][3]int{{1030, 64, 40}, {1100, 64, 7}, {513, 16, 47}, {2*atBlock + 3, 33, 70}, {700, 64, 64}, {300, 128, 64}, {257, 70, 16}} {
			for _, zeros := range []float64{0, 0.75, 0.999} {
				checkProducts(t, rng, s[0], s[1], s[2], zeros)
			}
		}
	})
}

// TestDenseProductsSpecialValues checks the zero skip with non-finite
// values: a zero a value leaves the output as it is even where b holds
// ±Inf or NaN (fma(0, Inf, c) would be NaN), a NaN a value is not skipped,
// and an output of −0 stays −0 under a skipped step. NaN results must be
// NaN, not the same NaN (sameBitsOrNaN).
func TestDenseProductsSpecialValues(t *testing.T) {
	gemmKernelsUnderTest(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(8, 80))
		negZero := float32(math.Copysign(0, -1))
		specials := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), negZero, 0, math.MaxFloat32, 1e-45}
		for _, s := range [][3]int{{9, 17, 40}, {5, 64, 47}, {17, 40, 64}, {3, 33, 7}, {12, 20, 9}} {
			m, k, n := s[0], s[1], s[2]
			spice := func(d *Dense, frac float64) *Dense {
				for i := range d.Data {
					if rng.Float64() < frac {
						d.Data[i] = specials[rng.IntN(len(specials))]
					}
				}
				return d
			}
			for _, acc := range []bool{false, true} {
				a := spice(bitsInput(rng, m, k, 0.5), 0.05)
				b := spice(bitsInput(rng, k, n, 0.2), 0.1)
				got := spice(bitsInput(rng, m, n, 0.5), 0.1)
				want := got.Clone()
				MatMul(got, a, b, acc)
				refMatMul(want, a, b, acc)
				if i := sameBitsOrNaN(got.Data, want.Data); i >= 0 {
					t.Fatalf("MatMul %v acc=%v: element %d = %v, loop %v", s, acc, i, got.Data[i], want.Data[i])
				}
				g := spice(bitsInput(rng, m, n, 0.2), 0.1)
				got = spice(bitsInput(rng, k, n, 0.5), 0.1)
				want = got.Clone()
				MatMulAT(got, a, g, acc)
				refMatMulAT(want, a, g, acc)
				if i := sameBitsOrNaN(got.Data, want.Data); i >= 0 {
					t.Fatalf("MatMulAT %v acc=%v: element %d = %v, loop %v", s, acc, i, got.Data[i], want.Data[i])
				}
				bt := spice(bitsInput(rng, n, k, 0.2), 0.1)
				got = spice(bitsInput(rng, m, n, 0.5), 0.1)
				want = got.Clone()
				MatMulBT(got, a, bt, acc)
				refMatMulBT(want, a, bt, acc)
				if i := sameBitsOrNaN(got.Data, want.Data); i >= 0 {
					t.Fatalf("MatMulBT %v acc=%v: element %d = %v (%#x), loop %v (%#x)", s, acc, i, got.Data[i], math.Float32bits(got.Data[i]), want.Data[i], math.Float32bits(want.Data[i]))
				}
			}
		}
	})
}

// TestDenseProductsAnyGOMAXPROCS checks that the products give the same
// bits on 1, 2, 3 and 8 threads.
func TestDenseProductsAnyGOMAXPROCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 33))
	a := bitsInput(rng, 3000, 64, 0.75)
	w := bitsInput(rng, 64, 40, 0)
	g := bitsInput(rng, 3000, 40, 0.1)
	g7 := bitsInput(rng, 3000, 7, 0.1)
	run := func() []float32 {
		out := NewDense(3000, 40)
		MatMul(out, a, w, false)
		gh := NewDense(3000, 64)
		MatMulBT(gh, g, w, false)
		gw := NewDense(64, 40)
		MatMulAT(gw, a, g, false)
		gw7 := NewDense(64, 7)
		MatMulAT(gw7, a, g7, false)
		return append(append(append(out.Data, gh.Data...), gw.Data...), gw7.Data...)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	want := run()
	for _, p := range []int{2, 3, 8} {
		runtime.GOMAXPROCS(p)
		if i := sameBits(run(), want); i >= 0 {
			t.Fatalf("GOMAXPROCS=%d: element %d differs from one thread", p, i)
		}
	}
}

// TestDenseProductsPanicOnShapes checks the shape errors (a kernel must
// never run on buffers too short).
func TestDenseProductsPanicOnShapes(t *testing.T) {
	for _, f := range []func(){
		func() { MatMul(NewDense(3, 40), NewDense(3, 5), NewDense(6, 40), false) },
		func() { MatMulBT(NewDense(3, 4), NewDense(3, 20), NewDense(4, 21), false) },
		func() { MatMulAT(NewDense(5, 40), NewDense(3, 5), NewDense(4, 40), false) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

func ExampleMatMul() {
	a, _ := FromSlice(2, 3, []float32{1, 0, 2, 0, 3, 0})
	b, _ := FromSlice(3, 2, []float32{1, 2, 3, 4, 5, 6})
	c := NewDense(2, 2)
	MatMul(c, a, b, false)
	fmt.Println(c.Data)
	// Output: [11 14 9 12]
}
