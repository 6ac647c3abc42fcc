package tensor_test

import (
	"fmt"
	"log"

	"github.com/rgnn/rgnn/tensor"
)

// FromCOO builds a CSR from coordinate entries in any order: rows and
// columns sorted, duplicate coordinates summed.
func ExampleFromCOO() {
	a, err := tensor.FromCOO(3, 3, []tensor.Entry{
		{Row: 2, Col: 0, Val: 1}, {Row: 0, Col: 2, Val: 1}, {Row: 0, Col: 1, Val: 0.5}, {Row: 0, Col: 1, Val: 0.25},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("indptr", a.Indptr, "indices", a.Indices, "values", a.Values)
	_, err = tensor.FromCOO(3, 3, []tensor.Entry{{Row: 3, Col: 0, Val: 1}})
	fmt.Println(err)
	// Output:
	// indptr [0 2 2 3] indices [1 2 0] values [0.75 1 1]
	// csr: entry (3, 0) outside 3×3
}

// FlipEdges toggles undirected edges of a symmetric adjacency — the
// perturbation of the attacks and of randomized smoothing: an edge present
// is removed in both directions, an absent one added with weight 1.
func ExampleFlipEdges() {
	// the path 0 – 1 – 2
	a, err := tensor.FromCOO(3, 3, []tensor.Entry{
		{Row: 0, Col: 1, Val: 1}, {Row: 1, Col: 0, Val: 1}, {Row: 1, Col: 2, Val: 1}, {Row: 2, Col: 1, Val: 1},
	})
	if err != nil {
		log.Fatal(err)
	}
	b, err := tensor.FlipEdges(a, [][2]int{{1, 0}, {0, 2}}) // remove 0 – 1, add 0 – 2
	if err != nil {
		log.Fatal(err)
	}
	for i := range b.Rows {
		lo, hi := b.RowRange(i)
		fmt.Println(i, "→", b.Indices[lo:hi])
	}
	_, err = tensor.FlipEdges(a, [][2]int{{1, 1}})
	fmt.Println(err)
	// Output:
	// 0 → [2]
	// 1 → [2]
	// 2 → [0 1]
	// flip edges: pair 0 (1, 1) is a self loop
}
