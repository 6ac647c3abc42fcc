//go:build unix

package benchmark

import (
	"runtime"
	"syscall"
)

// peakRSS is the process's peak resident memory in bytes (getrusage's
// maxrss: kilobytes on Linux, bytes on Darwin); 0 if unknown.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
