//go:build amd64 && !purego && !goexperiment.simd

package aggregate

import "testing"

// BenchmarkFMAPeak is this core's ceiling for 16-lane float32 fused
// multiply-adds (eight independent chains, nothing else), in GFLOP/s: the
// rate BenchmarkGramBlocks is read against.
func BenchmarkFMAPeak(b *testing.B) {
	if !useAVX512 {
		b.Skip("no AVX-512")
	}
	const iters = 1 << 16
	for b.Loop() {
		fmaPeakAVX(iters)
	}
	b.ReportMetric(float64(iters)*8*16*2*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
