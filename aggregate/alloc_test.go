package aggregate

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestSteadyStateAllocs checks that after a warm-up call Forward and
// Backward allocate nothing — every aggregation but sum, which uses
// tensor.SpMM. MemStats counts the whole process, and the runtime itself
// allocates now and then (the scavenger's timers; a semaphore waiter when
// its per-P cache was emptied by a collection), so one stray allocation in
// five calls is tolerated: any per-call allocation shows as ≥ 5.
func TestSteadyStateAllocs(t *testing.T) {
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		steadyStateAllocs(t, procs, 1)
		runtime.GOMAXPROCS(prev)
	}
}

func steadyStateAllocs(t *testing.T, procs int, tolerated uint64) {
	rng := rand.New(rand.NewPCG(9, 9))
	a := randGraph(rng, 300, 40)
	x, g := randX(rng, 300, 32), randX(rng, 300, 32)
	for _, name := range Names() {
		if name == "sum" {
			continue
		}
		agg, err := New(name, Options{K: 32, Temperature: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		out := tensor.NewDense(a.Rows, x.Cols)
		gx := tensor.NewDense(x.Rows, x.Cols)
		gv := make([]float32, a.Nnz())
		step := func() {
			st := agg.Forward(a, x, out)
			agg.Backward(st, g, gx, gv)
		}
		step()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 5 {
			step()
		}
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; n > tolerated {
			t.Errorf("%s, GOMAXPROCS %d: %d allocations in 5 steady-state forward+backward calls", name, procs, n)
		}
	}
}
