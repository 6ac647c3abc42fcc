package graph

import (
	"math"
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
