//go:build amd64 && !purego && !goexperiment.simd

package tensor

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMaxIndexAVX2: the vector scan finds the largest index, read as
// unsigned (negatives above every valid row), at every length and position.
func TestMaxIndexAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 70; n++ {
		for _, big := range []int32{7, 1 << 20, math.MaxInt32, -1, math.MinInt32} {
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(rng.IntN(5))
			}
			at := rng.IntN(n)
			idx[at] = big
			want := uint32(0)
			for _, c := range idx {
				want = max(want, uint32(c))
			}
			if got := maxIndexAVX2(&idx[0], n); got != want {
				t.Fatalf("n=%d, %d at %d: max %d, want %d", n, big, at, got, want)
			}
			rows := 1 << 20
			if wantOK := big >= 0 && int(big) < rows; indicesBelow(idx, rows) != wantOK {
				t.Fatalf("n=%d, %d at %d: indicesBelow(%d) = %v", n, big, at, rows, !wantOK)
			}
		}
	}
	if !indicesBelow(nil, 0) || indicesBelow([]int32{0}, 0) {
		t.Fatal("indicesBelow on empty input or no rows")
	}
}

// TestSpMMPanicsOnOutOfRangeColumn: a CSR whose column index was changed
// after it was built (beyond x's rows, or negative) stops SpMM with a panic
// that names the rows, in every kernel path (narrow, 32-wide, other widths,
// long rows), instead of the assembly reading outside x.
func TestSpMMPanicsOnOutOfRangeColumn(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	for _, n := range []int{7, 16, 32, 40, 64} {
		for _, bad := range []int32{10, -1, math.MaxInt32} {
			x := NewDense(10, n)
			a := &CSR{Rows: 3, Cols: 10, Indptr: []int{0, 2, 3, 5}, Indices: []int32{1, 4, 2, 0, 9}, Values: []float32{1, 2, 3, 4, 5}}
			SpMM(NewDense(3, n), a, x, false) // valid as built
			a.Indices[3] = bad
			func() {
				defer func() {
					r := recover()
					if r == nil {
						t.Fatalf("n=%d, index %d: no panic", n, bad)
					}
					if s, _ := r.(string); !strings.Contains(s, "outside x's 10 rows") {
						t.Fatalf("n=%d, index %d: panic %v", n, bad, r)
					}
				}()
				SpMM(NewDense(3, n), a, x, false)
			}()
		}
	}
}
