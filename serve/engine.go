package serve

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// How a model's logits follow the graph.
const (
	// modeFull recomputes the preprocessing and the forward pass of the
	// whole graph (exact GDC, gcn, SVD, ...): in the background, the last
	// consistent version served meanwhile.
	modeFull = "full"
	// modePushRows: PPRGo models; an edit recomputes the top-k PPR rows it
	// reaches (graph.DynamicPPR) and the logits of exactly those rows.
	modePushRows = "incremental (push-PPR rows and their logits)"
	// modePushGDC: GDC models with a push PPR; an edit recomputes the PPR
	// rows it reaches, then gcn_norm and the layers over the whole graph
	// (a forward pass, without the diffusion).
	modePushGDC = "incremental (push-PPR rows; layers on the whole graph)"
	// modePushGDCRows: modePushGDC for a model.RowsStaged model. A
	// version is served as soon as its PPR rows are: a small prediction
	// runs the layers at its own nodes (lazyRows), and the layers run on
	// the whole graph once updates pause (Options.FillDelay) or larger
	// predictions ask for it (lazyMaxNodes).
	modePushGDCRows = "incremental (push-PPR rows; layers at the requested nodes, on the whole graph once updates pause)"
)

// engine keeps the logits of a model on a changing graph. One goroutine at
// a time calls it.
type engine struct {
	m      model.Model
	mode   string
	staged model.FeatureStaged // nil: Forward from the features
	pprgo  bool
	dyn    *graph.DynamicPPR // push modes
	// h is the feature stage of feats (staged models).
	h     *tensor.Dense
	feats *tensor.CSR
	x     *autograd.Sparse
	// workers for the pushes (≤ 0: GOMAXPROCS).
	workers int
	// agg1 (push GDC with the Soft Medoid, within distCacheBudget) is the
	// first layer's aggregation reusing the distances of the rows whose
	// top-k columns an update left as they were; nil: the model's own.
	agg1 *cachedMedoid
	// tape keeps the forward's buffers between updates (inference).
	tape     *autograd.Tape
	tapeRows int
	// replicas (modePushGDCRows) are copies of m for lazyRows.
	replicas *replicaPool
}

// lazyRows computes the logits of a few nodes of one version whose layers
// have not run on the whole graph (model.RowsStaged on its diffused graph
// and feature stage, both immutable), on a replica of the model: safe for
// concurrent use, beside the engine.
type lazyRows struct {
	mg   *model.Graph
	h    *tensor.Dense
	pool *replicaPool
	// demand counts the nodes predictions asked lazyRows for (take).
	demand atomic.Int64
}

// A prediction of a lazy version computes its nodes itself when it asks for
// at most lazyMaxNodes and the version's predictions so far asked for at
// most lazyFillNodes in all; otherwise it has the engine fill the table
// (about as costly as lazyFillNodes nodes computed one by one: on cora_ml
// ~2 CPU-ms a node without the kept distances, ~30 for the whole table
// with them) and reads it. A stream of updates with a prediction of an
// endpoint each never fills; predictions of many nodes beside updates do.
const (
	lazyMaxNodes  = 4
	lazyFillNodes = 16
)

// take reports whether a prediction of k nodes should compute them here
// (and counts them) rather than wait for the table.
func (l *lazyRows) take(k int) bool {
	return k <= lazyMaxNodes && l.demand.Add(int64(k)) <= lazyFillNodes
}

// rows returns the logits of nodes (row i: node nodes[i]).
func (l *lazyRows) rows(nodes []int) (*tensor.Dense, error) {
	m, err := l.pool.get()
	if err != nil {
		return nil, err
	}
	defer l.pool.put(m)
	return m.ForwardStagedRows(l.mg, l.h, nodes), nil
}

// replicaPool keeps the model replicas that lazyRows use, one per
// concurrent call, made on demand.
type replicaPool struct {
	mu   sync.Mutex
	free []model.RowsStaged
	make func() (model.Model, error)
}

func (p *replicaPool) get() (model.RowsStaged, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		m := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return m, nil
	}
	p.mu.Unlock()
	m, err := p.make()
	if err != nil {
		return nil, fmt.Errorf("a replica of the model: %w", err)
	}
	r, ok := m.(model.RowsStaged)
	if !ok {
		return nil, fmt.Errorf("model %s cannot compute the logits of single nodes", m.Name())
	}
	return r, nil
}

func (p *replicaPool) put(m model.RowsStaged) {
	p.mu.Lock()
	p.free = append(p.free, m)
	p.mu.Unlock()
}

// distCacheBudget bounds the memory of the first layer's kept distances
// (k² float32 per node: 46 MB for cora_ml at k = 64; arXiv size would
// need 2.8 GB and runs without).
const distCacheBudget = 512 << 20

