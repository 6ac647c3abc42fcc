//go:build amd64 && !purego && !goexperiment.simd

package tensor

//go:noescape
func reluDropoutAVX2(o, x, b *float32, n int, h *[4]uint64, thr int32, scale float32)

//go:noescape
func reluDropoutBackAVX2(rd, gd, od *float32, rows, c int, scale float32, acc *float64) int

// reluDropoutVec runs ReLUDropoutRow's leading multiple of 16 elements in
// assembly and returns how many it did.
func reluDropoutVec(o, x, b []float32, h uint64, thr int32, scale float32) int {
	n := len(o) &^ 15
	if !useAVX2 || n == 0 {
		return 0
	}
	_, _ = x[n-1], b[n-1]
	g := uint64(dropGamma)
	hs := [4]uint64{h, h + g, h + 2*g, h + 3*g}
	reluDropoutAVX2(&o[0], &x[0], &b[0], n, &hs, thr, scale)
	return n
}

// reluDropoutBackVec runs ReLUDropoutBackRows in assembly for rows whose
// width is a multiple of 8, up to the first row with a positive NaN output.
func reluDropoutBackVec(r, g, o []float32, rows, c int, scale float32, acc []float64) int {
	if !useAVX2 || c%8 != 0 || rows == 0 {
		return 0
	}
	_, _, _, _ = r[rows*c-1], g[rows*c-1], o[rows*c-1], acc[c-1]
	return reluDropoutBackAVX2(&r[0], &g[0], &o[0], rows, c, scale, &acc[0])
}
