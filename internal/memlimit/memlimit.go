// Package memlimit gives the Go runtime a soft memory limit from the
// machine's memory when the user set none (GOMEMLIMIT).
//
// Go lets the heap grow to about twice the live data before it collects
// (GOGC = 100). For the large graphs rgnn handles that is a problem: a
// Products-sized attack holds some 15 GB live, and its heap would grow
// towards 30 GB on a 24 GB machine, which then swaps or thrashes instead
// of collecting. With a limit the collector runs harder as the heap
// approaches it and the process stays within the memory it has.
package memlimit

import (
	"bufio"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Fraction is the share of the available memory the limit allows: the rest
// is left to the page cache, the kernel and other processes.
const Fraction = 0.9

// Set applies the default limit unless GOMEMLIMIT is set, and returns the
// limit in bytes it applied (0: none, the user's or no memory size known).
func Set() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit := Default(readFile("/proc/meminfo"), readFile("/sys/fs/cgroup/memory.max"))
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit
}

// Available is the memory a process may use: the runtime's soft limit
// (GOMEMLIMIT, or what Set applied) when one is set, else Default for this
// machine; 0 when neither is known. Work is refused before it allocates
// more than this (estimates in package task).
func Available() int64 {
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		return l
	}
	return Default(readFile("/proc/meminfo"), readFile("/sys/fs/cgroup/memory.max"))
}

// Default is Fraction of the smaller of the machine's memory (MemTotal in
// the text of /proc/meminfo) and the cgroup's limit (the text of
// memory.max: a number of bytes or "max"); 0 when neither is known.
func Default(meminfo, cgroupMax string) int64 {
	var total int64
	sc := bufio.NewScanner(strings.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
				total = kb << 10
			}
		}
	}
	if v, err := strconv.ParseInt(strings.TrimSpace(cgroupMax), 10, 64); err == nil && v > 0 &&
		(total == 0 || v < total) {
		total = v
	}
	return int64(float64(total) * Fraction)
}

func readFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 1<<16))
	return string(b)
}
