package data

import (
	"context"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

func TestSplitFor(t *testing.T) {
	g, err := Load(context.Background(), "cora_ml", Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint32{0, 1, 5} {
		tr, va, te, err := SplitFor(g, seed)
		if err != nil {
			t.Fatal(err)
		}
		wtr, wva, wte, _ := Split(g.Labels, g.NumClasses, 20, seed)
		if !slices.Equal(tr, wtr) || !slices.Equal(va, wva) || !slices.Equal(te, wte) {
			t.Fatalf("seed %d: SplitFor differs from Split", seed)
		}
	}
	g.Split = &FixedSplit{Name: "fixed", Train: []int{3, 1}, Val: []int{2}, Test: []int{0, 4}}
	tr, va, te, err := SplitFor(g, 7)
	if err != nil || !slices.Equal(tr, []int{3, 1}) || !slices.Equal(va, []int{2}) || !slices.Equal(te, []int{0, 4}) {
		t.Fatalf("fixed split: %v %v %v %v", tr, va, te, err)
	}
	tr[0] = 99 // a copy: the graph's split is unchanged
	if g.Split.Train[0] != 3 {
		t.Fatal("SplitFor returned the graph's own slice")
	}
	g.Split.Test = append(g.Split.Test, g.NumNodes())
	if _, _, _, err := SplitFor(g, 0); err == nil {
		t.Fatal("out-of-range split node accepted")
	}
}
