//go:build amd64 && !purego && !goexperiment.simd

package linalg

import (
	"fmt"

	"golang.org/x/sys/cpu"
)

// The default build's block-CG kernels in Go assembly (cg_amd64.s): 4-wide
// float64 AVX with the portable kernels' multiplications and additions in
// their order (no fused multiply-adds), so every build gives the same bits.

// cgAVX selects the assembly kernels (AVX2 machines).
var cgAVX = cpu.X86.HasAVX2

//go:noescape
func cgMatVecAVX(q, p *[CGBlock]float64, n int, indptr *int, indices *int32, ct *float64, pq *[CGBlock]float64, end int)

//go:noescape
func cgUpdateAVX(x, r, p, q *[CGBlock]float64, n int, a, rrn *[CGBlock]float64)

//go:noescape
func cgDirectionAVX(p, r *[CGBlock]float64, n int, beta *[CGBlock]float64)

func cgMatVec(q, p [][CGBlock]float64, indptr []int, indices []int32, ct []float64, pq *[CGBlock]float64) {
	n := len(q)
	if !cgAVX || n == 0 {
		cgMatVecGeneric(q, p, indptr, indices, ct, pq)
		return
	}
	if len(p) < n || len(indptr) < n+1 || indptr[n] > len(indices) || indptr[n] > len(ct) {
		panic(fmt.Sprintf("linalg.CGMatVec: %d rows, %d vectors, %d row pointers", n, len(p), len(indptr)))
	}
	for _, j := range indices[indptr[0]:indptr[n]] {
		_ = p[j]
	}
	cgMatVecChecked(q, p, indptr, indices, ct, pq)
}

// cgMatVecChecked is cgMatVec for operands already checked: len(p) ≥
// len(q), indptr of len(q)+1 nondecreasing pointers within indices and ct,
// every index within p.
func cgMatVecChecked(q, p [][CGBlock]float64, indptr []int, indices []int32, ct []float64, pq *[CGBlock]float64) {
	n := len(q)
	if !cgAVX || n == 0 {
		cgMatVecGeneric(q, p, indptr, indices, ct, pq)
		return
	}
	*pq = [CGBlock]float64{}
	var ct0 float64
	var ix0 int32
	pct, pix := &ct0, &ix0
	if len(ct) > 0 && len(indices) > 0 {
		pct, pix = &ct[0], &indices[0]
	}
	cgMatVecAVX(&q[0], &p[0], n, &indptr[0], pix, pct, pq, indptr[n])
}

func cgUpdate(x, r, p, q [][CGBlock]float64, a, rrn *[CGBlock]float64) {
	n := len(x)
	if !cgAVX || n == 0 {
		cgUpdateGeneric(x, r, p, q, a, rrn)
		return
	}
	_, _, _ = r[n-1], p[n-1], q[n-1]
	cgUpdateAVX(&x[0], &r[0], &p[0], &q[0], n, a, rrn)
}

func cgDirection(p, r [][CGBlock]float64, beta *[CGBlock]float64) {
	n := len(p)
	if !cgAVX || n == 0 {
		cgDirectionGeneric(p, r, beta)
		return
	}
	_ = r[n-1]
	cgDirectionAVX(&p[0], &r[0], n, beta)
}
