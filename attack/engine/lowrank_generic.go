//go:build !(goexperiment.simd && amd64)

package engine

func tile(out *[tileRows * tileCols]float32, k, panel []float32, r2 int) {
	tileGeneric(out, k, panel, r2)
}
