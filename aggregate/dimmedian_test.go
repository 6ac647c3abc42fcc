package aggregate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// medianPicksSorted is the definition medianPicks implements, written
// plainly: per dimension, sort the keys and add the weights in sorted
// order until the sum reaches total/2 (else the largest key).
func medianPicksSorted(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32) {
	lo, hi := a.Indptr[r], a.Indptr[r+1]
	keys := make([]uint64, hi-lo)
	for c := range pick {
		if hi == lo {
			pick[c] = -1
			continue
		}
		for i := range keys {
			keys[i] = uint64(orderedBits(x.At(int(a.Indices[lo+i]), c)))<<32 | uint64(i)
		}
		slices.Sort(keys)
		k := keys[len(keys)-1]
		var cum float64
		for _, kk := range keys {
			cum += float64(a.Values[lo+int(kk&0xffffffff)])
			if cum >= total/2 {
				k = kk
				break
			}
		}
		pick[c] = int32(lo + int(k&0xffffffff))
	}
}

// medianTestValue draws embedding values of one of several kinds: normal,
// few distinct values (ties), ±0 mixed with small integers, with NaN and
// ±Inf, or a few ulps apart (values that differ in their lowest bits only:
// the 16-lane kernel's truncated keys cannot order them).
func medianTestValue(rng *rand.Rand, kind int) float32 {
	switch kind {
	case 4:
		base := []float32{1.5, -0.75, 3e-3}[rng.IntN(3)]
		return math.Float32frombits(math.Float32bits(base) + uint32(rng.IntN(100)))
	case 1:
		return float32(rng.IntN(3) - 1)
	case 2:
		return []float32{0, float32(math.Copysign(0, -1)), 1, -1}[rng.IntN(4)]
	case 3:
		if rng.IntN(8) == 0 {
			return []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
				math.Float32frombits(0xffffffff), math.Float32frombits(0x7fffffff)}[rng.IntN(5)]
		}
	}
	return float32(rng.NormFloat64())
}

// medianTestWeight draws edge weights of one of several kinds: uniform,
// equal, zeros among small integers, a few negative, spanning 2^±40
// (inexact float64 sums), or zero throughout.
func medianTestWeight(rng *rand.Rand, kind int) float32 {
	switch kind {
	case 1:
		return 0.25
	case 2:
		return float32(rng.IntN(3))
	case 3:
		return float32(rng.IntN(5) - 1)
	case 4:
		return float32(math.Ldexp(1+rng.Float64(), rng.IntN(81)-40))
	case 5:
		return 0
	case 6:
		return float32(rng.Float64()) * 1e-30 // subnormal sums
	}
	return float32(rng.Float64())
}

// forMedianCases calls check for every row of random graphs with every
// neighbour count 0..70 and widths d = 1 … 65, with ties, near-ties, ±0,
// NaN, ±Inf, and equal, zero, negative and wide-ranging weights, with the
// row's total weight, NaN and twice the total. check returns its picks;
// they must equal the plain definition's.
func forMedianCases(t *testing.T, check func(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(81, 82))
	for _, d := range []int{1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 65} {
		const n = 90
		var es []tensor.Entry
		wkind := make([]int, 0)
		for r := 0; r <= 70; r++ {
			cols := rng.Perm(n)[:r]
			kind := rng.IntN(7)
			wkind = append(wkind, kind)
			for _, c := range cols {
				es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: medianTestWeight(rng, kind)})
			}
		}
		a, err := tensor.FromCOO(71, n, es)
		if err != nil {
			t.Fatal(err)
		}
		totals := rowSums(a, nil)
		for trial := range 5 {
			x := tensor.NewDense(n, d)
			for i := range x.Data {
				x.Data[i] = medianTestValue(rng, trial)
			}
			got, want := make([]int32, d), make([]int32, d)
			for r := range a.Rows {
				for _, total := range []float64{totals[r], math.NaN(), 2 * totals[r]} {
					check(a, x, r, total, got)
					medianPicksSorted(a, x, r, total, want)
					if !slices.Equal(got, want) {
						t.Fatalf("d=%d values %d row %d (nk=%d, weights %d, total %v):\ngot  %v\nwant %v",
							d, trial, r, a.Indptr[r+1]-a.Indptr[r], wkind[r], total, got, want)
					}
				}
			}
		}
	}
}

// TestMedianPicksRandom checks medianPicks (the build's kernels) and the
// portable selection against the plain definition on forMedianCases.
func TestMedianPicksRandom(t *testing.T) {
	var ws workspace
	t.Run("build", func(t *testing.T) {
		forMedianCases(t, func(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32) {
			medianPicks(a, x, r, total, pick, &ws)
		})
	})
	t.Run("portable", func(t *testing.T) {
		forMedianCases(t, func(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32) {
			medianPicksGeneric(a, x, r, total, pick, &ws)
		})
	})
}

// TestExactSums checks exactSums' bound at its edge: weights 29 −
// bits.Len(n) binades apart sum exactly, one more binade may not.
func TestExactSums(t *testing.T) {
	w := []float32{1, 1, 1, 0, float32(math.Ldexp(1, 29-3))} // bits.Len(5) = 3
	if !exactSums(w) {
		t.Errorf("exactSums(%v) = false", w)
	}
	w[4] *= 2
	if exactSums(w) {
		t.Errorf("exactSums(%v) = true", w)
	}
	for _, bad := range []float32{-1, float32(math.Inf(1)), float32(math.NaN())} {
		if exactSums([]float32{1, bad}) {
			t.Errorf("exactSums([1 %v]) = true", bad)
		}
	}
	if !exactSums([]float32{0, float32(math.Copysign(0, -1))}) {
		t.Error("exactSums(zeros) = false")
	}
}
