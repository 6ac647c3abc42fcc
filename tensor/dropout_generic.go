//go:build !amd64 || purego || goexperiment.simd

package tensor

// The portable build and the archsimd build run the scalar loops of
// dropout.go (the same bits as the assembly).

func reluDropoutVec(o, x, b []float32, h uint64, thr int32, scale float32) int { return 0 }

func reluDropoutBackVec(r, g, o []float32, rows, c int, scale float32, acc []float64) int { return 0 }
