//go:build amd64 && !purego

package attack

import (
	"math"

	"golang.org/x/sys/cpu"
)

// projectAVX2 selects the vector kernels of the projection's any-order
// sums and extremes (clampsum_amd64.s).
var projectAVX2 = cpu.X86.HasAVX2

//go:noescape
func clampSumAVX2(vals *float32, n int, mu float64) float64

//go:noescape
func minMaxAVX2(vals *float32, n int, out *[24]float32)

// clampSumBlock is Σ clamp(float64(v) − μ, 0, 1) over vals (not NaN), in
// some order.
func clampSumBlock(vals []float32, mu float64) float64 {
	n := len(vals) &^ 15
	if !projectAVX2 || n == 0 {
		return clampSumGo(vals, mu)
	}
	return clampSumAVX2(&vals[0], n, mu) + clampSumGo(vals[n:], mu)
}

// minMaxNaN returns the least and the largest of vals (±Inf when empty),
// or nan = true if one of them is NaN.
func minMaxNaN(vals []float32) (lo, hi float64, nan bool) {
	n := len(vals) &^ 15
	if !projectAVX2 || n == 0 {
		return minMaxNaNGo(vals)
	}
	var out [24]float32
	minMaxAVX2(&vals[0], n, &out)
	l, h, bad := minMaxNaNGo(vals[n:])
	for i := range 8 {
		l, h = math.Min(l, float64(out[i])), math.Max(h, float64(out[8+i]))
		bad = bad || math.Float32bits(out[16+i]) != 0
	}
	return l, h, bad
}
