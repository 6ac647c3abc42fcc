//go:build !amd64 || purego

package tensor

// expVec has no vector path in this build: ExpVec calls math.Exp.
func expVec(dst, x []float64) int { return 0 }
