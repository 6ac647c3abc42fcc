//go:build !amd64.v3

package linalg

// fusedBuild: see fused_v3_test.go.
const fusedBuild = false
