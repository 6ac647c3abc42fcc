//go:build amd64 && !purego

package graph

import "unsafe"

// prefetch asks the CPU to bring the cache line at p into its caches
// (PREFETCHT0): a hint that neither faults nor changes any value.
//
//go:noescape
func prefetch(p unsafe.Pointer)

// prefetchNodes prefetches node[x] for every x in idx (one call per row
// instead of one per neighbour).
func prefetchNodes(node []pushNode, idx []int32) {
	if len(idx) > 0 {
		prefetchIndexed32(unsafe.Pointer(unsafe.SliceData(node)), &idx[0], len(idx))
	}
}

// prefetchIndexed32 prefetches base + 32·idx[i] for i < n.
//
//go:noescape
func prefetchIndexed32(base unsafe.Pointer, idx *int32, n int)

// pushNode must be 32 bytes for prefetchIndexed32's stride.
var _ [32 - unsafe.Sizeof(pushNode{})]byte
var _ [unsafe.Sizeof(pushNode{}) - 32]byte
