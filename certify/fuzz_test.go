package certify

import (
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fuzzseed"
	"github.com/rgnn/rgnn/npz"
)

// FuzzLoadVotes: a vote file never panics LoadVotes; what it accepts has
// matching, valid votes and pre-votes of at least one node and two classes,
// and probabilities in [0, 1]. Seeds: a file written by Smooth, one in the
// reference's two-array form and, when present, reference vote files.
func FuzzLoadVotes(f *testing.F) {
	_, path := smallVoteFile(f)
	for _, b := range fuzzseed.Files(f, path) {
		f.Add(b)
	}
	for _, b := range fuzzseed.NPZ(f, npz.I64("votes", []int{2, 2}, []int64{7, 3, 0, 10}), npz.I64("pre_votes", []int{2, 2}, []int64{1, 1, 2, 0})) {
		f.Add(b)
	}
	for _, b := range fuzzseed.Reference(f, 2, "smoothing_votes/*.npz") {
		f.Add(b)
	}
	file := fuzzseed.File(f, "votes.npz")
	f.Fuzz(func(t *testing.T, b []byte) {
		vf, err := LoadVotes(file(t, b))
		if err != nil {
			return
		}
		v, pv := vf.Votes, vf.PreVotes
		if v.Validate() != nil || pv.Validate() != nil || v.Nodes != pv.Nodes || v.Classes != pv.Classes || v.Nodes < 1 || v.Classes < 2 {
			t.Fatalf("accepted votes %d×%d (%d values), pre-votes %d×%d (%d values)",
				v.Nodes, v.Classes, len(v.Data), pv.Nodes, pv.Classes, len(pv.Data))
		}
		if vf.HasParams {
			for _, p := range []float64{vf.Sample.PPlusAdj, vf.Sample.PMinusAdj, vf.Sample.PPlusAtt, vf.Sample.PMinusAtt} {
				if !(p >= 0 && p <= 1) {
					t.Fatalf("accepted probability %v", p)
				}
			}
		}
	})
}

// TestLoadVotesShapes: vote arrays without nodes or with fewer than two
// classes are refused, including an empty [0, 2^31] array whose class
// count would size later buffers.
func TestLoadVotesShapes(t *testing.T) {
	for name, shape := range map[string][]int{"no classes": {3, 0}, "one class": {3, 1}, "no nodes": {0, 1 << 31}, "vector": {6}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]int64, n)
		b, err := npz.Encode(npz.I64("votes", shape, v), npz.I64("pre_votes", shape, v))
		if err != nil {
			t.Fatal(err)
		}
		_, err = LoadVotes(fuzzseed.WriteTemp(t, "v.npz", b))
		if err == nil || !strings.Contains(err.Error(), "want [nodes ≥ 1, classes ≥ 2]") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
