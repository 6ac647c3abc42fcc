package linalg

// The three vector loops of one block-CG iteration for (I − C)·x = b, over
// CGBlock interleaved right-hand sides. The portable versions below are the
// reference; cg_amd64.s (the default build) and cg_simd.go
// (GOEXPERIMENT=simd) have AVX versions that perform the same
// multiplications and additions in the same order per source (no fused
// multiply-add), so every build gives the same bits.

// CGBlock is the number of systems the block-CG kernels iterate together:
// row i of a block [][CGBlock]float64 holds entry i of every system's
// vector, so that each nonzero of C is loaded once per block instead of once
// per system.
const CGBlock = 32

// CGMatVec computes q = (I − C)·p for the sparse C given by (indptr,
// indices, c) in CSR form (row i's entries are indices[indptr[i]:indptr[i+1]]
// with values c[indptr[i]:indptr[i+1]], summed in that order) and
// pq = Σ_i p_i ⊙ q_i, the per-system inner products pᵀq. len(q) is the
// number of rows; p must have every column C refers to.
func CGMatVec(q, p [][CGBlock]float64, indptr []int, indices []int32, c []float64, pq *[CGBlock]float64) {
	cgMatVec(q, p, indptr, indices, c, pq)
}

// CGUpdate computes x += a⊙p, r −= a⊙q (a per system) and
// rrn = Σ_i r_i ⊙ r_i, the new squared residual norms.
func CGUpdate(x, r, p, q [][CGBlock]float64, a, rrn *[CGBlock]float64) { cgUpdate(x, r, p, q, a, rrn) }

// CGDirection computes the next search directions p = r + β⊙p.
func CGDirection(p, r [][CGBlock]float64, beta *[CGBlock]float64) { cgDirection(p, r, beta) }

// cgMatVecGeneric is the portable CGMatVec.
func cgMatVecGeneric(q, p [][CGBlock]float64, indptr []int, indices []int32, ct []float64, pq *[CGBlock]float64) {
	*pq = [CGBlock]float64{}
	for i := range q {
		qi := &q[i]
		*qi = p[i]
		for e := indptr[i]; e < indptr[i+1]; e++ {
			c := ct[e]
			pj := &p[indices[e]]
			for b := range CGBlock {
				qi[b] -= c * pj[b]
			}
		}
		pi := &p[i]
		for b := range CGBlock {
			pq[b] += pi[b] * qi[b]
		}
	}
}

// cgUpdateGeneric is the portable CGUpdate.
func cgUpdateGeneric(x, r, p, q [][CGBlock]float64, a, rrn *[CGBlock]float64) {
	*rrn = [CGBlock]float64{}
	for i := range x {
		xi, ri, pi, qi := &x[i], &r[i], &p[i], &q[i]
		for b := range CGBlock {
			xi[b] += a[b] * pi[b]
			ri[b] -= a[b] * qi[b]
			rrn[b] += ri[b] * ri[b]
		}
	}
}

// cgDirectionGeneric is the portable CGDirection.
func cgDirectionGeneric(p, r [][CGBlock]float64, beta *[CGBlock]float64) {
	for i := range p {
		pi, ri := &p[i], &r[i]
		for b := range CGBlock {
			pi[b] = ri[b] + beta[b]*pi[b]
		}
	}
}
