package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// randomEdges is a random spanning tree (so the graph is connected) plus
// extra random pairs, deterministic in seed.
func randomEdges(n, extra int, seed uint64) [][2]int {
	r := rand.New(rand.NewPCG(seed, 7))
	var edges [][2]int
	for v := 1; v < n; v++ {
		edges = append(edges, [2]int{r.IntN(v), v})
	}
	for range extra {
		if u, v := r.IntN(n), r.IntN(n); u != v {
			edges = append(edges, [2]int{u, v})
		}
	}
	return edges
}

// symmetric01 is the symmetric 0/1 matrix with an entry at (u, v) and
// (v, u) for every pair of edges.
func symmetric01(t testing.TB, n int, edges [][2]int) *tensor.CSR {
	t.Helper()
	es := make([]tensor.Entry, 0, 2*len(edges))
	for _, e := range edges {
		u, v := int32(e[0]), int32(e[1])
		es = append(es, tensor.Entry{Row: u, Col: v, Val: 1}, tensor.Entry{Row: v, Col: u, Val: 1})
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Values {
		a.Values[i] = 1 // a repeated pair was summed
	}
	return a
}

// randomSym is a connected random symmetric 0/1 matrix.
func randomSym(t testing.TB, n, extra int, seed uint64) *tensor.CSR {
	t.Helper()
	return symmetric01(t, n, randomEdges(n, extra, seed))
}

func closeRel(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-12)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
