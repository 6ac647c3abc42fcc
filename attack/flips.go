package attack

import (
	"fmt"
	"math"
	"sort"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// Flip is an undirected node pair {U, V} with U < V whose edge is toggled.
type Flip struct{ U, V int32 }

// Budget returns the number of flips for a fraction eps of the m undirected
// edges: round(ε·m) (Python's round: half to even).
func Budget(eps float64, m int) int {
	return int(math.RoundToEven(eps * float64(m)))
}

// CheckFlips verifies that flips are pairs u < v inside n nodes, without
// repeats, and at most budget of them (budget < 0: no limit).
func CheckFlips(flips []Flip, n, budget int) error {
	if budget >= 0 && len(flips) > budget {
		return fmt.Errorf("attack: %d flips exceed the budget %d", len(flips), budget)
	}
	seen := make(map[Flip]struct{}, len(flips))
	for i, f := range flips {
		if f.U < 0 || int(f.V) >= n || f.U >= f.V {
			return fmt.Errorf("attack: flip %d (%d, %d) is not a pair u < v of %d nodes", i, f.U, f.V, n)
		}
		if _, dup := seen[f]; dup {
			return fmt.Errorf("attack: flip (%d, %d) repeated", f.U, f.V)
		}
		seen[f] = struct{}{}
	}
	return nil
}

// ApplyFlips returns adj with every flip toggled in both directions. adj is
// not modified.
func ApplyFlips(adj *tensor.CSR, flips []Flip) (*tensor.CSR, error) {
	if err := CheckFlips(flips, adj.Rows, -1); err != nil {
		return nil, err
	}
	pairs := make([][2]int, len(flips))
	for i, f := range flips {
		pairs[i] = [2]int{int(f.U), int(f.V)}
	}
	return graph.FlipEdges(adj, pairs)
}

// CountFlips splits flips into edges added to and removed from adj.
func CountFlips(adj *tensor.CSR, flips []Flip) (added, removed int) {
	for _, f := range flips {
		if hasEdge(adj, int(f.U), int(f.V)) {
			removed++
		} else {
			added++
		}
	}
	return added, removed
}

func hasEdge(adj *tensor.CSR, u, v int) bool {
	k, ok := adj.Find(u, v)
	return ok && adj.Values[k] != 0
}

// sortFlips orders flips row-major (deterministic output).
func sortFlips(f []Flip) {
	sort.Slice(f, func(i, j int) bool {
		if f[i].U != f[j].U {
			return f[i].U < f[j].U
		}
		return f[i].V < f[j].V
	})
}

// FlipsBetween returns the flips that turn clean into pert (both symmetric
// n×n adjacencies; an entry of value 0 is no edge): every pair u < v that
// is an edge in one and not the other, row-major. ApplyFlips(clean, the
// result) has pert's edges.
func FlipsBetween(clean, pert *tensor.CSR) ([]Flip, error) {
	if clean.Rows != pert.Rows || clean.Cols != pert.Cols || clean.Rows != clean.Cols {
		return nil, fmt.Errorf("attack: graphs of %d×%d and %d×%d nodes, want the same square shape",
			clean.Rows, clean.Cols, pert.Rows, pert.Cols)
	}
	var flips []Flip
	row := func(a *tensor.CSR, u int) []int32 {
		var out []int32
		for k := a.Indptr[u]; k < a.Indptr[u+1]; k++ {
			if v := a.Indices[k]; int(v) > u && a.Values[k] != 0 {
				out = append(out, v)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	}
	for u := 0; u < clean.Rows; u++ {
		a, b := row(clean, u), row(pert, u)
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			switch {
			case j == len(b) || (i < len(a) && a[i] < b[j]):
				flips = append(flips, Flip{int32(u), a[i]})
				i++
			case i == len(a) || b[j] < a[i]:
				flips = append(flips, Flip{int32(u), b[j]})
				j++
			default:
				i, j = i+1, j+1
			}
		}
	}
	return flips, nil
}
