package npz_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rgnn/rgnn/npz"
)

// Write an archive that numpy.load opens (atomically: an interrupted write
// leaves no half-written file), then read it back: every array with its
// shape, converted to the type asked for.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "rgnn-npz")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "weights.npz")
	err = npz.WriteFile(path,
		npz.F32("w", []int{2, 3}, []float32{0.5, -1, 2, 0, 1.25, 3}),
		npz.I64("epoch", nil, []int64{42}))
	if err != nil {
		log.Fatal(err)
	}
	a, err := npz.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	w, shape, err := a.Float32("w")
	if err != nil {
		log.Fatal(err)
	}
	epoch, _, err := a.Float64("epoch") // int64 read as float64
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Keys(), shape, w, epoch)
	// Output:
	// [epoch w] [2 3] [0.5 -1 2 0 1.25 3] [42]
}
