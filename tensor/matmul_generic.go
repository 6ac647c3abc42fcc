//go:build !amd64 || (purego && !goexperiment.simd)

package tensor

// The portable build has no dense-product kernels: MatMul, MatMulAT and
// MatMulBT run their loops of axpy and dot calls.

const hasGemmKernels = false

func axpyBlock(c []float32, ldc int, a []float32, sai, sat int, b []float32, ldb, rows, tn, n int, load bool) bool {
	return false
}

func dotPack(b *Dense) []float32 { return nil }

func dotRows(dst, a *Dense, bt []float32, nj int, acc bool, lo, hi int) {}
