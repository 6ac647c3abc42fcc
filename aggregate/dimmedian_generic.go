//go:build !amd64 || purego

package aggregate

import "github.com/rgnn/rgnn/tensor"

// medianPicksVec has no kernel in this build: medianPicks runs the portable
// selection.
func medianPicksVec(x *tensor.Dense, idx []int32, w []float32, target float64, lo int, pick []int32, ws *workspace) bool {
	return false
}
