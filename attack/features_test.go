package attack

import (
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

func TestApplyFeatureFlips(t *testing.T) {
	x, err := tensor.FromCOO(3, 4, []tensor.Entry{{Row: 0, Col: 1, Val: 1}, {Row: 0, Col: 3, Val: 1}, {Row: 2, Col: 0, Val: 1}})
	if err != nil {
		t.Fatal(err)
	}
	y, err := ApplyFeatureFlips(x, []FeatureFlip{{0, 3}, {0, 0}, {1, 2}, {0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 1, 1, 0}, {0, 0, 1, 0}, {1, 0, 0, 0}}
	for r, row := range want {
		for c, v := range row {
			got := float32(0)
			if k, ok := y.Find(r, c); ok {
				got = y.Values[k]
			}
			if got != v {
				t.Errorf("X'[%d,%d] = %v, want %v", r, c, got, v)
			}
		}
	}
	if x.Nnz() != 3 {
		t.Error("ApplyFeatureFlips changed its input")
	}
	for _, bad := range [][]FeatureFlip{{{0, 1}, {0, 1}}, {{3, 0}}, {{0, 4}}, {{-1, 0}}} {
		if _, err := ApplyFeatureFlips(x, bad); err == nil {
			t.Errorf("flips %v accepted", bad)
		}
	}
}
