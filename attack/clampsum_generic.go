//go:build !amd64 || purego

package attack

// clampSumBlock is Σ clamp(float64(v) − μ, 0, 1) over vals (not NaN), in
// some order.
func clampSumBlock(vals []float32, mu float64) float64 { return clampSumGo(vals, mu) }

// minMaxNaN returns the least and the largest of vals (±Inf when empty),
// or nan = true if one of them is NaN.
func minMaxNaN(vals []float32) (lo, hi float64, nan bool) { return minMaxNaNGo(vals) }
