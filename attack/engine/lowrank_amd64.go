//go:build amd64 && !purego && !goexperiment.simd

package engine

import "golang.org/x/sys/cpu"

// tileAVX2 selects the assembly tile (lowrank_amd64.s) where the CPU has
// AVX2 and FMA: the GOEXPERIMENT=simd build's tile (lowrank_simd.go), the
// same fused multiply-adds in the same order, so both builds give the same
// bits.
var tileAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func tileAsm(out *[tileRows * tileCols]float32, k, panel *float32, r2 int)

// tile is the 4×16 register tile with AVX2 FMAs (8 accumulators).
func tile(out *[tileRows * tileCols]float32, k, panel []float32, r2 int) {
	if !tileAVX2 || r2 == 0 {
		tileGeneric(out, k, panel, r2)
		return
	}
	_, _ = k[tileRows*r2-1], panel[r2*tileCols-1]
	tileAsm(out, &k[0], &panel[0], r2)
}
