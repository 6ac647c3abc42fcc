package attack

import "github.com/rgnn/rgnn/tensor"

// RandomBlock draws a PR-BCD block of up to size random pairs of adj
// (stream 1 of seed), for the tests of package attack_test.
func RandomBlock(adj *tensor.CSR, seed uint64, size int) []Flip {
	b := newBlock(adj, size, bitmapMaxPairs)
	b.fill(newRNG(seed, 1), size)
	return b.pairs
}

// GradPairs asks e for the gradients of pairs of an n-node graph the way
// PR-BCD and GR-BCD do (pairGrader: one PairGrad, or a ScanPairs pass for
// large sets).
func GradPairs(e Engine, n int, pairs []Flip, out []float32) error {
	return newPairGrader(e, n, numPairs(n)).grad(pairs, out)
}

// WithPairLimit makes a PR-BCD or GR-BCD attack keep its block sets as
// bitmaps only up to limit pairs (1: always the hash set).
func WithPairLimit(a Attack, limit int64) Attack {
	switch x := a.(type) {
	case *PRBCD:
		x.pairLimit = limit
	case *GRBCD:
		x.pairLimit = limit
	}
	return a
}

// PairSetOps applies a sequence of operations to a pair set of np pairs
// (limit as newPairSet's) and reports has() after each: op 0 adds, 1
// removes, 2 only asks; a clone replaces the set every 97 operations.
func PairSetOps(np, limit int64, ops []int, lins []int64) []bool {
	s := newPairSet(np, 4, limit)
	out := make([]bool, len(ops))
	for i, op := range ops {
		switch op {
		case 0:
			s.add(lins[i])
		case 1:
			s.remove(lins[i])
		}
		out[i] = s.has(lins[i])
		if i%97 == 96 {
			s = s.clone(i % 3 * 1000)
		}
	}
	return out
}
