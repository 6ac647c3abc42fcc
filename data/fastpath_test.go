package data

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// The fast paths (already sorted CSR, already standard adjacency) give the
// same matrices as assembling from coordinates.
func TestFastPathsMatchCOO(t *testing.T) {
	dir := fixture.DataDir(t)
	for _, name := range []string{"cora_ml", "citeseer", "cora", "polblogs"} {
		a, err := npz.Open(filepath.Join(dir, registry[name].File))
		if err != nil {
			t.Fatal(err)
		}
		adj, _, err := readCSR(a, "adj_matrix", "adj", edgeWeights)
		if err != nil {
			t.Fatal(err)
		}
		sym := standardize(adj)
		want := standardizeCOO(adj)
		if !equalCSR(sym, want) {
			t.Fatalf("%s: standardize differs from the COO assembly", name)
		}
		if !isStandard(want) || !equalCSR(standardize(want), want) {
			t.Fatalf("%s: standardised graph not recognised as standard", name)
		}
	}
	// Random matrices: asymmetric, self loops, zeros.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + rng.IntN(30)
		var es []tensor.Entry
		for range rng.IntN(4 * n) {
			v := float32(1)
			if rng.IntN(10) == 0 {
				v = 0
			}
			es = append(es, tensor.Entry{Row: int32(rng.IntN(n)), Col: int32(rng.IntN(n)), Val: v})
		}
		if trial%2 == 0 { // symmetric variant
			for _, e := range slices.Clone(es) {
				es = append(es, tensor.Entry{Row: e.Col, Col: e.Row, Val: e.Val})
			}
		}
		a, _ := tensor.FromCOO(n, n, es)
		if !equalCSR(standardize(a), standardizeCOO(a)) {
			t.Fatalf("trial %d: standardize differs", trial)
		}
		checkStandardise(t, a)
	}
	// A standard pattern with weights: only the weights change.
	a, _ := tensor.FromCOO(3, 3, []tensor.Entry{{Row: 0, Col: 1, Val: 2}, {Row: 1, Col: 0, Val: 2}, {Row: 1, Col: 2, Val: 1}, {Row: 2, Col: 1, Val: 1}})
	if _, c := Standardise(a); c != (Changes{Reweighted: 1}) {
		t.Errorf("weighted standard graph: %+v, want one reweighted edge", c)
	}
	checkStandardise(t, a)
}

// checkStandardise: Standardise (with its fast path for standard
// patterns) gives the COO assembly and counts what countChanges counts.
func checkStandardise(t *testing.T, a *tensor.CSR) {
	t.Helper()
	got, c := Standardise(a)
	if !equalCSR(got, standardizeCOO(a)) || c != countChanges(a) {
		t.Fatalf("Standardise: changes %+v, countChanges %+v (or a different pattern)", c, countChanges(a))
	}
}

func equalCSR(a, b *tensor.CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) &&
		slices.Equal(a.Indices, b.Indices) && slices.Equal(a.Values, b.Values)
}
