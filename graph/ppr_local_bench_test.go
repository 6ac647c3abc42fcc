package graph_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// BenchmarkLocalPPREpoch is one epoch of local PR-BCD's PPR work at a
// target of a ring graph with n nodes and random top-64 rows: Update with
// 10,000 pairs (40 of them off their clean weight, the rest at the
// floor), TopK and TopKBackward; every iteration takes the next of 40
// random candidate sets, so the rows come from memory as in an attack:
//
//	GOEXPERIMENT=simd go test ./graph -run xxx -bench LocalPPREpoch -benchtime 600x
func BenchmarkLocalPPREpoch(b *testing.B) {
	for _, n := range []int{100_000, 400_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			const k, block = 64, 10_000
			rng := rand.New(rand.NewPCG(1, 1))
			m := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, n*k), Values: make([]float32, n*k)}
			for i := range n {
				m.Indptr[i+1] = (i + 1) * k
				row := m.Indices[i*k : (i+1)*k]
				for {
					for j := range row {
						row[j] = int32(rng.IntN(n))
					}
					slices.Sort(row)
					if len(slices.Compact(slices.Clone(row))) == k {
						break
					}
				}
				for j := range k {
					m.Values[i*k+j] = 0.01
				}
			}
			es := make([]tensor.Entry, 0, 2*n)
			for i := range n {
				j := int32((i + 1) % n)
				es = append(es, tensor.Entry{Row: int32(i), Col: j, Val: 1}, tensor.Entry{Row: j, Col: int32(i), Val: 1})
			}
			adj, err := tensor.FromCOO(n, n, es)
			if err != nil {
				b.Fatal(err)
			}
			l, err := graph.NewLocalPPR(adj, &graph.PPRRows{M: m}, 0.15)
			if err != nil {
				b.Fatal(err)
			}
			sets := make([][]int32, 40)
			for s := range sets {
				perm := rng.Perm(n - 2)[:block]
				for _, x := range perm {
					sets[s] = append(sets[s], int32(x+2))
				}
			}
			w := make([]float64, block)
			for i := range 40 {
				w[i] = 0.3
			}
			out := make([]float64, block)
			g := make([]float64, k)
			for i := range g {
				g[i] = 1
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := l.Update(1, sets[i%len(sets)], w); err != nil {
					b.Fatal(err)
				}
				cols, _, err := l.TopK(k)
				if err != nil {
					b.Fatal(err)
				}
				clear(out)
				if err := l.TopKBackward(g[:len(cols)], out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
