package graph_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// edgeSet is an undirected unweighted graph under edits, for the tests.
type edgeSet struct {
	n     int
	edges map[[2]int32]bool // u < v
}

func edgeSetOf(a *tensor.CSR) *edgeSet {
	s := &edgeSet{n: a.Rows, edges: map[[2]int32]bool{}}
	for i := range a.Rows {
		for _, j := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
			if int32(i) < j {
				s.edges[[2]int32{int32(i), j}] = true
			}
		}
	}
	return s
}

func (s *edgeSet) csr(t testing.TB) *tensor.CSR {
	t.Helper()
	var es []tensor.Entry
	for e := range s.edges {
		es = append(es, tensor.Entry{Row: e[0], Col: e[1], Val: 1}, tensor.Entry{Row: e[1], Col: e[0], Val: 1})
	}
	a, err := tensor.FromCOO(s.n, s.n, es)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDynamicPPRMatchesTopKPPR: after every batch of edits (additions,
// removals, new nodes with edges, a node becoming a leaf or an isolated
// pair) the updated matrix is TopKPPR of the edited graph bit for bit, and
// only a part of the rows was recomputed.
func TestDynamicPPRMatchesTopKPPR(t *testing.T) {
	for _, eps := range []float64{1e-4, 1e-3} {
		t.Run(fmt.Sprint(eps), func(t *testing.T) { testDynamicPPR(t, eps) })
	}
}

func testDynamicPPR(t *testing.T, eps float64) {
	const alpha, k = 0.15, 16
	a := powerLawGraph(t, 1500, 4500, 5)
	d, err := graph.NewDynamicPPR(a, alpha, eps, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Every other step settles the index here and checks it; on the others
	// the next Update settles it itself (and its rows show whether it did).
	settle := true
	check := func(step string, adj *tensor.CSR) {
		t.Helper()
		want, err := graph.TopKPPR(adj, nil, alpha, eps, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		if settle {
			d.Settle()
			if err := d.IndexError(); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}
		settle = !settle
		if err := d.PoppedError(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		got := d.Matrix()
		if !slices.Equal(got.Indptr, want.Indptr) || !slices.Equal(got.Indices, want.Indices) || !slices.Equal(got.Values, want.Values) {
			for u := range want.Rows {
				wc, wv := rowOf(want, u)
				gc, gv := rowOf(got, u)
				if !slices.Equal(wc, gc) || !slices.Equal(wv, gv) {
					t.Fatalf("%s: row %d = %v %v, want %v %v", step, u, gc, gv, wc, wv)
				}
			}
			t.Fatalf("%s: matrices differ", step)
		}
	}
	check("initial", a)
	s := edgeSetOf(a)
	rng := rand.New(rand.NewPCG(7, 1))
	deg := func(v int32) int {
		c := 0
		for e := range s.edges {
			if e[0] == v || e[1] == v {
				c++
			}
		}
		return c
	}
	total := 0
	for step := range 12 {
		var changed []int
		n0 := s.n
		switch step % 4 {
		case 0, 1: // random additions and removals
			for range 1 + rng.IntN(4) {
				u, v := int32(rng.IntN(s.n)), int32(rng.IntN(s.n))
				if u == v {
					continue
				}
				e := [2]int32{min(u, v), max(u, v)}
				s.edges[e] = !s.edges[e]
				if !s.edges[e] {
					delete(s.edges, e)
				}
				changed = append(changed, int(u), int(v))
			}
		case 2: // a new node hanging off an existing one, then another on it
			s.n += 2
			x := int32(rng.IntN(n0))
			s.edges[[2]int32{x, int32(n0)}] = true
			s.edges[[2]int32{int32(n0), int32(n0 + 1)}] = true
			changed = append(changed, int(x), n0, n0+1)
		case 3: // strip a node down to one edge (a leaf), then cut an edge of a leaf
			var u int32 = -1
			for v := int32(0); v < int32(n0); v++ {
				if dv := deg(v); dv >= 2 && dv <= 4 {
					u = v
					break
				}
			}
			kept := false
			for e := range s.edges {
				if e[0] == u || e[1] == u {
					if !kept {
						kept = true
						continue
					}
					delete(s.edges, e)
					changed = append(changed, int(e[0]), int(e[1]))
				}
			}
		}
		adj := s.csr(t)
		redo, err := d.Update(adj, changed, 2)
		if err != nil {
			t.Fatal(err)
		}
		total += len(redo)
		check("step "+string(rune('a'+step)), adj)
	}
	if eps >= 1e-3 && total >= 12*s.n/4 {
		t.Errorf("recomputed %d rows in 12 steps of %d nodes: not incremental", total, s.n)
	}
	t.Logf("recomputed %d rows in 12 steps (%d nodes), index %d entries", total, s.n, d.IndexSize())
}

// TestDynamicPPRErrors: bad inputs are errors.
func TestDynamicPPRErrors(t *testing.T) {
	a := powerLawGraph(t, 50, 120, 1)
	if _, err := graph.NewDynamicPPR(a, 0, 1e-4, 8, 1); err == nil {
		t.Error("alpha 0 accepted")
	}
	if _, err := graph.NewDynamicPPR(a, 0.15, 0, 8, 1); err == nil {
		t.Error("eps 0 accepted")
	}
	if _, err := graph.NewDynamicPPR(nil, 0.15, 1e-4, 8, 1); err == nil {
		t.Error("nil graph accepted")
	}
	d, err := graph.NewDynamicPPR(a, 0.15, 1e-4, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Update(a, []int{50}, 1); err == nil {
		t.Error("changed node out of range accepted")
	}
	small := powerLawGraph(t, 40, 100, 1)
	if _, err := d.Update(small, nil, 1); err == nil {
		t.Error("shrinking graph accepted")
	}
}
