package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// PPRGo is the local engine of the PPRGo models (pprgo, softmedian_pprgo):
// the logits of a target u aggregate the MLP outputs H = relu(X·W1)·W2 over
// u's top-k PPR row, so a change of u's own pairs changes u's logits
// through that row alone. EvaluateLocal updates the row locally
// (graph.LocalPPR: Sherman–Morrison on row u of the random walk from the
// clean top-k walk-PPR rows; the flips' effect on the rows of their other
// endpoints is ignored, the follow-up's approximation), applies the
// model's top-k and normalisation, aggregates the MLP outputs of the kept
// columns (the weighted sum, or the model's robust aggregation with its
// edge-weight gradient) and differentiates the loss back to the pair
// weights. An evaluation costs O((deg u + pairs)·k) plus the MLP of the
// kept columns not seen before (cached per engine); nothing is O(edges)
// or O(n·k) per call. Memory: the clean top-k matrix and its row sums
// (shared by Clone), O(n) scratch per engine.
//
// Evaluate (whole graphs, no gradient) recomputes the PPR rows of the
// targets on the given graph by push (graph.TopKPPR of the targets), the
// model's own preprocessing; PairGrad is not available (global attacks on
// PPRGo are not supported).
type PPRGo struct {
	sh  *pprgoShared
	lp  *graph.LocalPPR
	agg autograd.Aggregator // nil: the PPR-weighted sum

	hIndex map[int32]int32 // node → its row in hBuf
	hBuf   []float32
	hid    []float64
	out64  []float64

	w64, g64 []float64
	x        *tensor.Dense // the kept columns' H rows
	a        *tensor.CSR   // 1 × kept, the normalised row
	logits   *tensor.Dense
	gl       *tensor.Dense
	gvals    []float32
	gx       []float64
	aggState any
}

// pprgoShared is what the engines of one model share, read-only.
type pprgoShared struct {
	name   string
	parts  model.PPRGoParts
	x      *tensor.CSR // features
	adj    *tensor.CSR
	lp     *graph.LocalPPR // template for Clone
	hidden int
	c      int
}

// maxHCache bounds an engine's cache of MLP outputs (floats); past it the
// cache starts over.
const maxHCache = 1 << 24

// NewPPRGo returns the local engine of a PPRGo model m on p: the clean
// top-k PPR of every node is computed here (graph.TopKPPRScaled with the
// model's α, push error and k). Any other model is an error.
func NewPPRGo(m model.Model, p *data.Problem) (*PPRGo, error) {
	parts, ok := model.PPRGoParams(m)
	if !ok {
		return nil, fmt.Errorf("attack: the PPRGo engine needs a PPRGo model (pprgo, softmedian_pprgo), got %s", m.Name())
	}
	pi, sums, err := graph.TopKPPRScaled(p.Adj, nil, parts.Alpha, parts.Eps, parts.K, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("attack: %s engine: %w", m.Name(), err)
	}
	return NewPPRGoFromRows(m, p, pi, sums)
}

// NewPPRGoFromRows is NewPPRGo with the clean top-k PPR matrix of every node
// and its row sums given (graph.TopKPPRScaled of p.Adj with the model's
// parameters), for callers that computed or stored them.
func NewPPRGoFromRows(m model.Model, p *data.Problem, pi *tensor.CSR, sums []float64) (*PPRGo, error) {
	parts, ok := model.PPRGoParams(m)
	if !ok {
		return nil, fmt.Errorf("attack: the PPRGo engine needs a PPRGo model (pprgo, softmedian_pprgo), got %s", m.Name())
	}
	if parts.W1.Rows != p.Features.Cols || parts.W2.Rows != parts.W1.Cols {
		return nil, fmt.Errorf("attack: %s weights %s, %s do not fit %d features", m.Name(), parts.W1.Shape(), parts.W2.Shape(), p.Features.Cols)
	}
	rows, err := graph.WalkRows(p.Adj, pi, sums)
	if err != nil {
		return nil, fmt.Errorf("attack: %s engine: %w", m.Name(), err)
	}
	lp, err := graph.NewLocalPPR(p.Adj, rows, parts.Alpha)
	if err != nil {
		return nil, fmt.Errorf("attack: %s engine: %w", m.Name(), err)
	}
	parts.W1, parts.W2 = parts.W1.Clone(), parts.W2.Clone()
	sh := &pprgoShared{name: m.Name(), parts: parts, x: p.Features, adj: p.Adj, lp: lp,
		hidden: parts.W1.Cols, c: parts.W2.Cols}
	return newPPRGoEngine(sh, lp)
}

