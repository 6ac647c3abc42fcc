//go:build goexperiment.simd && amd64

package metattack

// useTiled selects tiledGemm (tensor's AVX2 register-blocked GemmSmall) for
// the n×n assembly; the portable build uses gonum's Sgemm.
const useTiled = true
