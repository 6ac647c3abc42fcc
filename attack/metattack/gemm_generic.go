//go:build !amd64 || (purego && !goexperiment.simd)

package metattack

// useTiled: see gemm_simd.go.
const useTiled = false