func newPPRGoEngine(sh *pprgoShared, lp *graph.LocalPPR) (*PPRGo, error) {
	e := &PPRGo{sh: sh, lp: lp, hIndex: map[int32]int32{}, hid: make([]float64, sh.hidden), out64: make([]float64, sh.c),
		logits: tensor.NewDense(1, sh.c), gl: tensor.NewDense(1, sh.c)}
	if sh.parts.NewAggregator != nil {
		a, err := sh.parts.NewAggregator()
		if err != nil {
			return nil, fmt.Errorf("attack: %s engine: %w", sh.name, err)
		}
		e.agg = a
	}
	return e, nil
}

// Clone returns an independent engine of the same model that shares the
// clean PPR rows and weights (one per worker).
func (e *PPRGo) Clone() (attack.Engine, error) {
	return newPPRGoEngine(e.sh, e.sh.lp.Clone())
}

// AnyPair implements attack.Engine: every pair (u, v) can change.
func (e *PPRGo) AnyPair() bool { return true }

// PairGrad implements attack.Engine: not available (EvaluateLocal returns
// the gradients of local changes).
func (e *PPRGo) PairGrad([]attack.Flip, []float32) error {
	return fmt.Errorf("attack: the %s engine differentiates changes of one target's pairs only (local_prbcd)", e.sh.name)
}

// Evaluate implements attack.Engine without gradients: the targets' top-k
// PPR rows pushed on w (the model's preprocessing of w at the targets),
// then the aggregation. With grad it fails: PPRGo has gradients for local
// changes only.
func (e *PPRGo) Evaluate(w *tensor.CSR, loss attack.Loss, targets []int, labels []int32, grad bool) (attack.Eval, error) {
	if grad {
		return attack.Eval{}, fmt.Errorf("attack: the %s engine has no whole-graph gradient; local attacks (local_prbcd) use EvaluateLocal", e.sh.name)
	}
	if len(targets) == 0 {
		return attack.Eval{}, errors.New("attack: no targets")
	}
	pa := e.sh.parts
	pi, err := graph.TopKPPR(w, targets, pa.Alpha, pa.Eps, pa.K, 1)
	if err != nil {
		return attack.Eval{}, fmt.Errorf("attack: %s engine: %w", e.sh.name, err)
	}
	logits := tensor.NewDense(len(targets), e.sh.c)
	idx := make([]int, len(targets))
	lab := make([]int32, len(targets))
	for r, u := range targets {
		lo, hi := pi.RowRange(r)
		if err := e.aggregate(pi.Indices[lo:hi], pi.Values[lo:hi], false); err != nil {
			return attack.Eval{}, err
		}
		copy(logits.Row(r), e.logits.Data)
		idx[r], lab[r] = r, labels[u]
	}
	if err := logits.CheckFinite(e.sh.name + " logits"); err != nil {
		return attack.Eval{}, err
	}
	gl := tensor.NewDense(len(targets), e.sh.c)
	ev := attack.Eval{Loss: loss(logits, idx, lab, gl)}
	for r := range targets {
		if logits.ArgmaxRow(r) == int(lab[r]) {
			ev.Accuracy++
		}
	}
	ev.Accuracy /= float64(len(targets))
	return ev, nil
}

// EvaluateLocal implements attack.LocalEngine.
func (e *PPRGo) EvaluateLocal(u int, label int32, v []int32, w []float32, loss attack.Loss, grad []float32) (attack.LocalEval, error) {
	n := e.sh.adj.Rows
	if u < 0 || u >= n {
		return attack.LocalEval{}, fmt.Errorf("attack: target %d outside [0, %d)", u, n)
	}
	if int(label) < 0 || int(label) >= e.sh.c {
		return attack.LocalEval{}, fmt.Errorf("attack: label %d outside [0, %d)", label, e.sh.c)
	}
	if grad != nil && len(grad) != len(v) {
		return attack.LocalEval{}, fmt.Errorf("attack: %d gradients for %d pairs", len(grad), len(v))
	}
	e.w64 = e.w64[:0]
	for _, x := range w {
		e.w64 = append(e.w64, float64(x))
	}
	if err := e.lp.Update(u, v, e.w64); err != nil {
		return attack.LocalEval{}, fmt.Errorf("attack: %s engine: %w", e.sh.name, err)
	}
	cols, vals, err := e.lp.TopK(e.sh.parts.K)
	if err != nil {
		return attack.LocalEval{}, err
	}
	vals32 := e.gvals[:0]
	for _, x := range vals {
		vals32 = append(vals32, float32(x))
	}
	e.gvals = vals32
	if err := e.aggregate(cols, vals32, grad != nil); err != nil {
		return attack.LocalEval{}, err
	}
	if err := e.logits.CheckFinite(e.sh.name + " logits"); err != nil {
		return attack.LocalEval{}, err
	}
	ev := attack.LocalEval{Logits: e.logits.Data}
	ev.Loss = loss(e.logits, []int{0}, []int32{label}, e.gl)
	if e.logits.ArgmaxRow(0) == int(label) {
		ev.Accuracy = 1
	}
	if grad == nil {
		return ev, nil
	}
	// ∂loss/∂(kept values), then back through the local update
	e.gx = e.gx[:0]
	if e.agg == nil {
		gl := e.gl.Data
		for t := range cols {
			h := e.x.Row(t)
			var s float64
			for c, g := range gl {
				s += float64(g) * float64(h[c])
			}
			e.gx = append(e.gx, s)
		}
	} else {
		gv := make([]float32, len(cols))
		e.agg.Backward(e.aggState, e.gl, nil, gv)
		for _, g := range gv {
			e.gx = append(e.gx, float64(g))
		}
	}
	e.g64 = growF64(e.g64, len(v))
	clear(e.g64)
	if err := e.lp.TopKBackward(e.gx, e.g64); err != nil {
		return attack.LocalEval{}, err
	}
	for c, g := range e.g64 {
		grad[c] = float32(g)
	}
	return ev, nil
}

