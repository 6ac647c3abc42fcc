//go:build !amd64 || purego || goexperiment.simd

package tensor

type gemmVariant struct {
	name string
	set  func() (restore func())
}

// gemmKernelVariants is this build's one set of dense-product kernels (the
// archsimd ones, or the loops alone).
func gemmKernelVariants() []gemmVariant {
	return []gemmVariant{{SIMD, func() func() { return func() {} }}}
}
