//go:build amd64 && !purego

package aggregate

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/internal/asmcheck"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/tensor"
)

// TestMedianKernelsAVX512 checks each family of kernels on every column
// of forMedianCases: the exact 8-lane kernels (otherwise run only where a
// uint32-key kernel reports a collision), the 16-lane kernels with their
// scan over up to 8 lanes (otherwise run without AVX-512VL), and the
// default choice, whose collisions are counted: near-ties must produce
// some for the fallback to be tested.
func TestMedianKernelsAVX512(t *testing.T) {
	if !hasMedian512 {
		t.Skip("no AVX-512F")
	}
	var ws workspace
	colls, rows := 0, 0
	for _, mode := range []int{medianExact, medianWide, medianAuto} {
		forMedianCases(t, func(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32) {
			lo, hi := a.Indptr[r], a.Indptr[r+1]
			if !medianPicksAVX512(x, a.Indices[lo:hi], a.Values[lo:hi], total/2, lo, pick, &ws, mode) {
				medianPicks(a, x, r, total, pick, &ws)
				return
			}
			if mode != medianAuto {
				return
			}
			rows++
			for _, m := range ws.coll[:(x.Cols+7)/8] {
				if m != 0 {
					colls++
					break
				}
			}
		})
	}
	t.Logf("uint32-key kernels: %d of %d rows with collisions", colls, rows)
	if colls == 0 || colls == rows {
		t.Errorf("%d of %d rows with collisions: the test does not exercise both paths", colls, rows)
	}
	// How often normal values (the benchmark graph) take the exact kernel.
	a, x, _ := benchGraph()
	pick := make([]int32, x.Cols)
	totals := rowSums(a, nil)
	groups, redo := 0, 0
	for r := range a.Rows {
		lo, hi := a.Indptr[r], a.Indptr[r+1]
		medianPicksAVX512(x, a.Indices[lo:hi], a.Values[lo:hi], totals[r]/2, lo, pick, &ws, medianAuto)
		for _, m := range ws.coll[:(x.Cols+15)/16] {
			for h := range 2 {
				groups++
				redo += b2i(m>>(8*h)&0xff != 0)
			}
		}
	}
	t.Logf("benchGraph: %d of %d eight-column groups recomputed with exact keys", redo, groups)
}

// TestMedianKernelsAVX2 checks the AVX2 kernels (whatever the CPU's
// AVX-512) against the portable selection on every width d = 1 … 130 with
// every third neighbour count of 0 … 70 (all of them over three widths;
// beyond 64 and below 2 the kernels decline: medianPicks' own path), with
// values of every kind of medianAVX2Value and weights of every kind of
// medianAVX2Weight, at the row's total weight, NaN, twice and half the
// total. The picks are written into a longer slice whose tail must stay
// untouched. Near-ties must make the kernels report collisions (the
// portable recomputation) in some rows and not all.
func TestMedianKernelsAVX2(t *testing.T) {
	if !hasMedianAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(2, 2026))
	var ws, wsg workspace
	colls, rows := 0, 0
	for d := 1; d <= 130; d++ {
		const n = 90
		var es []tensor.Entry
		wkind := make([]int, 0, 71)
		for r := 0; r <= 70; r++ {
			kind := rng.IntN(9)
			wkind = append(wkind, kind)
			for _, c := range rng.Perm(n)[:r] {
				es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: medianAVX2Weight(rng, kind)})
			}
		}
		a, err := tensor.FromCOO(71, n, es)
		if err != nil {
			t.Fatal(err)
		}
		totals := rowSums(a, nil)
		x := tensor.NewDense(n, d)
		buf := make([]int32, d+9)
		want := make([]int32, d)
		for r := d % 3; r < a.Rows; r += 3 { // a third of the counts per width, all over three
			lo, hi := a.Indptr[r], a.Indptr[r+1]
			// Each row and width its kind of values.
			{
				kind := (r/3 + d) % 9
				for i := range x.Data {
					x.Data[i] = medianAVX2Value(rng, kind)
				}
				for _, total := range []float64{totals[r], math.NaN(), 2 * totals[r], totals[r] / 2} {
					for i := range buf {
						buf[i] = -7
					}
					pick := buf[:d]
					if !medianPicksAVX2(x, a.Indices[lo:hi], a.Values[lo:hi], total/2, lo, pick, &ws) {
						if n := hi - lo; n >= 2 && n <= 64 {
							t.Fatalf("d=%d row %d: the AVX2 kernels declined %d entries", d, r, n)
						}
						medianPicks(a, x, r, total, pick, &ws)
					} else {
						rows++
						for _, m := range ws.coll[:(d+7)/8] {
							if m != 0 {
								colls++
								break
							}
						}
					}
					medianPicksGeneric(a, x, r, total, want, &wsg)
					if !slices.Equal(pick, want) {
						t.Fatalf("d=%d values %d row %d (nk=%d, weights %d, total %v):\ngot  %v\nwant %v",
							d, kind, r, hi-lo, wkind[r], total, pick, want)
					}
					for i, p := range buf[d:] {
						if p != -7 {
							t.Fatalf("d=%d row %d: pick[%d] written beyond d", d, r, d+i)
						}
					}
				}
			}
		}
	}
	t.Logf("AVX2 kernels: %d of %d rows with collisions", colls, rows)
	if colls == 0 || colls == rows {
		t.Errorf("%d of %d rows with collisions: the test does not exercise both paths", colls, rows)
	}
}

