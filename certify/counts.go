package certify

import "fmt"

// Counts is an n×C matrix of class votes, row-major, as the reference's
// votes and pre_votes arrays (int64 [n, C]).
type Counts struct {
	Nodes, Classes int
	Data           []int64
}

// NewCounts returns a zero n×c vote matrix.
func NewCounts(n, c int) *Counts {
	return &Counts{Nodes: n, Classes: c, Data: make([]int64, n*c)}
}

// Row returns the votes of node i (aliasing Data).
func (v *Counts) Row(i int) []int64 { return v.Data[i*v.Classes : (i+1)*v.Classes] }

// Argmax returns the class with the most votes of node i, the first one on
// ties (numpy's argmax).
func (v *Counts) Argmax(i int) int {
	row := v.Row(i)
	best := 0
	for c, x := range row {
		if x > row[best] {
			best = c
		}
	}
	return best
}

// TopTwo returns the most and the second most voted class of node i as the
// reference picks them, from a stable ascending argsort of the row: ties
// resolve to the higher class index (top = last, runner-up = second to
// last). The row needs at least two classes.
func (v *Counts) TopTwo(i int) (top, runnerUp int) {
	row := v.Row(i)
	top, runnerUp = -1, -1
	for c, x := range row {
		if top < 0 || x >= row[top] {
			top = c
		}
	}
	for c, x := range row {
		if c != top && (runnerUp < 0 || x >= row[runnerUp]) {
			runnerUp = c
		}
	}
	return top, runnerUp
}

// Add adds o to v element-wise.
func (v *Counts) Add(o *Counts) {
	if v.Nodes != o.Nodes || v.Classes != o.Classes {
		panic(fmt.Sprintf("certify: adding %d×%d votes to %d×%d", o.Nodes, o.Classes, v.Nodes, v.Classes))
	}
	for i, x := range o.Data {
		v.Data[i] += x
	}
}

// Validate checks the shape and that no count is negative.
func (v *Counts) Validate() error {
	if v.Nodes < 0 || v.Classes < 0 || len(v.Data) != v.Nodes*v.Classes {
		return fmt.Errorf("votes: %d values for %d×%d", len(v.Data), v.Nodes, v.Classes)
	}
	for i, x := range v.Data {
		if x < 0 {
			return fmt.Errorf("votes: negative count %d at node %d, class %d", x, i/v.Classes, i%v.Classes)
		}
	}
	return nil
}

// rowTotal returns the common sum of all rows (the number of samples), or
// an error if the rows disagree.
func (v *Counts) rowTotal() (int64, error) {
	var total int64 = -1
	for i := range v.Nodes {
		var s int64
		for _, x := range v.Row(i) {
			s += x
		}
		if total < 0 {
			total = s
		} else if s != total {
			return 0, fmt.Errorf("votes of node %d sum to %d, node 0's to %d", i, s, total)
		}
	}
	return total, nil
}
