package attack

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestFlipsBetween: the flips recovered from a perturbed graph are the
// applied ones, row-major, whatever their order; an explicit zero is no edge.
func TestFlipsBetween(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 40
	var es []tensor.Entry
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.IntN(5) == 0 {
				es = append(es, tensor.Entry{Row: int32(u), Col: int32(v), Val: 1}, tensor.Entry{Row: int32(v), Col: int32(u), Val: 1})
			}
		}
	}
	clean, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Flip]bool{}
	var flips []Flip
	for len(flips) < 30 {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		f := Flip{min(u, v), max(u, v)}
		if u != v && !seen[f] {
			seen[f] = true
			flips = append(flips, f)
		}
	}
	pert, err := ApplyFlips(clean, flips)
	if err != nil {
		t.Fatal(err)
	}
	got, err := FlipsBetween(clean, pert)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(flips)
	sortFlips(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// An explicit zero in the perturbed graph is a removed edge.
	z := &tensor.CSR{Rows: clean.Rows, Cols: clean.Cols, Indptr: clean.Indptr, Indices: clean.Indices,
		Values: slices.Clone(clean.Values)}
	z.Values[0] = 0
	u := 0
	for clean.Indptr[u+1] == 0 {
		u++
	}
	v := clean.Indices[0]
	if got, _ := FlipsBetween(clean, z); v > int32(u) && (len(got) != 1 || got[0] != (Flip{int32(u), v})) {
		t.Fatalf("explicit zero: %v", got)
	}
	if _, err := FlipsBetween(clean, &tensor.CSR{Rows: n + 1, Cols: n + 1, Indptr: make([]int, n+2)}); err == nil {
		t.Fatal("no error for graphs of different sizes")
	}
}
