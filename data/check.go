package data

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rgnn/rgnn/tensor"
)

// The input checks every reader of graphs, features and labels runs at
// load (dataset .npz files here; importers of other formats call the same
// functions): an error names the file, the array and the first bad entry.
// What standardisation changes in an accepted graph is counted in a
// Changes and reported in one line, never done silently.

// FirstBadWeight returns the index of the first value of w that is NaN,
// ±Inf or negative (edge weights must be finite and ≥ 0), or -1.
func FirstBadWeight(w []float32) int {
	for i, x := range w {
		if !(x >= 0) || math.IsInf(float64(x), 1) {
			return i
		}
	}
	return -1
}

// FirstNonFinite returns the index of the first NaN or ±Inf in v, or -1.
func FirstNonFinite(v []float32) int {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return i
		}
	}
	return -1
}

// CheckWeights checks edge weights w read from file (array key): every
// weight finite and ≥ 0 (a weight of 0 is no edge). where(k) names entry k
// in the error, e.g. "row 3, column 17" or "edge 12 (3, 17)".
func CheckWeights(file, key string, w []float32, where func(k int) string) error {
	k := FirstBadWeight(w)
	if k < 0 {
		return nil
	}
	what := "negative"
	if x := float64(w[k]); math.IsNaN(x) || math.IsInf(x, 0) {
		what = "non-finite"
	}
	return fmt.Errorf("%s: %s: %s: edge weight %v is %s (edge weights must be finite and ≥ 0; 0 is no edge)",
		file, key, where(k), w[k], what)
}

// CheckAdjacency checks the stored values of an adjacency matrix read from
// file (array key) with [CheckWeights].
func CheckAdjacency(file, key string, a *tensor.CSR) error {
	return CheckWeights(file, key, a.Values, func(k int) string {
		r := rowOf(a, k)
		return fmt.Sprintf("row %d, column %d", r, a.Indices[k])
	})
}

// CheckFeatures checks a feature matrix read from file (array key): every
// stored value finite.
func CheckFeatures(file, key string, x *tensor.CSR) error {
	k := FirstNonFinite(x.Values)
	if k < 0 {
		return nil
	}
	return fmt.Errorf("%s: %s: row %d, column %d: feature value %v (features must be finite)",
		file, key, rowOf(x, k), x.Indices[k], x.Values[k])
}

// rowOf is the row of a CSR's k-th stored entry.
func rowOf(a *tensor.CSR, k int) int {
	return sort.Search(a.Rows, func(r int) bool { return a.Indptr[r+1] > k })
}

// MaxClasses bounds the number of classes a labels array may declare.
const MaxClasses = 1 << 20

// CheckLabels checks node labels read from file (array key) and returns
// the number of classes, one more than the largest label: no label is
// negative or above MaxClasses. With dense, every class below the largest
// label must also have a node — a gap means a label out of range (label 9
// in a file of classes 0, 1, 2), named with its node; a graph split at
// random per class needs that. (Generated graphs with a stored split may
// leave a class empty.)
func CheckLabels(file, key string, labels []int64, dense bool) (numClasses int, err error) {
	first := map[int64]int{} // class -> its first node
	maxLabel := int64(-1)
	for i, y := range labels {
		if y < 0 || y >= MaxClasses {
			return 0, fmt.Errorf("%s: %s: node %d has label %d (labels must number the classes 0, 1, …, below %d)",
				file, key, i, y, MaxClasses)
		}
		if _, ok := first[y]; !ok {
			first[y] = i
		}
		maxLabel = max(maxLabel, y)
	}
	numClasses = int(maxLabel + 1)
	if !dense || len(first) == numClasses {
		return numClasses, nil
	}
	// The classes below the first missing one are the file's; the
	// smallest label above it is out of range.
	missing := int64(0)
	for ; missing < maxLabel; missing++ {
		if _, ok := first[missing]; !ok {
			break
		}
	}
	bad := maxLabel
	for y := range first {
		if y > missing && y < bad {
			bad = y
		}
	}
	return 0, fmt.Errorf("%s: %s: node %d has label %d, out of range for the %d classes 0–%d (no node has label %d; "+
		"labels must number the classes 0, 1, … without gaps)", file, key, first[bad], bad, missing, missing-1, missing)
}

