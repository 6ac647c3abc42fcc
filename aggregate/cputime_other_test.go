//go:build !unix

package aggregate

func cpuSeconds() float64 { return 0 }
