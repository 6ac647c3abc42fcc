package task

import (
	"testing"
)

func TestParseDegreeBudget(t *testing.T) {
	for s, want := range map[string]int{"degree+2": 2, "degree": 0, "deg+5": 5, " Degree + 3 ": 3} {
		if k, err := parseDegreeBudget(s); err != nil || k != want {
			t.Errorf("%q: %d, %v (want %d)", s, k, err, want)
		}
	}
	for _, s := range []string{"", "2", "degree-1", "degree+x", "degree2", "eps"} {
		if _, err := parseDegreeBudget(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
