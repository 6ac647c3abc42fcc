package metattack

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// BenchmarkAssembleGEMM compares gonum's Sgemm with tiledGemm for the
// meta-gradient assembly (n = 1024, inner dimension 2323):
//
//	GOEXPERIMENT=simd go test -run xxx -bench AssembleGEMM -benchtime 2x ./attack/metattack
func BenchmarkAssembleGEMM(b *testing.B) {
	n, r := 1024, 2323
	rng := rand.New(rand.NewPCG(1, 1))
	lf, rf := make([]float32, r*n), make([]float32, r*n)
	for i := range lf {
		lf[i], rf[i] = rng.Float32(), rng.Float32()
	}
	out := make([]float32, n*n)
	b.Run("gonum", func(b *testing.B) {
		for range b.N {
			blas32.Gemm(blas.Trans, blas.NoTrans, 1, blas32.General{Rows: r, Cols: n, Stride: n, Data: lf},
				blas32.General{Rows: r, Cols: n, Stride: n, Data: rf}, 0, blas32.General{Rows: n, Cols: n, Stride: n, Data: out})
		}
	})
	b.Run("tiled", func(b *testing.B) {
		for range b.N {
			tiledGemm(out, lf, rf, n, r)
		}
	})
}
