package tensor

import "math"

// ExpVec sets dst[i] = math.Exp(x[i]) for i < len(dst), with math.Exp's
// bits. On amd64 with AVX2 and FMA (where math.Exp itself runs its FMA
// assembly) four lanes run at a time through the same sequence of
// operations (exp_amd64.s); a group with a lane math.Exp treats specially
// (not finite, overflow, a subnormal or zero result) and the tail go
// through math.Exp. dst and x may be the same slice.
func ExpVec(dst, x []float64) {
	x = x[:len(dst)]
	for i := 0; i < len(dst); {
		if rest := len(dst) - i; rest >= 4 {
			i += expVec(dst[i:], x[i:])
		}
		for end := min(i+4, len(dst)); i < end; i++ {
			dst[i] = math.Exp(x[i])
		}
	}
}
