package unittest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data/unittest"
	"github.com/rgnn/rgnn/internal/fuzzseed"
	"github.com/rgnn/rgnn/internal/unittestfile"
	"github.com/rgnn/rgnn/npz"
)

// FuzzUnitTest: any archive either reads as a unit test whose graphs,
// splits and flips are inside its node counts, or ends in an error naming
// the file; never a panic.
func FuzzUnitTest(f *testing.F) {
	small := unittestfile.New(unittestfile.Options{Nodes: 12, Datasets: []string{"cora_ml"}, Models: []string{"gcn"}, Budgets: []string{"2"}})
	for _, b := range fuzzseed.NPZ(f, small.Entries()...) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := npz.Read(bytes.NewReader(b), int64(len(b)), "ut.npz")
		if err != nil {
			return
		}
		file, err := unittest.Read(a)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "ut.npz") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, d := range file.Datasets {
			n := len(d.Labels)
			if d.Adj.Rows != n || d.Features.Rows != n || d.Adj.Validate() != nil || d.Features.Validate() != nil {
				t.Fatalf("%s: shapes", d.Name)
			}
			for _, sp := range d.Splits {
				for _, part := range [][]int{sp.Train, sp.Val, sp.Test} {
					for _, v := range part {
						if v < 0 || v >= n {
							t.Fatalf("split node %d", v)
						}
					}
				}
			}
			for _, ps := range d.Perturbations {
				for _, p := range ps {
					if p.Split < 0 || p.Split >= len(d.Splits) {
						t.Fatalf("split %d", p.Split)
					}
					if err := d.Perturbed(p).Validate(); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	})
}
