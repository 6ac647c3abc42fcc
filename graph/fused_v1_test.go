//go:build !amd64.v3

package graph

// fusedBuild: see fused_v3_test.go.
const fusedBuild = false
