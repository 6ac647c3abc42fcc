//go:build !amd64 || (purego && !goexperiment.simd)

package metattack

// rowMul16: see rowmul_simd.go; the portable build uses the scalar loops.
func rowMul16(o []float64, vals []float64, idx []int32, w []float64) bool {
	return false
}
