package task

import (
	"errors"
	"testing"
)

// The batch size is chosen once: given values for models that train in
// mini-batches, else batches of AutoBatchSize above AutoBatchNodes nodes,
// full batch for every other model; a batch size for a full-batch model or
// a negative one is a FieldError naming batch_size.
func TestEffectiveBatchSize(t *testing.T) {
	d := Train{}.Defaults()
	for _, c := range []struct {
		model    string
		batch, n int
		want     int
	}{
		{"pprgo", 0, 2708, 0},
		{"pprgo", 0, AutoBatchNodes + 1, AutoBatchSize},
		{"softmedian_pprgo", 64, 2708, 64},
		{"softmedian_pprgo", 0, 2_449_029, AutoBatchSize},
		{"gcn", 0, 2_449_029, 0},
	} {
		s := d
		s.Model.Model, s.BatchSize = c.model, c.batch
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := s.EffectiveBatchSize(c.n); got != c.want {
			t.Errorf("%s batch %d on %d nodes: %d, want %d", c.model, c.batch, c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		model string
		batch int
	}{{"gcn", 32}, {"pprgo", -1}} {
		s := d
		s.Model.Model, s.BatchSize = c.model, c.batch
		var fe *FieldError
		if err := s.Validate(); !errors.As(err, &fe) || fe.Param != "batch_size" {
			t.Errorf("%s batch %d: %v, want a batch_size FieldError", c.model, c.batch, err)
		}
	}
}
