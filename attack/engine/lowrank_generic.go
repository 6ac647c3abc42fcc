//go:build !amd64 || (purego && !goexperiment.simd)

package engine

func tile(out *[tileRows * tileCols]float32, k, panel []float32, r2 int) {
	tileGeneric(out, k, panel, r2)
}

// tileAVX2 reports whether tile has a vector kernel (never here).
const tileAVX2 = false
