//go:build !amd64 || (purego && !goexperiment.simd)

package tensor

// axpy computes y += alpha·x.
func axpy(y, x []float32, alpha float32) { axpyGeneric(y, x, alpha) }

func axpyDiff(y, z, a, b []float32, c float32) { axpyDiffGeneric(y, z, a, b, c) }

// dot returns Σ x_i y_i.
func dot(x, y []float32) float32 { return dotGeneric(x, y) }

// SIMD reports which vector path the kernels use.
const SIMD = "none (portable Go)"

// spmmRows has no specialised path in the portable build.
func spmmRows(dst *Dense, a *CSR, x *Dense, acc bool, lo, hi int) bool { return false }

// adamVec has no vector path in the portable build.
func adamVec(w, g, m, v []float32, c AdamCoeffs) int { return 0 }

func sqDist(x, y []float32) float32 { return sqDistGeneric(x, y) }

func gemmSmallVec(out, a, b []float32, m, k, n int, acc bool) bool { return false }

func gramToDistVec(g, nb []float32, na float32) int { return 0 }

func pairCoefVec(dst, dist, w, g []float32, ga, wa float32) (int, float32) { return 0, 0 }

// PrefetchRows is a hint the portable build does not give (it changes no
// value).
func PrefetchRows(data []float32, stride, width int, idx []int32) {}

// gemm64Vec and gemmT64Vec have no vector path in the portable build.
func gemm64Vec(out []float64, ldo int, a []float64, lda int, b []float64, ldb, rows, k, w int) bool {
	return false
}

func gemmT64Vec(c []float64, ldc int, a []float64, lda int, x []float64, ldx, rows, k, w int) bool {
	return false
}

// rot64Vec has no vector path in the portable build.
func rot64Vec(x, y []float64, c, s float64) int { return 0 }

// gemmLdVec has no strided kernel in this build (GemmLd reports false).
func gemmLdVec(out []float32, ldc int, a, b []float32, m, k, n int) bool { return false }

// gemmLd6Vec has no six-row kernel in this build (GemmLd6 reports false).
func gemmLd6Vec(out []float32, ldc int, a []float32, lda int, b []float32, ldb, m, k, n int) bool {
	return false
}
