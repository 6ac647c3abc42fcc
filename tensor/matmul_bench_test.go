package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/internal/cputime"
)

// denseProductShapes are the dense products of a GCN layer stack as the
// models call them: the hidden activations h (n×hidden, 3/4 zeros after
// ReLU and dropout), the last layer's weight w (hidden×classes) and the
// gradient g of its output (n×classes).
var denseProductShapes = []struct {
	name               string
	n, hidden, classes int
	zeroFrac           float64
}{
	{name: "arxiv", n: 169343, hidden: 64, classes: 40, zeroFrac: 0.75},
	{name: "products", n: 100000, hidden: 64, classes: 47, zeroFrac: 0.75},
	{name: "cora_ml", n: 2810, hidden: 64, classes: 7, zeroFrac: 0.75},
	{name: "pprgo", n: 10240, hidden: 32, classes: 40, zeroFrac: 0.5},
}

// BenchmarkDenseProducts times MatMul (h·w, the forward), MatMulBT (g·wᵀ,
// the gradient of h) and MatMulAT (hᵀ·g, the weight gradient) at the
// shapes of denseProductShapes, reporting process CPU time per call
// (cpu-ms/op), which other load on the machine does not inflate.
//
//	go test ./tensor -run '^$' -bench DenseProducts -benchtime 20x -count 3
func BenchmarkDenseProducts(b *testing.B) {
	for _, s := range denseProductShapes {
		rng := rand.New(rand.NewPCG(7, uint64(s.n)))
		h := randDense(rng, s.n, s.hidden)
		for i := range h.Data {
			if rng.Float64() < s.zeroFrac {
				h.Data[i] = 0
			}
		}
		w := randDense(rng, s.hidden, s.classes)
		g := randDense(rng, s.n, s.classes)
		out := NewDense(s.n, s.classes)
		gh := NewDense(s.n, s.hidden)
		gw := NewDense(s.hidden, s.classes)
		name := fmt.Sprintf("%s_%dx%dx%d", s.name, s.n, s.hidden, s.classes)
		b.Run(name+"/MatMul", func(b *testing.B) {
			benchCPU(b, func() { MatMul(out, h, w, false) })
		})
		b.Run(name+"/MatMulBT", func(b *testing.B) {
			benchCPU(b, func() { MatMulBT(gh, g, w, true) })
		})
		b.Run(name+"/MatMulAT", func(b *testing.B) {
			benchCPU(b, func() { MatMulAT(gw, h, g, true) })
		})
	}
}

// benchCPU runs f b.N times and reports the process CPU time per call.
func benchCPU(b *testing.B, f func()) {
	c0, _ := cputime.Process()
	for b.Loop() {
		f()
	}
	c1, _ := cputime.Process()
	if b.N > 0 && c1 > c0 {
		b.ReportMetric(float64((c1-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	}
}
