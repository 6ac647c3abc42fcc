package attack

import (
	"fmt"
	"math"
	"sort"

	"github.com/rgnn/rgnn/data"
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

// FlipsBetween returns the flips that turn clean into pert (symmetric
// adjacencies of the same shape; an entry of value 0 is no edge): every
// pair u < v that is an edge in one and not the other, row-major
// (data.DiffEdges). ApplyFlips(clean, the result) has pert's edges.
func FlipsBetween(clean, pert *tensor.CSR) ([]Flip, error) {
	var flips []Flip
	err := data.DiffEdges(clean, pert, func(u, v int32, _ bool) { flips = append(flips, Flip{u, v}) })
	if err != nil {
		return nil, fmt.Errorf("attack: %w", err)
	}
	return flips, nil
}
