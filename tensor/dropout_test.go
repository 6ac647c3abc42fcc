package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestReLUDropoutKernels checks the kernels (assembly in the default build)
// against their scalar loops, bit for bit, for every length up to 70 and
// inputs and gradients with ±0, ±Inf, NaNs of both signs and subnormals.
func TestReLUDropoutKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), -float32(math.NaN()), 1e-40, -1e-40, 3e38, -3e38}
	fill := func(v []float32) {
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			if rng.IntN(6) == 0 {
				v[i] = specials[rng.IntN(len(specials))]
			}
		}
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	for _, p := range []float64{0.5, 0.1, 0.9} {
		scale := float32(1 / (1 - p))
		thr := int32(math.Round(p * 65536))
		for n := 4; n <= 72; n += 4 {
			x, b, o := make([]float32, n), make([]float32, n), make([]float32, n)
			fill(x)
			fill(b)
			seed, q := rng.Uint64(), rng.IntN(1000)
			ReLUDropoutRow(o, x, b, seed, q, thr, scale)
			for e := range o {
				m := DropKeep(DropHash(seed, q+e/4)>>(16*uint(e%4)), thr, scale)
				want := ReLU(x[e]+b[e]) * m
				if !same(o[e], want) {
					t.Fatalf("p %g n %d: o[%d] = %v, want %v", p, n, e, o[e], want)
				}
			}
		}
		for _, c := range []int{8, 16, 64, 12, 7} {
			for _, rows := range []int{1, 5, 33} {
				g, o, r := make([]float32, rows*c), make([]float32, rows*c), make([]float32, rows*c)
				fill(g)
				for i := range o {
					o[i] = ReLU(float32(rng.NormFloat64())) * scale
					if rng.IntN(50) == 0 {
						o[i] = specials[rng.IntN(len(specials))]
					}
				}
				acc := make([]float64, c)
				for i := range acc {
					acc[i] = rng.Float64()
				}
				want := append([]float64(nil), acc...)
				done := ReLUDropoutBackRows(r, g, o, c, scale, acc)
				stop := rows
			scan:
				for i := 0; i < rows; i++ {
					for _, v := range o[i*c : (i+1)*c] {
						if bv := math.Float32bits(v); bv > 0x7f800000 && bv < 0x80000000 {
							stop = i
							break scan
						}
					}
				}
				if done != stop {
					t.Fatalf("c %d rows %d: %d rows done, want %d", c, rows, done, stop)
				}
				for i := 0; i < done*c; i++ {
					keep := uint32(int32(math.Float32bits(o[i])-1)>>31) ^ 0xffffffff
					w := math.Float32frombits(math.Float32bits(g[i]*scale) & keep)
					if !same(r[i], w) {
						t.Fatalf("c %d rows %d: r[%d] = %v, want %v", c, rows, i, r[i], w)
					}
					want[i%c] += float64(w)
				}
				for j := range acc {
					if math.Float64bits(acc[j]) != math.Float64bits(want[j]) && !(math.IsNaN(acc[j]) && math.IsNaN(want[j])) {
						t.Fatalf("c %d rows %d: acc[%d] = %v, want %v", c, rows, j, acc[j], want[j])
					}
				}
			}
		}
	}
}
