//go:build amd64 && !purego && !goexperiment.simd

package tensor

import (
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/rgnn/rgnn/internal/asmcheck"
)

type gemmVariant struct {
	name string
	set  func() (restore func())
}

// gemmKernelVariants are the dense-product kernels of this CPU: the
// Z-register ones where it has AVX-512F, the Y-register ones (AVX2), each
// selected for the duration of a test; or the loops alone.
func gemmKernelVariants() []gemmVariant {
	use := func(avx512 bool) func() func() {
		return func() func() {
			old := useAVX512
			useAVX512 = avx512
			return func() { useAVX512 = old }
		}
	}
	var vs []gemmVariant
	if useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		vs = append(vs, gemmVariant{"avx512", use(true)})
	}
	if useAVX2 {
		vs = append(vs, gemmVariant{"avx2", use(false)})
	}
	if len(vs) == 0 {
		vs = append(vs, gemmVariant{"loops", func() func() { return func() {} }})
	}
	return vs
}

// TestMatMulAsmGenerated checks that matmul_amd64.s is what matmul_gen.go
// writes (go generate ./tensor after changing the generator).
func TestMatMulAsmGenerated(t *testing.T) {
	asmcheck.Generated(t, "matmul_gen.go", "matmul_amd64.s", "./tensor")
}
