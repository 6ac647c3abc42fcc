//go:build amd64 && !purego

package tensor

import (
	"math"

	"golang.org/x/sys/cpu"
)

// The constants of math.Exp's amd64 assembly (its FMA path), each
// replicated for the four lanes; the last row holds the exponent bias as
// int64 bits.
var expConsts = func() (c [17][4]float64) {
	for i, v := range []float64{
		1.4426950408889634073599246810018920,                  // log2(e)
		0.69314718055966295651160180568695068359375,           // ln 2, upper part
		0.28235290563031577122588448175013436025525412068e-12, // ln 2, lower part
		0.0625,
		2.4801587301587301587e-5, // 1/8!
		1.9841269841269841270e-4, // 1/7!
		1.3888888888888888889e-3, // 1/6!
		8.3333333333333333333e-3, // 1/5!
		4.1666666666666666667e-2, // 1/4!
		1.6666666666666666667e-1, // 1/3!
		0.5,
		1.0,
		2.0,
		7.09782712893384e+02, // the largest x whose exp is finite
		-1022,                // the smallest exponent of a normal result
		1023,                 // the largest exponent
		math.Float64frombits(1023),
	} {
		c[i] = [4]float64{v, v, v, v}
	}
	return
}()

//go:noescape
func expAVX2(dst, x *float64, n int, c *[17][4]float64) int

// useExpVec: the vector path needs AVX2 and FMA (math.Exp then takes its
// FMA path too), and must reproduce math.Exp on a few values at start-up.
var useExpVec = cpu.X86.HasAVX2 && cpu.X86.HasFMA && expSelfCheck()

func expSelfCheck() bool {
	x := []float64{-700.5, -1, -1e-9, 0, 0.5, 3.25, 88.7, 700.1}
	dst := make([]float64, len(x))
	if expAVX2(&dst[0], &x[0], len(x), &expConsts) != len(x) {
		return false
	}
	for i, v := range x {
		if math.Float64bits(dst[i]) != math.Float64bits(math.Exp(v)) {
			return false
		}
	}
	return true
}

// expVec computes exp of the leading groups of four of x (len ≥ 4) into
// dst, stopping at the first group with a lane outside the normal range;
// it returns how many elements it did.
func expVec(dst, x []float64) int {
	if !useExpVec {
		return 0
	}
	return expAVX2(&dst[0], &x[0], len(dst)&^3, &expConsts)
}
