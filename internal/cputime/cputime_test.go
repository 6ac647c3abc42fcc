package cputime

import "testing"

func TestProcessAdvances(t *testing.T) {
	c0, ok := Process()
	if !ok {
		t.Skip("CPU time not reported on this platform")
	}
	x := 0.0
	for i := range 20_000_000 {
		x += float64(i & 7)
	}
	c1, _ := Process()
	if c1 <= c0 || x == 0 {
		t.Fatalf("CPU time did not advance: %v → %v", c0, c1)
	}
}
