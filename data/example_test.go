package data_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/npz"
)

// Split draws the reference's split with numpy's legacy RandomState: per
// class, nPerClass training and nPerClass validation nodes; the rest are
// the test nodes, so a seed gives the reference's split.
func ExampleSplit() {
	labels := []int32{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}
	train, val, test, err := data.Split(labels, 2, 2, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("train", train, "val", val, "test", test)
	// Output:
	// train [4 3 7 10] val [2 1 9 6] test [0 5 8 11]
}

// A dataset file is a NumPy .npz in the layout of the reference's datasets:
// the adjacency and the features as scipy CSR parts, the labels, and
// optionally a fixed split. LoadFile standardises the graph as the
// reference does — symmetric, unweighted, without self loops, restricted to
// its largest connected component — and NewProblem gives the one input of
// every pipeline. Here the raw graph has a directed triangle with one
// weighted edge, a separate pair of nodes with a self loop, and an isolated
// node.
func ExampleLoadFile() {
	dir, err := os.MkdirTemp("", "rgnn-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "toy.npz")
	// rows 0 → 1, 1 → 2, 2 → 0 (weight 2), 3 → 3, 3 → 4; node 5 isolated
	err = npz.WriteFile(path,
		npz.F32("adj_matrix.data", []int{5}, []float32{1, 1, 2, 1, 1}),
		npz.I32("adj_matrix.indices", []int{5}, []int32{1, 2, 0, 3, 4}),
		npz.I64("adj_matrix.indptr", []int{7}, []int64{0, 1, 2, 3, 5, 5, 5}),
		npz.I64("adj_matrix.shape", []int{2}, []int64{6, 6}),
		npz.F32("attr_matrix.data", []int{6}, []float32{1, 1, 1, 1, 1, 1}),
		npz.I32("attr_matrix.indices", []int{6}, []int32{0, 1, 2, 0, 1, 2}),
		npz.I64("attr_matrix.indptr", []int{7}, []int64{0, 1, 2, 3, 4, 5, 6}),
		npz.I64("attr_matrix.shape", []int{2}, []int64{6, 3}),
		npz.I64("labels", []int{6}, []int64{0, 1, 0, 1, 1, 0}),
		npz.I64("split_train", []int{2}, []int64{0, 3}),
		npz.I64("split_valid", []int{1}, []int64{1}),
		npz.I64("split_test", []int{2}, []int64{2, 4}),
	)
	if err != nil {
		log.Fatal(err)
	}
	g, err := data.LoadFile(path, false)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d of %d nodes kept (raw ids %v), %d undirected edges, %d classes\n",
		g.NumNodes(), g.RawNodes, g.LCCNodes, g.NumEdges(), g.NumClasses)
	fmt.Println("adjacency values", g.Adj.Values, "labels", g.Labels)
	p, err := data.NewProblem(g, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("train", p.Train, "val", p.Val, "test", p.Test)
	// Output:
	// 3 of 6 nodes kept (raw ids [0 1 2]), 3 undirected edges, 2 classes
	// adjacency values [1 1 1 1 1 1] labels [0 1 0]
	// train [0] val [1] test [2]
}
