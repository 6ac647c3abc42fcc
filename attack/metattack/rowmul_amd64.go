//go:build amd64 && !purego && !goexperiment.simd

package metattack

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel of rowmul_amd64.s: the
// GOEXPERIMENT=simd build's rowMul16 (same fused multiply-adds, same order).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func rowMul16Asm(o, vals *float64, idx *int32, n int, w *float64)

// rowMul16 sets o (16 values) to Σ_p vals[p]·w[idx[p]·16 : +16] with four
// 4-wide float64 accumulators (fused multiply-adds). It reports false
// without AVX2/FMA.
func rowMul16(o []float64, vals []float64, idx []int32, w []float64) bool {
	if !useAVX2 {
		return false
	}
	o = o[:16]
	if len(idx) == 0 {
		clear(o)
		return true
	}
	vals = vals[:len(idx)]
	for _, j := range idx {
		_ = w[int(j)*16+15]
	}
	rowMul16Asm(&o[0], &vals[0], &idx[0], len(idx), &w[0])
	return true
}
