package graph

import (
	"math"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

func TestGCNNorm(t *testing.T) {
	// 0-1, 1-2 path plus an existing self loop of weight 3 on node 2.
	a, err := tensor.FromCOO(3, 3, []tensor.Entry{{Row: 0, Col: 1, Val: 1}, {Row: 1, Col: 0, Val: 1}, {Row: 1, Col: 2, Val: 1}, {Row: 2, Col: 1, Val: 1}, {Row: 2, Col: 2, Val: 3}})
	if err != nil {
		t.Fatal(err)
	}
	n := GCNNorm(a)
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	// degrees (column sums incl. loops): node0 = 1+1, node1 = 1+1+1, node2 = 1+3.
	deg := []float64{2, 3, 4}
	want := map[[2]int]float64{
		{0, 0}: 1, {0, 1}: 1, {1, 0}: 1, {1, 1}: 1, {1, 2}: 1, {2, 1}: 1, {2, 2}: 3,
	}
	if n.Nnz() != len(want) {
		t.Fatalf("nnz %d, want %d", n.Nnz(), len(want))
	}
	d := n.ToDense()
	for rc, w := range want {
		exp := w / math.Sqrt(deg[rc[0]]*deg[rc[1]])
		if got := float64(d.At(rc[0], rc[1])); math.Abs(got-exp) > 1e-6 {
			t.Errorf("ŵ%v = %v, want %v", rc, got, exp)
		}
	}
	_, src := AddRemainingSelfLoops(a, 1)
	if src[0] != -1 || src[len(src)-1] != 4 {
		t.Errorf("self-loop source map %v", src)
	}
}

// TestGCNNormInPlace: GCNNorm (self loops without the source map, values
// normalised in place) gives the bits of AddRemainingSelfLoops followed by
// GCNNormValues, on a weighted graph where some nodes have self loops.
func TestGCNNormInPlace(t *testing.T) {
	var es []tensor.Entry
	for i := range 60 {
		for j := range 60 {
			if (i*7+j*13)%11 == 0 {
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(1+(i+j)%5) / 3})
			}
		}
	}
	a, err := tensor.FromCOO(60, 60, es)
	if err != nil {
		t.Fatal(err)
	}
	s, src := AddRemainingSelfLoops(a, 1)
	vals, _ := GCNNormValues(s)
	got := GCNNorm(a)
	if !slices.Equal(got.Indptr, s.Indptr) || !slices.Equal(got.Indices, s.Indices) || len(src) != s.Nnz() {
		t.Fatal("structure differs")
	}
	for k := range vals {
		if math.Float32bits(got.Values[k]) != math.Float32bits(vals[k]) {
			t.Fatalf("entry %d: %v, want %v", k, got.Values[k], vals[k])
		}
	}
}
