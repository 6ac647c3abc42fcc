package npz

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestInt32(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npz")
	err := WriteFile(path,
		I32("i4", []int{3}, []int32{5, -6, 1 << 30}),
		I64("i8", []int{2}, []int64{-7, 1<<31 - 1}),
		I64("big", []int{1}, []int64{1 << 31}),
		F64("f", []int{2}, []float64{3, -4}),
		F64("frac", []int{1}, []float64{0.5}))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][]int32{"i4": {5, -6, 1 << 30}, "i8": {-7, 1<<31 - 1}, "f": {3, -4}} {
		got, _, err := a.Int32(key)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: %v %v, want %v", key, got, err, want)
		}
		wide, _, err := a.Int64(key)
		if err != nil || len(wide) != len(want) || wide[1] != int64(want[1]) {
			t.Fatalf("%s as int64: %v %v", key, wide, err)
		}
	}
	for _, key := range []string{"big", "frac"} {
		if v, _, err := a.Int32(key); err == nil {
			t.Fatalf("%s: %v accepted", key, v)
		}
	}
}
