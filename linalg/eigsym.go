package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/rgnn/rgnn/tensor"
)

// symEig returns every eigenvalue of the symmetric k×k matrix whose upper
// triangle is h[i*ld+j] (i ≤ j) and the eigenvectors as the ROWS of zt
// (k×k: row t is the unit eigenvector of vals[t]); ok is false if the QL
// iteration did not converge. Householder tridiagonalisation A = Q·T·Qᵀ
// (LAPACK's dsytrd and dorgtr, from gonum), then the implicit QL iteration
// of EISPACK's tql2 on T with its plane rotations applied to the rows of
// Zᵀ = Qᵀ (tensor.Rot64 on two contiguous rows, 4 lanes wide) instead of
// to the columns of Z — which is what gonum's EigenSym does (dsteqr),
// stride-k access that made it 40% of an SVD's time.
func symEig(h []float64, ld, k int) (vals, zt []float64, ok bool) {
	a := make([]float64, k*k)
	for i := 0; i < k; i++ {
		copy(a[i*k+i:(i+1)*k], h[i*ld+i:i*ld+k])
	}
	var impl gonum.Implementation
	d, e, tau := make([]float64, k), make([]float64, k), make([]float64, max(1, k-1))
	work := []float64{0}
	impl.Dsytrd(blas.Upper, k, a, k, d, e, tau, work, -1)
	lwork := int(work[0])
	impl.Dorgtr(blas.Upper, k, a, k, tau, work, -1)
	lwork = max(lwork, int(work[0]), 1)
	work = make([]float64, lwork)
	impl.Dsytrd(blas.Upper, k, a, k, d, e, tau, work, lwork)
	impl.Dorgtr(blas.Upper, k, a, k, tau, work, lwork)
	zt = make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			zt[j*k+i] = a[i*k+j]
		}
	}
	if !tql2(d, e, zt, k) {
		return nil, nil, false
	}
	return d, zt, true
}

// tql2 is EISPACK's tql2 (as in JAMA) for the symmetric tridiagonal matrix
// with diagonal d and off-diagonal e[0:n-1] (e[n-1] is scratch): on return
// d holds the eigenvalues (unsorted) and the rows of zt have been rotated
// into the eigenvectors (zt = Zᵀ). False if an eigenvalue needs more than
// 60 iterations (NaN input).
func tql2(d, e, zt []float64, n int) bool {
	if n == 0 {
		return true
	}
	e[n-1] = 0
	var f, tst1 float64
	const eps = 0x1p-52
	for l := 0; l < n; l++ {
		tst1 = max(tst1, math.Abs(d[l])+math.Abs(e[l]))
		m := l
		for m < n-1 && !(math.Abs(e[m]) <= eps*tst1) {
			m++
		}
		for iter := 0; m > l; iter++ {
			if iter == 60 {
				return false
			}
			// Implicit shift.
			g := d[l]
			p := (d[l+1] - g) / (2 * e[l])
			r := math.Hypot(p, 1)
			if p < 0 {
				r = -r
			}
			d[l] = e[l] / (p + r)
			d[l+1] = e[l] * (p + r)
			dl1 := d[l+1]
			h := g - d[l]
			for i := l + 2; i < n; i++ {
				d[i] -= h
			}
			f += h
			// Implicit QL transformation.
			p = d[m]
			c, c2, c3 := 1.0, 1.0, 1.0
			el1 := e[l+1]
			var s, s2 float64
			for i := m - 1; i >= l; i-- {
				c3, c2, s2 = c2, c, s
				g = c * e[i]
				h = c * p
				r = math.Hypot(p, e[i])
				e[i+1] = s * r
				s = e[i] / r
				c = p / r
				p = c*d[i] - s*g
				d[i+1] = h + s*(c*g+s*d[i])
				tensor.Rot64(zt[i*n:(i+1)*n], zt[(i+1)*n:(i+2)*n], c, s)
			}
			p = -s * s2 * c3 * el1 * e[l] / dl1
			e[l] = s * p
			d[l] = c * p
			if math.Abs(e[l]) <= eps*tst1 {
				break
			}
		}
		d[l] += f
		e[l] = 0
	}
	return true
}
