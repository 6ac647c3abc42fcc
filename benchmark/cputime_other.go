//go:build !unix

package benchmark

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
