//go:build !(goexperiment.simd && amd64)

package metattack

// useTiled: see gemm_simd.go.
const useTiled = false