// cachedMedoid is a Soft Medoid aggregation whose Forward keeps the rows'
// distances for the next one (aggregate.DistCache): the same bits as the
// model's own, for inference only.
type cachedMedoid struct {
	m     *aggregate.SoftKMedoid
	cache aggregate.DistCache
}

func (c *cachedMedoid) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	return c.m.ForwardCached(a, x, out, &c.cache)
}

func (c *cachedMedoid) Backward(any, *tensor.Dense, *tensor.Dense, []float32) {
	panic("serve: the cached aggregation is for inference only")
}

// newEngine picks how m's logits follow the graph. replica (nil: none)
// makes copies of m, with its weights, for the lazy rows of
// modePushGDCRows.
func newEngine(m model.Model, workers int, replica func() (model.Model, error)) *engine {
	e := &engine{m: m, mode: modeFull, workers: workers}
	e.staged, _ = m.(model.FeatureStaged)
	if _, ok := model.PPRGoParams(m); ok && e.staged != nil {
		e.mode, e.pprgo = modePushRows, true
	} else if cfg, ok := model.GDCParams(m); ok && cfg.Eps > 0 && e.staged != nil {
		e.mode = modePushGDC
		if _, rows := m.(model.RowsStaged); rows && replica != nil {
			e.mode, e.replicas = modePushGDCRows, &replicaPool{make: replica}
		}
	}
	return e
}

// useDistCache gives a push GDC Soft Medoid model on n nodes the cached
// first-layer aggregation when its distances fit distCacheBudget.
func (e *engine) useDistCache(n int) {
	r, ok := e.m.(*model.RGNN)
	if e.mode != modePushGDC && e.mode != modePushGDCRows || !ok {
		return
	}
	sm, ok := r.FirstAggregation().(*aggregate.SoftKMedoid)
	_, _, k := e.pushParams()
	if k = min(k, n) + 1; ok && int64(n)*int64(k)*int64(k)*4 <= distCacheBudget { // +1: the self loop
		e.agg1 = &cachedMedoid{m: sm}
	}
}

// pushParams are the push PPR's alpha, eps and k of a push-mode model.
func (e *engine) pushParams() (alpha, eps float64, k int) {
	if p, ok := model.PPRGoParams(e.m); ok {
		return p.Alpha, p.Eps, p.K
	}
	cfg, _ := model.GDCParams(e.m)
	return cfg.Alpha, cfg.Eps, cfg.K
}

// setFeatures computes the feature stage when the features changed.
func (e *engine) setFeatures(f *tensor.CSR) {
	if e.feats == f {
		return
	}
	e.feats, e.x = f, autograd.NewSparse(f)
	if e.staged != nil {
		e.h = e.staged.FeatureStage(e.x)
	}
}

// forward runs the layers on mg (rows of mg.S: all nodes, or a subset for
// PPRGo). A forward over every node that will run again (all but PPRGo's,
// which updates rows) keeps its buffers in the engine's tape for the next
// one (the same shapes while the graph does not grow) and returns a copy of
// the logits; the others run on a tape of their own.
func (e *engine) forward(mg *model.Graph) *tensor.Dense {
	rows := e.feats.Rows // svd_gcn's low-rank graph (mg.SVD) covers every node
	if mg.S != nil {
		rows = mg.S.A.Rows
	}
	if e.pprgo || rows < e.feats.Rows {
		return e.forwardOn(autograd.NoGrad(), mg)
	}
	if e.tape == nil || e.tapeRows != rows {
		e.tape, e.tapeRows = autograd.NoGrad(), rows
	}
	defer e.tape.Reset()
	return e.forwardOn(e.tape, mg).Clone()
}

// forwardOn is the forward pass on tp.
func (e *engine) forwardOn(tp *autograd.Tape, mg *model.Graph) *tensor.Dense {
	switch {
	case e.agg1 != nil:
		return e.m.(*model.RGNN).ForwardStagedWith(tp, mg, e.h, e.agg1).Value
	case e.staged != nil:
		return e.staged.ForwardStaged(tp, mg, e.h).Value
	}
	return e.m.Forward(tp, mg, e.x, model.Mode{}).Value
}

// init computes the logits of g from scratch.
func (e *engine) init(g *graphState) (*logitTable, error) {
	e.setFeatures(g.feats)
	switch e.mode {
	case modePushRows, modePushGDC, modePushGDCRows:
		alpha, eps, k := e.pushParams()
		d, err := graph.NewDynamicPPR(g.adj, alpha, eps, min(k, g.nodes()), e.workers)
		if err != nil {
			return nil, fmt.Errorf("%s preprocessing: %w", e.m.Name(), err)
		}
		e.dyn = d
		e.useDistCache(g.nodes())
		return e.fromMatrix()
	}
	mg, err := e.m.Preprocess(g.adj, g.feats)
	if err != nil {
		return nil, err
	}
	return e.table(mg)
}