func growF64(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// hRow returns the MLP output relu(x_v·W1)·W2 of node v (float32 storage,
// float64 sums; the same bits whoever asks first), cached.
func (e *PPRGo) hRow(v int32) []float32 {
	c := e.sh.c
	if o, ok := e.hIndex[v]; ok {
		return e.hBuf[o : o+int32(c)]
	}
	if len(e.hBuf)+c > maxHCache {
		clear(e.hIndex)
		e.hBuf = e.hBuf[:0]
	}
	w1, w2, x := e.sh.parts.W1, e.sh.parts.W2, e.sh.x
	clear(e.hid)
	lo, hi := x.RowRange(int(v))
	for k := lo; k < hi; k++ {
		xv := float64(x.Values[k])
		for j, w := range w1.Row(int(x.Indices[k])) {
			e.hid[j] += xv * float64(w)
		}
	}
	clear(e.out64)
	for j, h := range e.hid {
		hj := float64(float32(max(h, 0)))
		if hj == 0 {
			continue
		}
		for cc, w := range w2.Row(j) {
			e.out64[cc] += hj * float64(w)
		}
	}
	o := int32(len(e.hBuf))
	for _, s := range e.out64 {
		e.hBuf = append(e.hBuf, float32(s))
	}
	e.hIndex[v] = o
	return e.hBuf[o : o+int32(c)]
}

// aggregate writes the aggregation of the MLP outputs of cols with weights
// vals into e.logits (e.x holds their rows afterwards); forBackward keeps
// what the aggregation's Backward needs in e.aggState.
func (e *PPRGo) aggregate(cols []int32, vals []float32, forBackward bool) error {
	k, c := len(cols), e.sh.c
	if e.x == nil || cap(e.x.Data) < k*c {
		e.x = tensor.NewDense(max(k, 1), c)
	}
	e.x.Rows, e.x.Data = k, e.x.Data[:k*c]
	for t, v := range cols {
		copy(e.x.Row(t), e.hRow(v))
	}
	e.logits.Zero()
	e.aggState = nil
	if k == 0 {
		return nil
	}
	if e.agg == nil {
		clear(e.out64)
		for t, w := range vals {
			wt := float64(w)
			for cc, h := range e.x.Row(t) {
				e.out64[cc] += wt * float64(h)
			}
		}
		for cc, s := range e.out64 {
			e.logits.Data[cc] = float32(s)
		}
		return nil
	}
	if e.a == nil || cap(e.a.Indices) < k {
		e.a = &tensor.CSR{Rows: 1, Indptr: make([]int, 2), Indices: make([]int32, k)}
		for t := range e.a.Indices {
			e.a.Indices[t] = int32(t)
		}
	}
	e.a.Cols, e.a.Indptr[1], e.a.Indices, e.a.Values = k, k, e.a.Indices[:k], vals
	if ba, ok := e.agg.(autograd.BackwardAggregator); ok && forBackward {
		e.aggState = ba.ForwardForBackward(e.a, e.x, e.logits)
	} else {
		e.aggState = e.agg.Forward(e.a, e.x, e.logits)
	}
	if math.IsNaN(float64(e.logits.Data[0])) {
		return fmt.Errorf("attack: %s engine: NaN logits", e.sh.name)
	}
	return nil
}
