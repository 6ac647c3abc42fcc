//go:build !(goexperiment.simd && amd64)

package aggregate

import "github.com/rgnn/rgnn/tensor"

// gemm computes out = a·b (out m×n, a m×k, b k×n, row-major).
func gemm(out, a, b []float32, m, k, n int) { tensor.GemmSmall(out, a, b, m, k, n, false) }

// gemmDirect has no portable fast path.
func gemmDirect(out []float32, ldc int, a, b []float32, m, k, n, cols int) bool { return false }