// table is the logits table of the whole graph mg, refused when a logit is
// not finite: JSON carries no NaN, and such a version is not served (the
// previous one stays, /v1/health says why). svd_gcn's graph after an edit
// can make every logit NaN as the reference's would be (a negative row
// sum of its rank-50 L + I: model.Graph.ReferenceNaN).
func (e *engine) table(mg *model.Graph) (*logitTable, error) {
	z := e.forward(mg)
	if err := mg.CheckLogits(e.m.Name(), z); err != nil {
		return nil, err
	}
	return tableFrom(z), nil
}

// fromMatrix is the logits of every node from the push PPR matrix.
func (e *engine) fromMatrix() (*logitTable, error) {
	pi := e.dyn.Matrix()
	if e.pprgo {
		return tableFrom(e.forward(model.PPRGoGraph(pi))), nil
	}
	mg, err := model.DiffusedGraph(e.m, pi)
	if err != nil {
		return nil, err
	}
	return e.table(mg)
}

// update brings the logits prev (of the engine's last graph; nil after a
// lazy version) to g, whose rows changed are the only ones that differ
// (new nodes included); it returns the new logits — or, in
// modePushGDCRows, nil and the lazy rows of g (fill computes the table) —
// and how many PPR rows were recomputed (push modes).
func (e *engine) update(prev *logitTable, g *graphState, changed []int) (*logitTable, *lazyRows, int, error) {
	if e.mode == modeFull {
		t, err := e.init(g)
		return t, nil, 0, err
	}
	e.setFeatures(g.feats)
	redo, err := e.dyn.Update(g.adj, changed, e.workers)
	if err != nil {
		return nil, nil, 0, err
	}
	if e.replicas != nil {
		mg, err := model.DiffusedGraph(e.m, e.dyn.Matrix())
		if err != nil {
			return nil, nil, 0, err
		}
		return nil, &lazyRows{mg: mg, h: e.h, pool: e.replicas}, len(redo), nil
	}
	if !e.pprgo {
		t, err := e.fromMatrix()
		return t, nil, len(redo), err
	}
	// New nodes gave h new rows (setFeatures); the stage is row-wise, so
	// the other rows kept their values and their logits.
	logits := e.forward(model.PPRGoGraph(e.dyn.Rows(redo)))
	return prev.with(redo, logits, g.nodes()), nil, len(redo), nil
}

// settle does what the last update left for later (the push-PPR index:
// graph.DynamicPPR.Settle), once its version is served.
func (e *engine) settle() {
	if e.dyn != nil {
		e.dyn.Settle()
	}
}

// fill runs the layers of a lazy version (the engine's latest) on the
// whole graph.
func (e *engine) fill(l *lazyRows) *logitTable {
	return tableFrom(e.forward(l.mg))
}

// chunkRows is the number of rows a logitTable copies together: an update
// copies its rows' chunks and the list of chunks, about
// rows·chunkRows·C·4 + n/chunkRows·24 bytes (arXiv size, 842 rows, C = 40:
// 2.2 MB + 0.25 MB at 16, against 8.6 MB at 64).
const chunkRows = 16

// logitTable holds the n×C logits in chunks of chunkRows rows, copied on
// write: an update that changes a few rows copies their chunks and the
// list of chunks, and a reader holding the old table keeps a consistent
// version.
type logitTable struct {
	n, c   int
	chunks [][]float32
}

// tableFrom wraps a dense n×C matrix.
func tableFrom(d *tensor.Dense) *logitTable {
	t := &logitTable{n: d.Rows, c: d.Cols}
	for lo := 0; lo < d.Rows; lo += chunkRows {
		hi := min(lo+chunkRows, d.Rows)
		t.chunks = append(t.chunks, d.Data[lo*d.Cols:hi*d.Cols:hi*d.Cols])
	}
	return t
}

// row returns node i's logits (read only).
func (t *logitTable) row(i int) []float32 {
	c := t.chunks[i/chunkRows]
	j := i % chunkRows
	return c[j*t.c : (j+1)*t.c]
}

// with returns the table with rows[j] set to row j of vals, grown to n rows.
func (t *logitTable) with(rows []int, vals *tensor.Dense, n int) *logitTable {
	out := &logitTable{n: n, c: t.c, chunks: make([][]float32, (n+chunkRows-1)/chunkRows)}
	copy(out.chunks, t.chunks)
	copied := make([]bool, len(out.chunks))
	for j, i := range rows {
		ci := i / chunkRows
		if !copied[ci] {
			size := (min((ci+1)*chunkRows, n) - ci*chunkRows) * t.c
			c := make([]float32, size)
			if ci < len(t.chunks) {
				copy(c, t.chunks[ci])
			}
			out.chunks[ci], copied[ci] = c, true
		}
		copy(out.row(i), vals.Data[j*vals.Cols:(j+1)*vals.Cols])
	}
	return out
}
