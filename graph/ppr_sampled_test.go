package graph_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
	return perturbedOf(b, "cora_ml", pAdd, pDel, 1)
}

// perturbedOf is perturbed for the dataset name, from the seed.
func perturbedOf(b testing.TB, name string, pAdd, pDel float64, seed uint64) *tensor.CSR {
	a := dataset(b, name).Adj
	rng := rand.New(rand.NewPCG(seed, 2))
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

// TestExactGDCGroupsSameBits: solving a sampled graph's connected
// components in groups (small ones packed together, each group over its own
// rows) gives the bits of the whole-graph solve, for the top-k rows and the
// dense S, on cora_ml and citeseer with 40% of the edges deleted (many
// components under k nodes, isolated nodes among them), with edges added
// too, at k = 64, at k above the smallest groups and at k = n, and with
// groups as small as one component each.
func TestExactGDCGroupsSameBits(t *testing.T) {
	for _, c := range []struct {
		name       string
		pAdd, pDel float64
		seed       uint64
		k, rows    int
		dense      bool
	}{
		{"citeseer", 0, 0.4, 1, 64, 0, true},
		{"citeseer", 0, 0.6, 2, 64, 1, false},
		{"citeseer", 0.0005, 0.4, 3, 8, 100, false},
		{"cora_ml", 0, 0.4, 1, 64, 0, false},
		{"cora_ml", 0, 0.8, 4, 0, 0, false},
	} {
		a := perturbedOf(t, c.name, c.pAdd, c.pDel, c.seed)
		if groups, err := graph.CGGroups(a, c.rows); err != nil || groups < 2 {
			t.Fatalf("%+v: %d groups (%v): the case would not test the grouped solve", c, groups, err)
		}
		want, wantS, err := graph.ExactGDCGroups(a, 0.15, c.k, -1, c.dense)
		if err != nil {
			t.Fatal(err)
		}
		got, gotS, err := graph.ExactGDCGroups(a, 0.15, c.k, c.rows, c.dense)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Indptr, want.Indptr) || !slices.Equal(got.Indices, want.Indices) ||
			!slices.Equal(got.Values, want.Values) || !slices.Equal(gotS, wantS) {
			t.Errorf("%+v: the grouped solve's bits differ from the whole graph's", c)
		}
	}
}

// BenchmarkExactGDCSampled is SM†'s per-sample diffusion in the paper's
// deletion certificates: the exact PPR of a graph with 40% of the edges
// deleted. Many of its nodes lie in components smaller than k (~15% on
// cora_ml, ~40% on citeseer), whose rows are a few values and then zeros,
// all tied.
func BenchmarkExactGDCSampled(b *testing.B) {
	for _, name := range []string{"cora_ml", "citeseer"} {
		b.Run(name, func(b *testing.B) {
			a := perturbedOf(b, name, 0, 0.4, 1)
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := graph.ExactGDC(a, 0.15, 64); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// processCPU is the process's CPU time so far (0 where not reported).
func processCPU() time.Duration {
	c, _ := cputime.Process()
	return c
}