// Changes counts what standardising a graph changed in its input (the
// reference's standardisation: unweighted, symmetric, no self-loops, the
// largest connected component). Zero values: nothing of that kind.
type Changes struct {
	// Symmetrised: entries (u, v) whose mirror (v, u) was absent, added.
	Symmetrised int `json:"symmetrised,omitempty"`
	// SelfLoops dropped (entries (u, u)).
	SelfLoops int `json:"self_loops_dropped,omitempty"`
	// Duplicates: entries stored more than once, merged.
	Duplicates int `json:"duplicates_merged,omitempty"`
	// Reweighted: edges whose weight was not 1, set to 1 (unweighted).
	Reweighted int `json:"weights_set_to_1,omitempty"`
	// ZeroWeights: stored zeros, dropped (no edge).
	ZeroWeights int `json:"zero_weights_dropped,omitempty"`
	// Components of the symmetrised graph and the nodes outside the largest
	// one, dropped.
	Components   int `json:"components,omitempty"`
	DroppedNodes int `json:"nodes_dropped,omitempty"`
	// FeatureDuplicates: feature entries stored more than once, summed.
	FeatureDuplicates int `json:"feature_duplicates_summed,omitempty"`
}

// Any reports whether the input was changed.
func (c Changes) Any() bool { return c.String() != "" }

// String is the one-line report of the changes ("" when there are none),
// e.g. "symmetrised 12 edges, dropped 3 self-loops, kept the largest of 78
// connected components (dropped 185 nodes)".
func (c Changes) String() string {
	var parts []string
	add := func(n int, format, one, many string) {
		if n > 0 {
			w := many
			if n == 1 {
				w = one
			}
			parts = append(parts, fmt.Sprintf(format, n, w))
		}
	}
	add(c.Symmetrised, "symmetrised %d %s (added the reverse direction)", "edge", "edges")
	add(c.SelfLoops, "dropped %d %s", "self-loop", "self-loops")
	add(c.Duplicates, "merged %d duplicate edge %s", "entry", "entries")
	add(c.Reweighted, "set %d edge %s to 1", "weight", "weights")
	add(c.ZeroWeights, "dropped %d zero-weight %s", "entry", "entries")
	if c.DroppedNodes > 0 {
		add(c.DroppedNodes, fmt.Sprintf("kept the largest of %d connected components (dropped %%d %%s)", c.Components),
			"node", "nodes")
	}
	add(c.FeatureDuplicates, "summed %d duplicate feature %s", "entry", "entries")
	return strings.Join(parts, ", ")
}

// Standardise returns the symmetric 0/1 pattern of a + aᵀ without the
// diagonal or stored zeros (the reference's standardisation; a must be
// square with sorted unique columns per row, as tensor.FromCOO makes it),
// and counts what that changed (Symmetrised, SelfLoops, Reweighted,
// ZeroWeights; the caller adds Duplicates it merged when assembling a and
// the components it drops).
func Standardise(a *tensor.CSR) (*tensor.CSR, Changes) {
	if isStandard(a) { // symmetric, no loops or zeros: only weights can change
		var c Changes
		for r := 0; r < a.Rows; r++ {
			for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
				if int(a.Indices[k]) > r && a.Values[k] != 1 {
					c.Reweighted++
				}
			}
		}
		return ones(a), c
	}
	return standardizeCOO(a), countChanges(a)
}

// countChanges counts what standardize changes in a (sorted unique
// columns per row): an undirected edge is counted once.
func countChanges(a *tensor.CSR) Changes {
	var c Changes
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			col, v := int(a.Indices[k]), a.Values[k]
			switch {
			case v == 0:
				c.ZeroWeights++
				continue
			case col == r:
				c.SelfLoops++
				continue
			}
			m, ok := a.Find(col, r)
			mirrored := ok && a.Values[m] != 0
			if !mirrored {
				c.Symmetrised++
			}
			if v != 1 && (col > r || !mirrored) {
				c.Reweighted++
			}
		}
	}
	return c
}

// LargestComponent returns the nodes of a's largest connected component in
// ascending order (ties: the component found first from node 0) and the
// number of components; a must be symmetric.
func LargestComponent(a *tensor.CSR) (keep []int, components int) {
	return largestComponentCount(a)
}