// TestMedianKernelsAVX2Ties checks that ties alone (neighbours with equal
// embedding rows, as duplicate feature vectors give a first layer) keep
// the AVX2 kernels' picks: a run of keys with one value is in the exact
// order, so nearly no column is recomputed, where a rule on shared upper
// bits alone would recompute most of them.
func TestMedianKernelsAVX2Ties(t *testing.T) {
	if !hasMedianAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	const n, d = 90, 64
	x := randX(rng, n, d)
	for r := 30; r < n; r++ { // rows 30 … 89 repeat rows 0 … 29
		copy(x.Row(r), x.Row(r%30))
	}
	var es []tensor.Entry
	for r := range 63 {
		for _, c := range rng.Perm(n)[:r+2] {
			es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: float32(rng.Float64())})
		}
	}
	a, err := tensor.FromCOO(63, n, es)
	if err != nil {
		t.Fatal(err)
	}
	totals := rowSums(a, nil)
	var ws, wsg workspace
	got, want := make([]int32, d), make([]int32, d)
	cols, colls := 0, 0
	for r := range a.Rows {
		lo, hi := a.Indptr[r], a.Indptr[r+1]
		if !medianPicksAVX2(x, a.Indices[lo:hi], a.Values[lo:hi], totals[r]/2, lo, got, &ws) {
			t.Fatalf("row %d: the AVX2 kernels declined %d entries", r, hi-lo)
		}
		medianPicksGeneric(a, x, r, totals[r], want, &wsg)
		if !slices.Equal(got, want) {
			t.Fatalf("row %d (nk=%d):\ngot  %v\nwant %v", r, hi-lo, got, want)
		}
		for _, m := range ws.coll[:d/8] {
			colls += bits.OnesCount16(m)
		}
		cols += d
	}
	t.Logf("%d of %d columns recomputed", colls, cols)
	if colls*50 > cols {
		t.Errorf("%d of %d columns recomputed: ties alone should not need the portable selection", colls, cols)
	}
}

// TestMedianKernelsAVX2Datasets runs the AVX2 kernels on the GDC
// neighbourhoods (α = 0.15, k = 64) of cora_ml and citeseer with a first
// layer's embeddings (binary features times a random 0.05·N(0, 1) weight
// matrix, d = 64, and its first 7 columns): the picks of the portable
// selection, and few columns recomputed (duplicate feature rows make many
// ties, which are no collision).
func TestMedianKernelsAVX2Datasets(t *testing.T) {
	if !hasMedianAVX2 {
		t.Skip("no AVX2")
	}
	dir := fixture.DataDir(t)
	for _, name := range []string{"cora_ml", "citeseer"} {
		a, x64 := gdcEmbeddings(t, dir, name)
		x7 := tensor.NewDense(a.Rows, 7)
		for r := range a.Rows {
			copy(x7.Row(r), x64.Row(r)[:7])
		}
		totals := rowSums(a, nil)
		for _, x := range []*tensor.Dense{x64, x7} {
			var ws, wsg workspace
			got, want := make([]int32, x.Cols), make([]int32, x.Cols)
			cols, colls := 0, 0
			for r := range a.Rows {
				lo, hi := a.Indptr[r], a.Indptr[r+1]
				if !medianPicksAVX2(x, a.Indices[lo:hi], a.Values[lo:hi], totals[r]/2, lo, got, &ws) {
					continue
				}
				medianPicksGeneric(a, x, r, totals[r], want, &wsg)
				if !slices.Equal(got, want) {
					t.Fatalf("%s d=%d row %d (nk=%d):\ngot  %v\nwant %v", name, x.Cols, r, hi-lo, got, want)
				}
				for _, m := range ws.coll[:(x.Cols+7)/8] {
					colls += bits.OnesCount16(m)
				}
				cols += x.Cols
			}
			t.Logf("%s d=%d: %d of %d columns recomputed", name, x.Cols, colls, cols)
			if colls*100 > cols {
				t.Errorf("%s d=%d: %d of %d columns recomputed", name, x.Cols, colls, cols)
			}
		}
	}
}

