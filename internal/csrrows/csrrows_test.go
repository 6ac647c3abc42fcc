package csrrows

import (
	"slices"
	"testing"
)

func TestAppend(t *testing.T) {
	// Three rows: {0: 1}, {}, {1: 2, 2: 3}.
	indptr, indices, values := []int{0, 1, 1, 3}, []int32{0, 1, 2}, []float64{1, 2, 3}
	dptr := make([]int, 4)
	di, dv := []int32{7}, []float64{9} // one entry already written (row 0, say)
	dptr[1] = 1
	di, dv = Append(dptr, di, dv, indptr, indices, values, 1, 3)
	if !slices.Equal(dptr, []int{0, 1, 1, 3}) || !slices.Equal(di, []int32{7, 1, 2}) || !slices.Equal(dv, []float64{9, 2, 3}) {
		t.Fatalf("got indptr %v, indices %v, values %v", dptr, di, dv)
	}
	di2, dv2 := Append(dptr, di, dv, indptr, indices, values, 2, 2)
	if len(di2) != 3 || len(dv2) != 3 {
		t.Fatalf("an empty run appended %d entries", len(di2)-3)
	}
}

func TestAppendIndices(t *testing.T) {
	indptr, indices := []int{0, 1, 1, 3}, []int32{0, 1, 2}
	dptr := make([]int, 4)
	dptr[1] = 1
	di := AppendIndices(dptr, []int32{7}, indptr, indices, 1, 3)
	if !slices.Equal(dptr, []int{0, 1, 1, 3}) || !slices.Equal(di, []int32{7, 1, 2}) {
		t.Fatalf("got indptr %v, indices %v", dptr, di)
	}
	if di2 := AppendIndices(dptr, di, indptr, indices, 2, 2); len(di2) != 3 {
		t.Fatalf("an empty run appended %d entries", len(di2)-3)
	}
}
