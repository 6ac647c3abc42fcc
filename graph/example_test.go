package graph_test

import (
	"fmt"
	"log"
	"math"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// undirected builds the symmetric 0/1 adjacency of an edge list.
func undirected(n int, edges [][2]int32) *tensor.CSR {
	var es []tensor.Entry
	for _, e := range edges {
		es = append(es, tensor.Entry{Row: e[0], Col: e[1], Val: 1}, tensor.Entry{Row: e[1], Col: e[0], Val: 1})
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		log.Fatal(err)
	}
	return a
}

// printRows prints the stored entries of some rows of a CSR.
func printRows(a *tensor.CSR, rows ...int) {
	for _, r := range rows {
		fmt.Printf("row %d:", r)
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			fmt.Printf(" %d:%.3f", a.Indices[k], a.Values[k])
		}
		fmt.Println()
	}
}

// GCN normalisation of the path 0 – 1 – 2: a self loop of weight 1 on
// every node, then ŵ_rc = w_rc / √(d_r d_c) with the degrees counted with
// the self loops (2, 3, 2).
func ExampleGCNNorm() {
	a := undirected(3, [][2]int32{{0, 1}, {1, 2}})
	printRows(graph.GCNNorm(a), 0, 1, 2)
	// Output:
	// row 0: 0:0.500 1:0.408
	// row 1: 0:0.408 1:0.333 2:0.408
	// row 2: 1:0.408 2:0.500
}

// GDC (graph diffusion by personalised PageRank) on two triangles joined
// by the edge 2 – 3: each row keeps its k = 3 largest diffusion values,
// normalised to sum to 1. The exact diffusion and the push approximation
// (Eps > 0, what large graphs use) keep the same entries here.
func ExampleGDC() {
	a := undirected(6, [][2]int32{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 5}})
	cfg := graph.DefaultGDCConfig() // α = 0.15, exact
	cfg.K = 3
	exact, err := graph.GDC(a, cfg)
	if err != nil {
		log.Fatal(err)
	}
	printRows(exact, 0, 2)
	cfg.Eps = 1e-4
	push, err := graph.GDC(a, cfg)
	if err != nil {
		log.Fatal(err)
	}
	same, maxDiff := true, 0.0
	for k := range exact.Indices {
		same = same && exact.Indices[k] == push.Indices[k]
		maxDiff = max(maxDiff, math.Abs(float64(exact.Values[k]-push.Values[k])))
	}
	fmt.Printf("push, eps 1e-4: same entries %v, largest difference below 1e-3: %v\n", same, maxDiff < 1e-3)
	// Output:
	// row 0: 0:0.467 1:0.273 2:0.260
	// row 2: 0:0.266 1:0.266 2:0.469
	// push, eps 1e-4: same entries true, largest difference below 1e-3: true
}

// TopKPPR computes the top-k personalised PageRank rows of chosen nodes
// only, by forward push, for graphs of any size (what PPRGo propagates
// with); its rows are ApproxGDC's rows of those nodes.
func ExampleTopKPPR() {
	a := undirected(6, [][2]int32{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 5}})
	rows, err := graph.TopKPPR(a, []int{0, 5}, 0.15, 1e-4, 2, 1)
	if err != nil {
		log.Fatal(err)
	}
	printRows(rows, 0, 1) // the rows of nodes 0 and 5
	// Output:
	// row 0: 0:0.631 1:0.369
	// row 1: 4:0.369 5:0.631
}
