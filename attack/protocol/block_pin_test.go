package protocol

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
)

// flipDigest is the first 16 hex digits of the sha256 of the flips (u, v as
// little-endian int32s, in order).
func flipDigest(flips []attack.Flip) string {
	h := sha256.New()
	var buf [8]byte
	for _, f := range flips {
		binary.LittleEndian.PutUint32(buf[:4], uint32(f.U))
		binary.LittleEndian.PutUint32(buf[4:], uint32(f.V))
		h.Write(buf[:])
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// PR-BCD and GR-BCD on cora_ml against the reference GCN give the same
// flips as before the block's pair set learnt to scale (hash set above
// the bitmap's limit): the block of 1e6 (the all-pairs ScanPairs gradient)
// and of 1e5 (per-pair gradients), at GOMAXPROCS 1 and 2.
func TestCoraBlockAttacksPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p := attacktest.LoadCora(t, 0)
	gcn := attacktest.Pretrained(t, "gcn", "Vanilla_GCN", 1, 0, p)
	cases := []struct {
		attack string
		opts   attack.Options
		want   string
	}{
		{"prbcd", attack.Options{Epochs: 10}, "623b58b8b185aef9"},
		{"prbcd", attack.Options{Epochs: 10, BlockSize: 100_000}, "faaa76f126f6cf32"},
		{"grbcd", attack.Options{Epochs: 10}, "8e83a1315135fca7"},
		{"grbcd", attack.Options{Epochs: 10, BlockSize: 100_000}, "f7cbb36ff4bc41d5"},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range cases {
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			r, err := Run(context.Background(), Config{Attack: c.attack, Epsilons: []float64{0.05}, Seed: 0, Surrogate: gcn,
				Options: c.opts}, p)
			if err != nil {
				t.Fatal(err)
			}
			b := r.Budgets[0]
			got := flipDigest(b.Flips)
			t.Logf("%s block %d GOMAXPROCS %d: %d flips, accuracy %.4f → %.4f, digest %s", c.attack, c.opts.BlockSize,
				procs, len(b.Flips), r.AttackedClean, b.AttackedAccuracy, got)
			if got != c.want {
				t.Errorf("%s block %d GOMAXPROCS %d: flips digest %s, want %s", c.attack, c.opts.BlockSize, procs, got, c.want)
			}
		}
	}
}
