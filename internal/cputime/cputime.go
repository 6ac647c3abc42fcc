// Package cputime reads the CPU time the process has used, for benchmarks
// that must stay meaningful when other processes compete for the cores:
// wall time then measures the competition, CPU time still measures the work.
package cputime

import "time"

// Process returns the user + system CPU time of all the process's threads so
// far, and false where the platform does not report it.
func Process() (time.Duration, bool) { return process() }
