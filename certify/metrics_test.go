package certify

import (
	"math"
	"slices"
	"testing"
)

func TestQuantileDegreeEdges(t *testing.T) {
	deg := []int{1, 1, 1, 1, 2, 2, 3, 5, 8, 13}
	nodes := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if got := QuantileDegreeEdges(deg, nodes, 5); !slices.Equal(got, []int{1, 2, 3, 8}) {
		t.Errorf("5 bins: edges %v, want [1 2 3 8]", got)
	}
	if got := QuantileDegreeEdges(deg, nodes, 1); !slices.Equal(got, []int{1}) {
		t.Errorf("1 bin: edges %v", got)
	}
	if got := QuantileDegreeEdges(deg, []int{6, 7, 8, 9}, 2); !slices.Equal(got, []int{3, 8}) {
		t.Errorf("subset: edges %v, want [3 8]", got)
	}
}

// TestDegreeTableConsistent: the node-weighted mean of the bins' metrics is
// the overall metric.
func TestDegreeTableConsistent(t *testing.T) {
	rows := [][]int64{{9990, 5, 5}, {9000, 900, 100}, {7000, 2900, 100}, {5200, 4700, 100}, {100, 9800, 100}, {3400, 3300, 3300}, {20, 9960, 20}, {9999, 1, 0}}
	votes, pre := NewCounts(len(rows), 3), NewCounts(len(rows), 3)
	for i, r := range rows {
		for c, x := range r {
			votes.Data[i*3+c] = x
			pre.Data[i*3+c] = x / 100
		}
	}
	c, err := Compute(votes, pre, Params{PPlus: 0.001, PMinus: 0.4, Alpha: 0.05}, nil)
	if err != nil {
		t.Fatal(err)
	}
	labels := []int32{0, 0, 0, 1, 1, 0, 1, 0}
	nodes := []int{0, 1, 2, 3, 4, 5, 6, 7}
	deg := []int{1, 4, 2, 9, 1, 3, 2, 7}
	all, err := c.Metrics(labels, nodes)
	if err != nil {
		t.Fatal(err)
	}
	bins, err := c.DegreeTable(labels, nodes, deg, QuantileDegreeEdges(deg, nodes, 3))
	if err != nil {
		t.Fatal(err)
	}
	var sumNodes int
	var acc, avgRD float64
	for _, b := range bins {
		sumNodes += b.Nodes
		acc += b.AccumulatedCertifications * float64(b.Nodes)
		avgRD += b.AvgRadiusDel * float64(b.Nodes)
		if b.MinDegree > b.MaxDegree {
			t.Errorf("bin %+v", b)
		}
	}
	if sumNodes != len(nodes) {
		t.Errorf("bins hold %d nodes, want %d", sumNodes, len(nodes))
	}
	if math.Abs(acc/float64(sumNodes)-all.AccumulatedCertifications) > 1e-12 ||
		math.Abs(avgRD/float64(sumNodes)-all.AvgRadiusDel) > 1e-12 {
		t.Errorf("bins average to %v / %v, overall %v / %v", acc/float64(sumNodes), avgRD/float64(sumNodes),
			all.AccumulatedCertifications, all.AvgRadiusDel)
	}
	if _, err := c.Metrics(labels[:3], nodes); err == nil {
		t.Error("short labels: no error")
	}
	if _, err := c.Metrics(labels, []int{99}); err == nil {
		t.Error("bad node: no error")
	}
}

func TestComputeErrors(t *testing.T) {
	v := &Counts{Nodes: 2, Classes: 2, Data: []int64{5, 5, 7, 3}}
	good := Params{PPlus: 0.01, PMinus: 0.3, Alpha: 0.05}
	for name, tc := range map[string]struct {
		votes, pre *Counts
		p          Params
	}{
		"alpha":       {v, v, Params{PPlus: 0.01, PMinus: 0.3}},
		"no noise":    {v, v, Params{Alpha: 0.05}},
		"shape":       {v, &Counts{Nodes: 1, Classes: 2, Data: []int64{1, 1}}, good},
		"one class":   {&Counts{Nodes: 1, Classes: 1, Data: []int64{3}}, &Counts{Nodes: 1, Classes: 1, Data: []int64{3}}, good},
		"negative":    {&Counts{Nodes: 1, Classes: 2, Data: []int64{-1, 3}}, v, good},
		"ragged rows": {&Counts{Nodes: 2, Classes: 2, Data: []int64{1, 3, 2, 3}}, &Counts{Nodes: 2, Classes: 2, Data: []int64{1, 3, 2, 3}}, good},
		"too many":    {v, v, Params{PPlus: 0.01, PMinus: 0.3, Alpha: 0.05, NumSamples: 6}},
	} {
		if _, err := Compute(tc.votes, tc.pre, tc.p, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
