//go:build amd64.v3

package linalg

// fusedBuild: GOAMD64=v3 or higher lets the compiler fuse a·b + c in
// scalar Go code (here and in gonum) into FMA instructions, which changes
// last bits against the default GOAMD64=v1.
const fusedBuild = true
