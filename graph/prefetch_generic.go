//go:build !amd64 || purego

package graph

import "unsafe"

// prefetch is a no-op where the build has no prefetch instruction.
func prefetch(p unsafe.Pointer) {}

// prefetchNodes is a no-op where the build has no prefetch instruction.
func prefetchNodes(node []pushNode, idx []int32) {}
