//go:build amd64 && !purego

package graph

import "unsafe"

// prefetch asks the CPU to bring the cache line at p into its caches
// (PREFETCHT0): a hint that neither faults nor changes any value.
//
//go:noescape
func prefetch(p unsafe.Pointer)
