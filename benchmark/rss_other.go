//go:build !unix

package benchmark

// peakRSS is 0 where the platform does not report it.
func peakRSS() int64 { return 0 }