// medianAVX2Value draws embedding values: medianTestValue's kinds 0–4,
// then subnormals of both signs among ±0, values whose ordered bits share
// all but their lowest 1–6 bits (collisions at every index width), every
// special at once (±0, ±Inf, NaNs of both signs and payloads, the largest
// and smallest normals and subnormals), and whole columns of one value.
func medianAVX2Value(rng *rand.Rand, kind int) float32 {
	switch kind {
	case 5:
		switch rng.IntN(4) {
		case 0:
			return []float32{0, float32(math.Copysign(0, -1))}[rng.IntN(2)]
		case 1:
			return float32(rng.NormFloat64())
		}
		v := math.Float32frombits(uint32(1 + rng.IntN(1<<23-1)))
		if rng.IntN(2) == 0 {
			v = -v
		}
		return v
	case 6:
		base := []uint32{0x3f800000, 0xbf400000, 0x00000040, 0x80000040}[rng.IntN(4)]
		return math.Float32frombits(base + uint32(rng.IntN(1<<(1+rng.IntN(6)))))
	case 7:
		return []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
			float32(math.NaN()), math.Float32frombits(0xffffffff), math.Float32frombits(0x7f800001),
			math.Float32frombits(0xff800001), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32,
			-math.SmallestNonzeroFloat32, math.Float32frombits(0x00800000), math.Float32frombits(0x807fffff),
			1, -1}[rng.IntN(16)]
	case 8:
		return 0.5
	}
	return medianTestValue(rng, kind)
}

// medianAVX2Weight draws edge weights: medianTestWeight's kinds 0–6, then
// some ±Inf and NaN among uniform ones, and float32 weights whose float64
// sums round (24 significant bits spread over 2^±60).
func medianAVX2Weight(rng *rand.Rand, kind int) float32 {
	switch kind {
	case 7:
		if rng.IntN(6) == 0 {
			return []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}[rng.IntN(3)]
		}
		return float32(rng.Float64())
	case 8:
		return float32(math.Ldexp(float64(1<<23+rng.IntN(1<<23)), rng.IntN(121)-60-23))
	}
	return medianTestWeight(rng, kind)
}

// TestDimMedianAsmGenerated checks that dimmedian_amd64.s is what
// dimmedian_gen.go writes (go generate after changing the generator).
func TestDimMedianAsmGenerated(t *testing.T) {
	asmcheck.Generated(t, "dimmedian_gen.go", "dimmedian_amd64.s", "./aggregate")
}

// BenchmarkMedianPicksExact is BenchmarkMedianPicks' 64-entry rows on the
// exact 8-lane kernel alone (no 16-lane pass).
func BenchmarkMedianPicksExact(b *testing.B) {
	if !hasMedian512 {
		b.Skip("no AVX-512F")
	}
	for _, d := range []int{64, 7} {
		rng := rand.New(rand.NewPCG(64, uint64(d)))
		const n = 512
		var es []tensor.Entry
		for r := range 64 {
			for _, c := range rng.Perm(n)[:64] {
				es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: float32(rng.Float64())})
			}
		}
		a, _ := tensor.FromCOO(64, n, es)
		x := randX(rng, n, d)
		totals := rowSums(a, nil)
		pick := make([]int32, d)
		b.Run(fmt.Sprintf("nk=64/d=%d", d), func(b *testing.B) {
			var ws workspace
			r := 0
			c0 := cpuSeconds()
			for b.Loop() {
				lo, hi := a.Indptr[r], a.Indptr[r+1]
				medianPicksAVX512(x, a.Indices[lo:hi], a.Values[lo:hi], totals[r]/2, lo, pick, &ws, medianExact)
				r = (r + 1) & 63
			}
			if c := cpuSeconds(); c > 0 && b.N > 0 {
				b.ReportMetric((c-c0)*1e9/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
