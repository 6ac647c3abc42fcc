package stats

import (
	"math"
	"testing"
)

func TestMeanSE(t *testing.T) {
	if m, se := MeanSE(nil); !math.IsNaN(m) || !math.IsNaN(se) {
		t.Fatalf("no values: %v, %v", m, se)
	}
	if m, se := MeanSE([]float64{2.5}); m != 2.5 || se != 0 {
		t.Fatalf("one value: %v, %v", m, se)
	}
	// mean 5, sample variance 32/7, s.e. √(32/7)/√8
	m, se := MeanSE([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if want := math.Sqrt(32.0/7) / math.Sqrt(8); m != 5 || math.Abs(se-want) > 1e-15 {
		t.Fatalf("MeanSE = %v, %v; want 5, %v", m, se, want)
	}
}
