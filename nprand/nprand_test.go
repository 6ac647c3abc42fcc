package nprand

import (
	"slices"
	"testing"
)

func TestKnownOutputs(t *testing.T) {
	// The reference MT19937 output for init_genrand(5489).
	if got := New(5489).Uint32(); got != 3499211612 {
		t.Fatalf("first output %d, want 3499211612", got)
	}
	// np.random.RandomState(0).permutation(10)
	if got := New(0).PermutationN(10); !slices.Equal(got, []int{2, 8, 4, 9, 1, 6, 7, 3, 0, 5}) {
		t.Fatalf("permutation(10) = %v", got)
	}
	// np.random.RandomState(0).random_sample()
	if got := New(0).Float64(); got != 0.5488135039273248 {
		t.Fatalf("random_sample = %v", got)
	}
}
