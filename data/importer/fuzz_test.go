package importer

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fuzzseed"
	"github.com/rgnn/rgnn/npz"
)

// FuzzEdgeList: any text either reads as an edge list of ids below n with
// one edge per kept row, or ends in an *InputError naming the input; what
// it reads standardises to a symmetric graph without self loops.
func FuzzEdgeList(f *testing.F) {
	for _, s := range []string{"0,1\n1,2\n", "# c\nsrc\tdst\tw\n0\t1\t0.5\n2\t2\t1\n", "0 1 nan\n", "1,0,-1\n", "0,9\n",
		"a,b\n0,1\n", "0,1,1\n1,2\n", "%x\n\n3 0 1e400\n", "0.0,1.0\n"} {
		f.Add([]byte(s), uint8(4))
	}
	f.Fuzz(func(t *testing.T, b []byte, n8 uint8) {
		n := int(n8%16) + 1
		e, err := ReadEdgeList(bytes.NewReader(b), "edges.csv", n)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "edges.csv" || ie.Msg == "" {
				t.Fatalf("error %v (%T) is not an *InputError naming the file", err, err)
			}
			return
		}
		if len(e.Src) != len(e.Dst) || len(e.Src)+e.ZeroWeight != e.Rows {
			t.Fatalf("%d edges, %d zero weights, %d rows", len(e.Src), e.ZeroWeight, e.Rows)
		}
		for k := range e.Src {
			if e.Src[k] < 0 || int(e.Src[k]) >= n || e.Dst[k] < 0 || int(e.Dst[k]) >= n {
				t.Fatalf("edge (%d, %d) outside %d nodes", e.Src[k], e.Dst[k], n)
			}
		}
		adj, st := Standardise(n, e.Src, e.Dst)
		if err := adj.Validate(); err != nil {
			t.Fatal(err)
		}
		for r := range n {
			lo, hi := adj.RowRange(r)
			for _, c := range adj.Indices[lo:hi] {
				if int(c) == r {
					t.Fatal("self loop kept")
				}
				if _, ok := adj.Find(int(c), r); !ok {
					t.Fatal("not symmetric")
				}
			}
		}
		if 2*(adj.Nnz()/2) != adj.Nnz() || st.SelfLoops+st.Duplicates > len(e.Src) {
			t.Fatalf("stats %+v for %d edges, nnz %d", st, len(e.Src), adj.Nnz())
		}
	})
}

// FuzzPyG: any archive either reads as a PyG-style graph whose edges,
// features, labels and split are inside its node count, or ends in an error
// (never a panic).
func FuzzPyG(f *testing.F) {
	ei := []int64{0, 1, 2, 1, 2, 0}
	x := []float32{1, 0, 0, 1, 1, 1}
	y := []int64{0, 1, 0}
	for _, seed := range [][]npz.Entry{
		{npz.I64("edge_index", []int{2, 3}, ei), npz.F32("x", []int{3, 2}, x), npz.I64("y", []int{3}, y)},
		{npz.I64("edge_index", []int{2, 3}, ei), npz.F32("x", []int{3, 2}, x), npz.I64("y", []int{3, 1}, y),
			npz.F64("edge_weight", []int{3}, []float64{1, 0, 2}), npz.Bool("train_mask", []int{3}, []bool{true, false, false}),
			npz.Bool("val_mask", []int{3}, []bool{false, true, false}), npz.I64("test_mask", []int{1}, []int64{2})},
		{npz.I32("edge_index", []int{2, 3}, []int32{0, 1, 2, 1, 2, 3}), npz.I64("y", []int{3}, y)},
	} {
		for _, b := range fuzzseed.NPZ(f, seed...) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := npz.Read(bytes.NewReader(b), int64(len(b)), "g.npz")
		if err != nil {
			return
		}
		in, err := ReadPyG(a)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "g.npz") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		n := in.Nodes
		for k := range in.Edges.Src {
			if int(in.Edges.Src[k]) >= n || int(in.Edges.Dst[k]) >= n || in.Edges.Src[k] < 0 || in.Edges.Dst[k] < 0 {
				t.Fatalf("edge outside %d nodes", n)
			}
		}
		if in.Features != nil {
			if err := in.Features.Validate(); err != nil || in.Features.Rows != n {
				t.Fatalf("features: %v, %d rows for %d nodes", err, in.Features.Rows, n)
			}
		}
		for _, y := range in.Labels {
			if y < 0 || y >= maxLabel {
				t.Fatalf("label %d", y)
			}
		}
		if in.Split != nil {
			for _, part := range in.Split {
				for _, v := range part {
					if v < 0 || v >= n {
						t.Fatalf("split node %d outside %d nodes", v, n)
					}
				}
			}
		}
	})
}
