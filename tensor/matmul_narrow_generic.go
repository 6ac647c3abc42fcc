//go:build !amd64 || (purego && !goexperiment.simd)

package tensor

// matMulNarrowVec has no vector path in the portable build.
func matMulNarrowVec(dst, a, b *Dense, acc bool, lo, hi int) bool { return false }
