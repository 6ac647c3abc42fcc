package fuzzseed

import (
	"bytes"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/npz"
)

// TestNoCRC: the re-packed archive reads back the same, and a changed data
// byte is not refused for its checksum.
func TestNoCRC(t *testing.T) {
	seeds := NPZ(t, npz.F32("w", []int{2}, []float32{1, 2}))
	b := seeds[1]
	a, err := npz.Read(bytes.NewReader(b), int64(len(b)), "x")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, err := a.Float32("w"); err != nil || !slices.Equal(v, []float32{1, 2}) {
		t.Fatalf("%v %v", v, err)
	}
	i := bytes.Index(b, []byte{0, 0, 0x80, 0x3f}) // 1.0f
	c := slices.Clone(b)
	c[i+3] = 0x40 // 4.0f
	a, err = npz.Read(bytes.NewReader(c), int64(len(c)), "x")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := a.Float32("w"); v[0] != 4 {
		t.Fatalf("mutated value %v", v)
	}
	if _, err := npz.Read(bytes.NewReader(seeds[0]), int64(len(seeds[0])), "x"); err != nil {
		t.Fatal(err)
	}
}
