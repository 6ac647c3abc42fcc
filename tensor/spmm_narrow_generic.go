//go:build !amd64 || (purego && !goexperiment.simd)

package tensor

// spmmNarrowVec has no vector path in the portable build.
func spmmNarrowVec(dst *Dense, a *CSR, x *Dense, acc bool, lo, hi int) bool { return false }
