package tensor

import "math"

// ReLU with dropout, the hot layer of GCN's training epoch (autograd's
// BiasActDropout with ReLU). Both kernels do exactly the scalar loops'
// operations — one float32 addition, a sign mask and one multiplication
// forward, one multiplication and a sign mask backward, float64 column sums
// — none of which a vector form can round differently, so every build gives
// the same bits; the AVX2 kernels (dropout_amd64.s) hash four quads at a
// time with 32-bit multiplies.

// dropGamma is splitmix64's increment (the golden ratio in 64 bits).
const dropGamma = 0x9e3779b97f4a7c15

// DropHash is splitmix64(seed + q·γ): the hash whose four 16-bit fields
// (the low ones first) are the dropout coins of elements 4q to 4q+3 under
// seed.
func DropHash(seed uint64, q int) uint64 { return splitmix64(seed + uint64(q)*dropGamma) }

func splitmix64(z uint64) uint64 {
	z += dropGamma
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// DropKeep returns the dropout factor of the 16-bit coin in h's low bits:
// scale where the coin is at least thr (the element is kept), else 0,
// without a branch (the sign of thr−1−coin selects scale's bits).
func DropKeep(h uint64, thr int32, scale float32) float32 {
	return math.Float32frombits(math.Float32bits(scale) & uint32((thr-1-int32(h&0xffff))>>31))
}

// ReLU returns max(v, 0) by the sign bit (−0, negatives and negative NaNs
// to +0; positive NaNs stay), branch-free.
func ReLU(v float32) float32 {
	return math.Float32frombits(math.Float32bits(v) & uint32(int32(^math.Float32bits(v))>>31))
}

// ReLUDropoutRow writes o[e] = ReLU(x[e] + b[e]) · DropKeep(coin of element
// q·4 + e) for len(o) a multiple of 4, where element 4(q+i)+l's coin is
// field l of DropHash(seed, q+i).
func ReLUDropoutRow(o, x, b []float32, seed uint64, q int, thr int32, scale float32) {
	if len(o)%4 != 0 {
		panic("tensor.ReLUDropoutRow: length not a multiple of 4")
	}
	x, b = x[:len(o)], b[:len(o)]
	h := seed + uint64(q)*dropGamma
	j := reluDropoutVec(o, x, b, h, thr, scale)
	h += uint64(j/4) * dropGamma
	for ; j+4 <= len(o); j += 4 {
		hq := splitmix64(h)
		h += dropGamma
		x4, b4, o4 := x[j:j+4:j+4], b[j:j+4:j+4], o[j:j+4:j+4]
		o4[0] = ReLU(x4[0]+b4[0]) * DropKeep(hq, thr, scale)
		o4[1] = ReLU(x4[1]+b4[1]) * DropKeep(hq>>16, thr, scale)
		o4[2] = ReLU(x4[2]+b4[2]) * DropKeep(hq>>32, thr, scale)
		o4[3] = ReLU(x4[3]+b4[3]) * DropKeep(hq>>48, thr, scale)
	}
}

// ReLUDropoutBackRows is the backward of ReLUDropoutRow over whole rows of
// width c, given the output o: r = g·scale where o is positive and not NaN
// (there the mask is scale and ReLU' is 1), r = +0 where o is +0 or has its
// sign bit set (the bits of g·mask under the mask of o's sign test), and
// acc[j] += float64(r[i·c+j]) row after row. It stops before the first row
// with a positive NaN output, whose mask the output does not tell, and
// returns the number of rows done.
func ReLUDropoutBackRows(r, g, o []float32, c int, scale float32, acc []float64) int {
	if c <= 0 {
		return 0
	}
	rows := len(g) / c
	r, o, acc = r[:rows*c], o[:rows*c], acc[:c]
	done := reluDropoutBackVec(r, g, o, rows, c, scale, acc)
	for i := done; i < rows; i++ {
		rr, gr, or := r[i*c:(i+1)*c], g[i*c:(i+1)*c], o[i*c:(i+1)*c]
		for _, v := range or {
			if b := math.Float32bits(v); b > 0x7f800000 && b < 0x80000000 {
				return i
			}
		}
		for j, v := range gr {
			keep := uint32(int32(math.Float32bits(or[j])-1)>>31) ^ 0xffffffff
			rr[j] = math.Float32frombits(math.Float32bits(v*scale) & keep)
			acc[j] += float64(rr[j])
		}
	}
	return rows
}
