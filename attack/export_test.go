package attack

import "github.com/rgnn/rgnn/tensor"

// RandomBlock draws a PR-BCD block of up to size random pairs of adj
// (stream 1 of seed), for the tests of package attack_test.
func RandomBlock(adj *tensor.CSR, seed uint64, size int) []Flip {
	b := newBlock(adj)
	b.fill(newRNG(seed, 1), size)
	return b.pairs
}

// GradPairs asks e for the gradients of pairs of an n-node graph the way
// PR-BCD and GR-BCD do (pairGrader: one PairGrad, or a ScanPairs pass for
// large sets).
func GradPairs(e Engine, n int, pairs []Flip, out []float32) error {
	return newPairGrader(e, n, numPairs(n)).grad(pairs, out)
}
