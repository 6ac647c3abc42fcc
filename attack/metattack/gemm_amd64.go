//go:build amd64 && !purego && !goexperiment.simd

package metattack

// useTiled selects tiledGemm (package tensor's register-blocked GemmSmall,
// AVX2 assembly in this build) for the n×n assembly, like the SIMD build.
const useTiled = true
