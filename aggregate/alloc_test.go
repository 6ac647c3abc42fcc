package aggregate

import (
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestSteadyStateAllocs checks that after a warm-up call Forward and
// Backward allocate nothing — every aggregation but sum, which uses
// tensor.SpMM. testing.AllocsPerRun runs on one goroutine (GOMAXPROCS 1)
// and averages over the runs, so a stray allocation of the runtime's own
// background work does not count, while any per-call allocation does. With
// the worker pool (GOMAXPROCS > 1) the only further allocations are the
// runtime's semaphore waiters in WaitGroup.Wait, now and then, when its
// per-P cache has run dry; the benchmarks show 0 allocs/op.
func TestSteadyStateAllocs(t *testing.T) {
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
			st := forwardForBackward(agg, a, x, out)
			agg.Backward(st, g, gx, gv)
		}
		step()
		if n := testing.AllocsPerRun(5, step); n > 0 {
			t.Errorf("%s: %v allocations per steady-state forward+backward", name, n)
		}
	}
}
