package tensor

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// ForEachJob runs every job once, reports progress once per job, joins the
// jobs' errors, and fails the jobs not started after cancellation.
func TestForEachJob(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		out := make([]int, 50)
		calls := 0
		err := ForEachJob(context.Background(), len(out), workers, func(w, i int) error {
			if w < 0 || w >= max(1, min(workers, len(out))) {
				return fmt.Errorf("worker %d", w)
			}
			out[i] = i * i
			return nil
		}, func(done, total int) {
			calls++
			if total != len(out) || done != calls {
				t.Errorf("progress %d/%d after %d calls", done, total, calls)
			}
		})
		if err != nil || calls != len(out) {
			t.Fatalf("workers %d: err %v, %d progress calls", workers, err, calls)
		}
		for i, v := range out {
			if v != i*i {
				t.Fatalf("workers %d: job %d wrote %d", workers, i, v)
			}
		}
	}
	bad := errors.New("bad")
	if err := ForEachJob(context.Background(), 5, 2, func(_, i int) error {
		if i == 3 {
			return bad
		}
		return nil
	}, nil); !errors.Is(err, bad) {
		t.Fatalf("error not returned: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := 0
	if err := ForEachJob(ctx, 4, 1, func(_, _ int) error { ran++; return nil }, nil); !errors.Is(err, context.Canceled) || ran != 0 {
		t.Fatalf("cancelled: err %v, %d jobs ran", err, ran)
	}
}
