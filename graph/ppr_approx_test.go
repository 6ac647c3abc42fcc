package graph

import (
	"math"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestApproxGDCModes checks the push on a graph whose sources alternate
// between a big component (pushes reach more than n/8 nodes: dense mode)
// and tiny ones (sparse mode), so every worker switches modes many times,
// plus leaves whose rows are derived from their neighbour's push:
// every row must match the exact diffusion (all columns kept) to the push
// error, whatever GOMAXPROCS, with weighted edges and a self loop.
func TestApproxGDCModes(t *testing.T) {
	const n = 400
	var es []tensor.Entry
	add := func(i, j int, w float32) {
		es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: w}, tensor.Entry{Row: int32(j), Col: int32(i), Val: w})
	}
	// Even nodes: a 200-cycle with chords; odd nodes: 100 disjoint pairs.
	for k := 0; k < 200; k++ {
		add(2*k, 2*((k+1)%200), 1)
		if k%7 == 0 {
			add(2*k, 2*((k+37)%200), 2)
		}
	}
	for k := 0; k < 80; k++ {
		add(4*k+1, 4*k+3, 1)
	}
	// Odd nodes from 321: leaves hanging off the cycle (derived from
	// their root's push), some weighted, one with a self loop.
	for v := 321; v < n; v += 2 {
		add(v, 2*((v*7)%200), float32(1+v%3)/2)
	}
	es = append(es, tensor.Entry{Row: 5, Col: 5, Val: 1.5}, tensor.Entry{Row: 321, Col: 321, Val: 2}) // self loops
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := ExactGDC(a, 0.15, 0)
	if err != nil {
		t.Fatal(err)
	}
	ref := exact.ToDense()
	for _, procs := range []int{1, 2, 3} {
		func() {
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			ap, err := ApproxGDC(a, 0.15, 0, 1e-9)
			if err != nil {
				t.Fatal(err)
			}
			d := ap.ToDense()
			for u := range n {
				var l1 float64
				for v := range n {
					l1 += math.Abs(float64(d.At(u, v) - ref.At(u, v)))
				}
				if l1 > 1e-5 {
					t.Fatalf("GOMAXPROCS=%d row %d: L1 %g from exact", procs, u, l1)
				}
			}
		}()
	}
}
