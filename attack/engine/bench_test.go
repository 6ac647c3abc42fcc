package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/tensor"
)

// benchEngine is a GCN of cora_ml's size with random factors.
func benchEngine(n, c, h int) *GCN {
	rng := rand.New(rand.NewPCG(1, 2))
	e := &GCN{n: n, c: c, h: h, mp: tensor.NewDense(n, c+h), np: tensor.NewDense(n, c+h), gamma: make([]float32, n)}
	for i := range e.mp.Data {
		e.mp.Data[i] = float32(rng.NormFloat64())
		e.np.Data[i] = float32(rng.NormFloat64())
	}
	e.pack()
	return e
}

// BenchmarkScanPairs is one all-pairs gradient of cora_ml's size (n = 2810,
// C = 7, h = 64): n²/2·2(C+h) ≈ 560M multiply-adds.
func BenchmarkScanPairs(b *testing.B) {
	e := benchEngine(2810, 7, 64)
	best := make([]float32, e.n)
	c0, _ := cputime.Process()
	defer func() {
		if c1, ok := cputime.Process(); ok {
			b.ReportMetric(float64(c1-c0)/1e6/float64(b.N), "cpu-ms/op")
		}
	}()
	for b.Loop() {
		e.ScanPairs(func(u int, s []float32) {
			m := float32(-1e30)
			for _, x := range s {
				m = max(m, x)
			}
			best[u] = m
		})
	}
}
