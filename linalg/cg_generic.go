//go:build !amd64 || (purego && !goexperiment.simd)

package linalg

func cgMatVec(q, p [][CGBlock]float64, indptr []int, indices []int32, ct []float64, pq *[CGBlock]float64) {
	cgMatVecGeneric(q, p, indptr, indices, ct, pq)
}

func cgUpdate(x, r, p, q [][CGBlock]float64, a, rrn *[CGBlock]float64) {
	cgUpdateGeneric(x, r, p, q, a, rrn)
}

func cgDirection(p, r [][CGBlock]float64, beta *[CGBlock]float64) { cgDirectionGeneric(p, r, beta) }

// cgMatVecChecked is cgMatVec (Go's own bounds checks make it safe).
func cgMatVecChecked(q, p [][CGBlock]float64, indptr []int, indices []int32, ct []float64, pq *[CGBlock]float64) {
	cgMatVec(q, p, indptr, indices, ct, pq)
}
