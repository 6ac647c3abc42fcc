package graph

import (
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// nodePushMax is the largest node set TopKPPR pushes without preparing the
// whole graph: each push then reads only the rows it reaches (degrees,
// thresholds and push weights computed on the way), so a target's row of a
// perturbed Products-sized graph costs its push instead of O(edges) time
// and a float64 copy of the graph.
const nodePushMax = 16

// nodePush is the push of TopKPPR from one source on the CSR itself: the
// same updates in the same order as pushWorker.push in sparse mode on the
// prepared push graph (pushGraph, leafTasks), so the same bits. Its arrays
// are O(n), allocated once per TopKPPR call and reset where a push wrote.
type nodePush struct {
	a          *tensor.CSR
	alpha, eps float64
	deg        []float64 // d̃ (0: not computed yet)
	degSet     []int32
	p, r       []float64
	seen       []bool
	touched    []int32
	queue      []int32
	row        []candidate
	sel        topKSelector
	// the push-graph row of the last pushRow call
	rowIdx   []int32
	rowScale []float64
}

func newNodePush(a *tensor.CSR, alpha, eps float64) *nodePush {
	n := a.Rows
	return &nodePush{a: a, alpha: alpha, eps: eps, deg: make([]float64, n),
		p: make([]float64, n), r: make([]float64, n), seen: make([]bool, n)}
}

// degree is d̃_v with newDiffusionGraph's arithmetic.
func (w *nodePush) degree(v int32) float64 {
	if d := w.deg[v]; d != 0 {
		return d
	}
	d := diffusionDegree(w.a, int(v))
	w.deg[v] = d
	w.degSet = append(w.degSet, v)
	return d
}

// pushRow sets rowIdx and rowScale to row v of the push graph and returns
// keep_v (newPushGraph's arithmetic).
func (w *nodePush) pushRow(v int32) float64 {
	a, i, alpha := w.a, int(v), w.alpha
	d := w.degree(v)
	self := 1.0 // Â_ii: the inserted self loop, or A_ii + 1
	for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
		if int(a.Indices[k]) == i {
			self = float64(a.Values[k]) + 1
		}
	}
	f := 1 / (1 - (1-alpha)*self/d)
	w.rowIdx, w.rowScale = w.rowIdx[:0], w.rowScale[:0]
	for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
		if x := a.Indices[k]; int(x) != i && a.Values[k] > 0 {
			w.rowIdx = append(w.rowIdx, x)
			w.rowScale = append(w.rowScale, (1-alpha)*float64(a.Values[k])/d*f)
		}
	}
	return alpha * f
}

// pushLen is the length of row v of the push graph.
func (w *nodePush) pushLen(v int32) int {
	a, i, c := w.a, int(v), 0
	for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
		if int(a.Indices[k]) != i && a.Values[k] > 0 {
			c++
		}
	}
	return c
}

// reset clears what the last push wrote.
func (w *nodePush) reset() {
	for _, v := range w.touched {
		w.p[v], w.r[v], w.seen[v] = 0, 0, false
	}
	w.touched = w.touched[:0]
}

// push runs the FIFO push from u (pushWorker.push, sparse mode).
func (w *nodePush) push(u int32) {
	w.reset()
	w.degree(u)
	w.r[u] = 1
	w.touched = append(w.touched, u)
	w.seen[u] = true
	w.queue = append(w.queue[:0], u)
	for head := 0; head < len(w.queue); head++ {
		v := w.queue[head]
		rv := w.r[v]
		w.r[v] = 0
		keep := w.pushRow(v)
		w.p[v] += keep * rv
		for j, x := range w.rowIdx {
			thr := w.eps * w.degree(x)
			old := w.r[x]
			nr := old + rv*w.rowScale[j]
			w.r[x] = nr
			if !w.seen[x] {
				w.seen[x] = true
				w.touched = append(w.touched, x)
			}
			if nr >= thr && old < thr {
				w.queue = append(w.queue, x)
			}
		}
	}
}

// topK returns the top-kk entries of the source u's row as TopKPPR selects
// them (a leaf hanging off a root derived from the root's push, as
// pushTopK derives it).
func (w *nodePush) topK(u int32, kk int) []candidate {
	self, scale, keep := int32(-1), 1.0, 0.0
	src := u
	if w.pushLen(u) == 1 {
		w.pushRow(u)
		x := w.rowIdx[0]
		if w.pushLen(x) != 1 { // u is a leaf of the root x
			self, scale = u, w.rowScale[0]
			keep = w.pushRow(u)
			src = x
		}
	}
	w.push(src)
	w.row = w.row[:0]
	selfSeen := self < 0
	for _, v := range w.touched {
		pv := scale * w.p[v]
		if v == self {
			pv += keep
			selfSeen = true
		}
		if pv > 0 {
			w.row = append(w.row, candidate{col: v, val: pv * (1 / math.Sqrt(w.degree(v)))})
		}
	}
	if !selfSeen && keep > 0 {
		w.row = append(w.row, candidate{col: self, val: keep * (1 / math.Sqrt(w.degree(self)))})
	}
	return w.sel.selectTopK(w.row, kk)
}
