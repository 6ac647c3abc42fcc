//go:build !amd64 || (purego && !goexperiment.simd)

package graph

func cgMatVec(q, p [][cgBlock]float64, indptr []int, indices []int32, ct []float64, pq *[cgBlock]float64) {
	cgMatVecGeneric(q, p, indptr, indices, ct, pq)
}

func cgUpdate(x, r, p, q [][cgBlock]float64, a, rrn *[cgBlock]float64) {
	cgUpdateGeneric(x, r, p, q, a, rrn)
}

func cgDirection(p, r [][cgBlock]float64, beta *[cgBlock]float64) { cgDirectionGeneric(p, r, beta) }
