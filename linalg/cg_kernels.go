package linalg

import (
	"fmt"
	"slices"
)

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

// CGOperator is the sparse C of CGMatVec, copied and checked once (row
// pointers nondecreasing from 0, every index in [0, cols)), so that
// MatVec, called every iteration, checks only the vectors' lengths.
type CGOperator struct {
	rows, cols int
	indptr     []int
	indices    []int32
	c          []float64
}

// NewCGOperator copies and checks C (rows×cols in CSR form, as CGMatVec
// takes it).
func NewCGOperator(rows, cols int, indptr []int, indices []int32, c []float64) (*CGOperator, error) {
	if rows < 0 || cols < 0 || len(indptr) != rows+1 || indptr[0] != 0 {
		return nil, fmt.Errorf("linalg.NewCGOperator: %d rows, %d row pointers", rows, len(indptr))
	}
	for i := range rows {
		if indptr[i+1] < indptr[i] {
			return nil, fmt.Errorf("linalg.NewCGOperator: row %d ends before it starts", i)
		}
	}
	nnz := indptr[rows]
	if len(indices) < nnz || len(c) < nnz {
		return nil, fmt.Errorf("linalg.NewCGOperator: %d entries, %d indices, %d values", nnz, len(indices), len(c))
	}
	for _, j := range indices[:nnz] {
		if j < 0 || int(j) >= cols {
			return nil, fmt.Errorf("linalg.NewCGOperator: column %d outside [0, %d)", j, cols)
		}
	}
	return &CGOperator{rows: rows, cols: cols, indptr: slices.Clone(indptr),
		indices: slices.Clone(indices[:nnz]), c: slices.Clone(c[:nnz])}, nil
}

// MatVec is CGMatVec with C = op: q = (I − C)·p and pq = Σ_i p_i ⊙ q_i,
// the same bits. len(q) must be op's rows and len(p) at least its columns.
func (op *CGOperator) MatVec(q, p [][CGBlock]float64, pq *[CGBlock]float64) {
	if len(q) != op.rows || len(p) < op.cols || len(p) < op.rows {
		panic(fmt.Sprintf("linalg.CGOperator.MatVec: %d×%d operator, %d and %d vectors", op.rows, op.cols, len(q), len(p)))
	}
	cgMatVecChecked(q, p, op.indptr, op.indices, op.c, pq)
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
