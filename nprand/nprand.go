// Package nprand reproduces numpy's legacy RandomState (MT19937 seeded with
// init_genrand, and its permutation/shuffle), so that data splits made by
// the reference implementation with np.random.seed(seed) are reproduced bit
// for bit. It is a plain value type with no global state.
package nprand

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// MT19937 is numpy's legacy Mersenne Twister state.
type MT19937 struct {
	mt  [n]uint32
	idx int
}

// New seeds the generator like np.random.seed(seed) (init_genrand).
func New(seed uint32) *MT19937 {
	r := &MT19937{idx: n}
	r.mt[0] = seed
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	return r
}

// Uint32 returns the next 32-bit output (genrand_int32).
func (r *MT19937) Uint32() uint32 {
	if r.idx >= n {
		for i := 0; i < n; i++ {
			y := (r.mt[i] & upperMask) | (r.mt[(i+1)%n] & lowerMask)
			v := r.mt[(i+m)%n] ^ (y >> 1)
			if y&1 != 0 {
				v ^= matrixA
			}
			r.mt[i] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Float64 returns a uniform number in [0, 1) with 53 random bits, like
// numpy's random_sample.
func (r *MT19937) Float64() float64 {
	a, b := r.Uint32()>>5, r.Uint32()>>6
	return (float64(a)*67108864 + float64(b)) / 9007199254740992
}

// Interval returns a uniform integer in [0, max] by masked rejection
// sampling (numpy's legacy rk_interval, for max < 2^32).
func (r *MT19937) Interval(max uint32) uint32 {
	if max == 0 {
		return 0
	}
	mask := max
	for s := uint(1); s <= 16; s <<= 1 {
		mask |= mask >> s
	}
	for {
		if v := r.Uint32() & mask; v <= max {
			return v
		}
	}
}

// Shuffle permutes a in place like RandomState.shuffle (Fisher–Yates from
// the end).
func (r *MT19937) Shuffle(a []int) {
	for i := len(a) - 1; i > 0; i-- {
		j := int(r.Interval(uint32(i)))
		a[i], a[j] = a[j], a[i]
	}
}

// Permutation returns a shuffled copy of a, like RandomState.permutation.
func (r *MT19937) Permutation(a []int) []int {
	out := append([]int(nil), a...)
	r.Shuffle(out)
	return out
}

// PermutationN returns a permutation of 0..k-1.
func (r *MT19937) PermutationN(k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = i
	}
	r.Shuffle(out)
	return out
}
