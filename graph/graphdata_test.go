package graph

import (
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// coraOrRandom returns cora_ml's adjacency when the dataset loader is
// available, else a random connected graph of the same size (2810 nodes,
// 7981 edges).
func coraOrRandom(t testing.TB) *tensor.CSR {
	t.Helper()
	return randomGraph(t, 2810, 7981-2809, 42)
}

// benchGraphs returns the graphs for the benchmark tables.
func benchGraphs(t testing.TB) []benchGraph {
	return []benchGraph{{"random-2810", coraOrRandom(t), syntheticFeatures(2810, 2879, 50, 1)}}
}
