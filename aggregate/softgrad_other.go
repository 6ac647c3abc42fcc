//go:build !amd64 || purego || goexperiment.simd

package aggregate

import "github.com/rgnn/rgnn/tensor"

// useFMA: the AVX2 row kernels of softgrad_amd64.go are the default
// build's only.
const useFMA = false

func gemmSubRows(g []float32, rows []int32, a []float32, lda int, b []float32, m, k, n int) int {
	return 0
}

func dotRows(out, x []float32, ldx int, y []float32) bool { return false }

func rowSums8(out, x []float32, ldx, n int) bool { return false }

func transposeTiles8(dst []float32, ldd int, src []float32, lds, rows, cols int) bool { return false }

func pairCoefUpper(cm []float32, ld int, dist, w, gc []float32) bool { return false }

func gramToDistUpper(g []float32, nk int, nrm []float32) bool { return false }

func gemmLd64(out []float32, ldc int, a []float32, lda int, b []float32, ldb, m, k, n int) bool {
	return false
}

func copyStream(dst, src []float32) bool { return false }

func gatherRowsAVX2Vec(dst []float32, x *tensor.Dense, rows []int32) bool { return false }

func (ws *workspace) gramUpper(sel []int, a *tensor.CSR, x *tensor.Dense, dist []float32) bool {
	return false
}
