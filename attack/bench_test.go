package attack

import (
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// benchEngine is a GCNEngine of cora_ml's size with random factors.
func benchEngine(n, c, h int) *GCNEngine {
	rng := rand.New(rand.NewPCG(1, 2))
	e := &GCNEngine{n: n, c: c, h: h, mp: tensor.NewDense(n, c+h), np: tensor.NewDense(n, c+h), gamma: make([]float32, n)}
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

// BenchmarkPRBCDCora is 10 PR-BCD epochs (block 1e6) against the reference
// GCN on cora_ml, ε = 0.1.
func BenchmarkPRBCDCora(b *testing.B) {
	p := loadCora(b, 0)
	gcn := pretrained(b, "gcn", "Vanilla_GCN", 1, 0, p)
	for b.Loop() {
		if _, err := Run(b.Context(), Config{Attack: "prbcd", Epsilons: []float64{0.1}, Seed: 0, Surrogate: gcn,
			Options: Options{Epochs: 10}}, p); err != nil {
			b.Fatal(err)
		}
	}
}
