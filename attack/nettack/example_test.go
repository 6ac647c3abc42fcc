package nettack_test

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/tensor"
)

// Example attacks node 0 of a 6-node graph (two triangles joined by an
// edge) with a hand-made surrogate: nodes 0–2 lean to class 0, nodes 3–5
// to class 1. The direct attack connects node 0 to the other class and cuts one of
// its own edges.
func Example() {
	edges := [][2]int{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 5}}
	var es []tensor.Entry
	for _, e := range edges {
		es = append(es, tensor.Entry{Row: int32(e[0]), Col: int32(e[1]), Val: 1}, tensor.Entry{Row: int32(e[1]), Col: int32(e[0]), Val: 1})
	}
	adj, _ := tensor.FromCOO(6, 6, es)
	xw, _ := tensor.FromSlice(6, 2, []float32{1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1})
	labels := []int32{0, 0, 0, 1, 1, 1}
	res, err := nettack.Attack(context.Background(), adj, &nettack.Surrogate{XW: xw}, labels,
		[]nettack.Target{{Node: 0, Budget: 2}}, nettack.Options{LLCutoff: -1}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res[0]
	fmt.Printf("flips %v, surrogate margin %.3f → %.3f\n", r.Flips, r.SurrogateBefore, r.SurrogateAfter)
	// Output: flips [[0 4] [0 1]], surrogate margin 0.804 → 0.152
}
