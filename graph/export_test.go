package graph

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/rgnn/rgnn/tensor"
)

// PushFrom pushes from each source in turn on one worker, with the push's
// prefetching on or off, and returns the estimates p (keep false: none) and
// the time the pushes took (the set-up excluded).
func PushFrom(a *tensor.CSR, alpha, eps float64, sources []int, prefetch, keep bool) ([][]float64, time.Duration, error) {
	g, err := newDiffusionGraph(a)
	if err != nil {
		return nil, 0, err
	}
	run := newPushRun(g, alpha, eps)
	run.pg.prefetch = prefetch
	w := newPushWorker(len(run.pg.keep), run.thresh)
	var out [][]float64
	var took time.Duration
	for _, u := range sources {
		t0 := time.Now()
		w.push(run.pg, u)
		took += time.Since(t0)
		if keep {
			p := make([]float64, len(w.node))
			for v := range p {
				p[v] = w.node[v].p
			}
			out = append(out, p)
		}
	}
	return out, took, nil
}

// IndexError reports how the popped-set index differs from the inverse of
// the rows' popped sets (nil: it is their inverse, entry for entry); call
// it after Settle.
func (d *DynamicPPR) IndexError() error {
	want := make([][]int32, len(d.poppedBy))
	for i, ps := range d.popped {
		for _, v := range ps {
			want[v] = append(want[v], int32(i))
		}
	}
	for v := range want {
		got := slices.Clone(d.poppedBy[v])
		slices.Sort(got)
		if !slices.Equal(got, want[v]) {
			return fmt.Errorf("node %d: popped by %v, index says %v", v, want[v], got)
		}
	}
	return nil
}

// PoppedError reports how the popped sets and masses kept by d differ from
// those of a fresh DynamicPPR of the current graph (nil: the same sets,
// and masses to the bit).
func (d *DynamicPPR) PoppedError() error {
	f, err := NewDynamicPPR(d.adj, d.alpha, d.eps, d.k, 1)
	if err != nil {
		return err
	}
	for i := range d.popped {
		got, want := map[int32]float32{}, map[int32]float32{}
		for j, v := range d.popped[i] {
			got[v] = d.mass[i][j]
		}
		for j, v := range f.popped[i] {
			want[v] = f.mass[i][j]
		}
		if len(got) != len(want) {
			return fmt.Errorf("row %d: %d popped nodes kept, %d in a fresh push", i, len(got), len(want))
		}
		for v, m := range want {
			if g, ok := got[v]; !ok || g != m {
				return fmt.Errorf("row %d: node %d: mass %v kept (%v), %v in a fresh push", i, v, g, ok, m)
			}
		}
	}
	return nil
}

// ExactGDCGroups is ExactGDC (dense: ExactGDCDense's whole S too) with the
// components grouped up to groupRows rows per solve (< 0: the whole graph
// in one solve).
func ExactGDCGroups(a *tensor.CSR, alpha float64, k, groupRows int, dense bool) (*tensor.CSR, []float32, error) {
	g, err := newDiffusionGraph(a)
	if err != nil {
		return nil, nil, err
	}
	kk := k
	if kk < 1 || kk > g.n {
		kk = g.n
	}
	res := newRowResults(g.n, kk)
	res.groupRows = groupRows
	if dense {
		res.dense = make([]float32, g.n*g.n)
	}
	if err := g.exactRowsCG(alpha, res); err != nil {
		return nil, nil, err
	}
	return res.csr(), res.dense, nil
}

// CGGroups is the number of groups ExactGDC solves a's components in, up to
// rows rows each (0: cgGroupRows; 1: a connected graph).
func CGGroups(a *tensor.CSR, rows int) (int, error) {
	g, err := newDiffusionGraph(a)
	if err != nil {
		return 0, err
	}
	return max(1, len(g.cgGroups(cmp.Or(rows, cgGroupRows)))), nil
}
