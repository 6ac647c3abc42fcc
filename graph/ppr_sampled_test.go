package graph_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/tensor"
)

// perturbed returns cora_ml with each undirected edge deleted with
// probability pDel and each absent pair added with probability pAdd (the
// graphs randomized smoothing diffuses), from a fixed seed.
func perturbed(b testing.TB, pAdd, pDel float64) *tensor.CSR {
	a := dataset(b, "cora_ml").Adj
	rng := rand.New(rand.NewPCG(1, 2))
	n := a.Rows
	var es []tensor.Entry
	add := func(i, j int) {
		es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: 1}, tensor.Entry{Row: int32(j), Col: int32(i), Val: 1})
	}
	for i := range n {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			if j := int(a.Indices[k]); j > i && rng.Float64() >= pDel {
				add(i, j)
			}
		}
	}
	for range int(pAdd * float64(n) * float64(n-1) / 2) {
		i, j := rng.IntN(n), rng.IntN(n)
		if _, ok := a.Find(i, j); !ok && i != j {
			add(i, j)
		}
	}
	out, err := tensor.FromCOO(n, n, es)
	if err != nil {
		b.Fatal(err)
	}
	for k := range out.Values {
		out.Values[k] = 1 // duplicates summed by FromCOO
	}
	return out
}

// BenchmarkApproxGDCSampled is the per-sample diffusion of randomized
// smoothing: push PPR on a cora_ml graph with 40% of the edges deleted (del)
// or ~3,950 random edges added (add). cpu-ms/op is the process CPU time
// per diffusion (all goroutines), the number to compare on a loaded machine.
func BenchmarkApproxGDCSampled(b *testing.B) {
	for _, st := range []struct {
		name       string
		pAdd, pDel float64
	}{{"del", 0, 0.4}, {"add", 0.001, 0}} {
		a := perturbed(b, st.pAdd, st.pDel)
		for _, eps := range []float64{1e-4, 3e-4, 1e-3} {
			b.Run(fmt.Sprintf("%s/eps=%g", st.name, eps), func(b *testing.B) {
				cpu0 := processCPU()
				for b.Loop() {
					if _, err := graph.ApproxGDC(a, 0.15, 64, eps); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// processCPU is the process's CPU time so far (0 where not reported).
func processCPU() time.Duration {
	c, _ := cputime.Process()
	return c
}
