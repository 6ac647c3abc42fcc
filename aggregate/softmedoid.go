package aggregate

import (
	"math"
	"slices"

	"github.com/rgnn/rgnn/tensor"
)

// SoftKMedoid is the weighted Soft Medoid over the top-k neighbourhood
// (Eq. 6-7 of the paper; reference soft_weighted_medoid_k_neighborhood). For
// row v with top-k entries (w_a, j_a) by weight (ties: column ascending):
//
//	c_a = Σ_b w_b ‖x_{j_a} − x_{j_b}‖          (weighted distance criterion)
//	s   = softmax(−c / T)
//	ŝ_a = s_a w_a / Σ_b s_b w_b                 (weight correction; SM† and
//	                                             NoWeightCorrection use ŝ = s)
//	out_v = (Σ_j A_vj) · Σ_a ŝ_a x_{j_a}
//
// As T → ∞ it becomes the weighted mean (GCN); as T → 0 the weighted Medoid.
// Rows with fewer than k entries use all of them; empty rows give 0.
type SoftKMedoid struct {
	opts     Options
	st       softState
	fwd, bwd func(chunk, lo, hi int) // bound once: method values allocate
}

type softState struct {
	a      *tensor.CSR
	x      *tensor.Dense
	out    *tensor.Dense
	rowSum []float64
	// level is what the forward pass kept for Backward (state.go): sel,
	// selPtr, shat and soft from keepEntries on, dist and distPtr at
	// keepAll; below, Backward recomputes them per row.
	level   keepLevel
	selPtr  []int // per row: start of its selected entries in sel
	distPtr []int // per row: start of its nk×nk distances in dist
	dist    []float32
	sel     []int       // selected entry positions (into a's entries)
	shat    []float64   // ŝ per selected entry
	soft    []float64   // s per selected entry
	norm    []float64   // Σ_b s_b w_b per row
	ws      []workspace // per chunk
	rowPass
	// cache, during ForwardCached, keeps the rows' distances.
	cache *DistCache
}

// Name implements Aggregator.
func (m *SoftKMedoid) Name() string { return "soft_k_medoid" }

func (m *SoftKMedoid) correct() bool {
	return !m.opts.NoWeightCorrection && m.opts.Normalization != "alt"
}

// selectTopK appends to sel the positions of row r's top-k entries by value
// (descending, then column ascending).
func selectTopK(a *tensor.CSR, r, k int, sel []int) []int {
	lo, hi := a.Indptr[r], a.Indptr[r+1]
	start := len(sel)
	for p := lo; p < hi; p++ {
		sel = append(sel, p)
	}
	if hi-lo > k {
		s := sel[start:]
		slices.SortFunc(s, func(p, q int) int {
			if a.Values[p] != a.Values[q] {
				if a.Values[p] > a.Values[q] {
					return -1
				}
				return 1
			}
			return int(a.Indices[p]) - int(a.Indices[q])
		})
		sel = sel[:start+k]
		slices.Sort(sel[start:]) // back to column order for locality
	}
	return sel
}

// Forward implements Aggregator. It keeps nothing but O(rows) scalars:
// Backward after it recomputes every row (the same bits).
func (m *SoftKMedoid) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	return m.forward(a, x, out, false)
}

// ForwardForBackward is Forward for a call whose Backward can follow
// (autograd.Tape.Aggregate calls it when it records the op): it keeps the
// top-k selection and softmax weights, and for embeddings at least smallD
// wide the pairwise distances (k² floats per row: 46 MB for cora_ml with
// k = 64), as far as they fit Options.MaxStateBytes; Backward recomputes
// the rest, the same bits. Writing the distances and reading them back
// costs memory traffic comparable to computing them, so a lone forward pass
// (and a narrow one, where computing them is cheap) does not keep them (see
// the package comment, "What the forward keeps").
func (m *SoftKMedoid) ForwardForBackward(a *tensor.CSR, x, out *tensor.Dense) any {
	return m.forward(a, x, out, true)
}

// forward is Forward; keep asks to keep the distances for Backward.
func (m *SoftKMedoid) forward(a *tensor.CSR, x, out *tensor.Dense, keep bool) any {
	checkShapes("SoftKMedoid", a, x, out)
	st := &m.st
	st.a, st.x, st.out = a, x, out
	st.rowSum = rowSums(a, st.rowSum)
	k := m.opts.K
	want := keepRows
	if keep {
		want = keepEntries
		if x.Cols >= smallD {
			want = keepAll
		}
	}
	var entries, pairs int64
	for r := 0; r < a.Rows; r++ {
		nk := int64(min(k, a.Indptr[r+1]-a.Indptr[r]))
		entries += nk
		pairs += nk * nk
	}
	perEntry := int64(8 + 8 + 8) // sel, shat, soft
	st.level = chooseKeep(want, m.opts.MaxStateBytes,
		[...]int64{0, perEntry * entries, perEntry*entries + 4*pairs})
	if st.level >= keepEntries {
		st.selPtr = grow(st.selPtr, a.Rows+1)
		st.sel = grow(st.sel, int(entries))[:0] // no regrowing while appending
		for r := 0; r < a.Rows; r++ {
			st.selPtr[r] = len(st.sel)
			st.sel = selectTopK(a, r, k, st.sel)
		}
		st.selPtr[a.Rows] = len(st.sel)
		st.shat = grow(st.shat, len(st.sel))
		st.soft = grow(st.soft, len(st.sel))
	}
	if st.level == keepAll {
		st.distPtr = grow(st.distPtr, a.Rows+1)
		st.distPtr[0] = 0
		for r := 0; r < a.Rows; r++ {
			nk := st.selPtr[r+1] - st.selPtr[r]
			st.distPtr[r+1] = st.distPtr[r] + nk*nk
		}
		st.dist = grow(st.dist, st.distPtr[a.Rows])
	}
	st.norm = grow(st.norm, a.Rows)
	chunks, _ := chunking(a.Rows, 16)
	st.ws = grow(st.ws, chunks)
	if m.fwd == nil {
		m.fwd, m.bwd = m.forwardRows, m.backwardRows
	}
	st.par.run(a.Rows, 16, m.fwd)
	return st
}

// forwardRows is Forward for rows [lo, hi) with chunk's scratch.
func (m *SoftKMedoid) forwardRows(chunk, lo, hi int) {
	st := &m.st
	a, x, out := st.a, st.x, st.out
	ws := &st.ws[chunk]
	for r := lo; r < hi; r++ {
		if r+1 < hi {
			prefetchRow(a, r+1, x, nil, chunk)
		}
		o := out.Row(r)
		sel, s, sh := st.rowEntries(ws, r, m.opts.K)
		nk := len(sel)
		if nk == 0 {
			clear(o)
			st.norm[r] = 0
			continue
		}
		var dist []float32
		if st.cache != nil {
			dist = st.cache.rowDist(ws, r, sel, a, x)
		} else if st.level == keepAll && useFMA && len(st.dist) >= streamMin {
			// Computed in the chunk's scratch (in the cache) and streamed
			// to the kept distances (copyStream): −1.5% CPU of a cora_ml
			// forward+backward (alternating in one process, AMD EPYC).
			ws.dist = grow(ws.dist, nk*nk)
			dist = ws.dist
			ws.distances(sel, a, x, dist)
			kept := st.dist[st.distPtr[r]:st.distPtr[r+1]]
			if !copyStream(kept, dist) {
				copy(kept, dist)
			}
		} else {
			dist = st.rowDist(ws, r, nk)
			ws.distances(sel, a, x, dist)
		}
		st.norm[r] = m.softWeights(ws, sel, a, dist, s, sh)
		// out_v = Σ_a (ŝ_a · rowSum) x_a over the gathered rows ws.xs.
		scale := st.rowSum[r]
		coef := grow(ws.gc, nk)
		ws.gc = coef
		for i := range sel {
			coef[i] = float32(sh[i] * scale)
		}
		weightedSum(o, ws.xs, x.Cols, coef)
	}
}

// rowEntries returns row r's selected entry positions and the buffers of
// their s and ŝ: the kept ones, or (keepRows) the selection made afresh and
// the chunk's scratch.
func (st *softState) rowEntries(ws *workspace, r, k int) (sel []int, s, sh []float64) {
	if st.level >= keepEntries {
		p0, p1 := st.selPtr[r], st.selPtr[r+1]
		return st.sel[p0:p1], st.soft[p0:p1], st.shat[p0:p1]
	}
	ws.sel = selectTopK(st.a, r, k, ws.sel[:0])
	ws.soft, ws.shat = grow(ws.soft, len(ws.sel)), grow(ws.shat, len(ws.sel))
	return ws.sel, ws.soft, ws.shat
}

// softWeights computes a row's softmax weights s = softmax(−D·w/T) and ŝ
// (with the weight correction ŝ_a = s_a w_a / Σ_b s_b w_b, else ŝ = s)
// from its nk×nk distances, and returns Σ_b s_b w_b (0 without the
// correction). It uses ws.crit, ws.gc and ws.w.
func (m *SoftKMedoid) softWeights(ws *workspace, sel []int, a *tensor.CSR, dist []float32, s, sh []float64) float64 {
	nk := len(sel)
	invT := 1 / m.opts.Temperature
	crit := grow(ws.crit, nk)
	ws.crit = crit
	w := ws.weights(sel, a)
	// c = D·w = Dᵀw (D is symmetric): one vector–matrix product.
	cw := grow(ws.gc, nk)
	ws.gc = cw
	weightedSum(cw, dist, nk, w)
	critFromSums(crit, cw, invT)
	softmax64(s, crit)
	if !m.correct() {
		copy(sh, s)
		return 0
	}
	var z float64
	for i := range sel {
		z += s[i] * float64(w[i]) // w[i] = a.Values[sel[i]]
	}
	if z > 0 {
		mulDiv(sh, s, w, z)
	} else {
		clear(sh[:nk])
	}
	return z
}

// gather copies the selected embeddings into ws.xs (nk×d).
func (ws *workspace) gather(sel []int, a *tensor.CSR, x *tensor.Dense) {
	ws.xs = grow(ws.xs, len(sel)*x.Cols)
	ws.gatherInto(sel, a, x)
}

// gatherInto copies the selected embeddings into the first nk rows of ws.xs
// (at least nk×d long).
func (ws *workspace) gatherInto(sel []int, a *tensor.CSR, x *tensor.Dense) {
	ws.rows = grow(ws.rows, len(sel))
	for i, p := range sel {
		ws.rows[i] = a.Indices[p]
	}
	gatherRows(ws.xs, x, ws.rows)
}

// workspace holds one chunk's per-row buffers; it lives in the aggregator
// so that steady-state calls allocate nothing.
type workspace struct {
	xs, xt, blk, c, tmp []float32
	nrm, w, gc, gy, rs  []float32
	crit, e, gs         []float64
	tv                  []float64 // ∂L/∂w through the weight correction
	sel                 []int
	rows                []int32 // the selected entries' columns (gatherRows)
	keys                []uint64
	dist                []float32 // one row's nk×nk distances
	// The median kernels' zero-padded weights, sorted keys and collision
	// masks (medianPicksVec).
	wpad  []float32
	mkeys []uint64
	coll  []uint16
	// One row's recomputed state where the forward pass kept none
	// (keepRows): softmax weights, ŝ and, for the Soft Median, the median
	// picks and values and the distances to the median.
	soft, shat, dist64 []float64
	pick               []int32
	med                []float32
	// Workers take adjacent workspaces of a slice and rewrite these
	// headers row by row: the padding keeps one worker's from sharing a
	// cache line with the next one's (false sharing).
	_ [128]byte
}

// weights gathers the selected edge weights into ws.w.
func (ws *workspace) weights(sel []int, a *tensor.CSR) []float32 {
	ws.w = grow(ws.w, len(sel))
	for i, p := range sel {
		ws.w[i] = a.Values[p]
	}
	return ws.w
}

// gramMin is the neighbourhood size from which distances come from the Gram
// matrix (‖a‖² + ‖b‖² − 2a·b, small matrix products) instead of one
// difference per pair. Below it the exact
// pairwise form is used. The Gram form rounds differently in the last
// digits (like the reference's dense CPU path); self-distances are exactly 0.
const gramMin = 16

// gramBlock is the side of the Gram blocks: only blocks on or above the
// diagonal are computed (the matrix is symmetric), each one GemmSmall of
// gramBlock rows × d × gramBlock columns (the AVX2 kernel's width).
const gramBlock = 32

// distances gathers the selected embeddings into ws.xs (nk×d) and writes
// the nk×nk matrix of ‖x_a − x_b‖ (symmetric, zero diagonal) into dist.
func (ws *workspace) distances(sel []int, a *tensor.CSR, x *tensor.Dense, dist []float32) {
	nk, d := len(sel), x.Cols
	if nk < gramMin {
		ws.gather(sel, a, x)
		for i := 0; i < nk; i++ {
			dist[i*nk+i] = 0
			xi := ws.xs[i*d : (i+1)*d]
			for j := i + 1; j < nk; j++ {
				v := float32(math.Sqrt(float64(tensor.SqDist(xi, ws.xs[j*d:(j+1)*d]))))
				dist[i*nk+j], dist[j*nk+i] = v, v
			}
		}
		return
	}
	if ws.gramUpper(sel, a, x, dist) {
		return
	}
	// Pad to whole blocks with zero rows.
	nb := (nk + gramBlock - 1) / gramBlock
	np := nb * gramBlock
	ws.xs = grow(ws.xs, np*d)
	ws.gatherInto(sel, a, x)
	clear(ws.xs[nk*d : np*d])
	// xt holds per column block J the d×gramBlock transpose of its rows.
	ws.xt = grow(ws.xt, np*d)
	for bj := 0; bj < nb; bj++ {
		blk := ws.xt[bj*gramBlock*d : (bj+1)*gramBlock*d]
		if d%8 == 0 && !hasTranspose16 && transposeTiles8(blk, gramBlock, ws.xs[bj*gramBlock*d:], d, gramBlock, d) {
			continue
		}
		if d%8 == 0 && transposeTiles(blk, gramBlock, ws.xs[bj*gramBlock*d:], d, gramBlock, d) {
			continue
		}
		// Four rows at a time: each t stores four adjacent values.
		for col := 0; col < gramBlock; col += 4 {
			r0 := (bj*gramBlock + col) * d
			x0, x1 := ws.xs[r0:r0+d], ws.xs[r0+d:r0+2*d]
			x2, x3 := ws.xs[r0+2*d:r0+3*d], ws.xs[r0+3*d:r0+4*d]
			for t := range d {
				o := blk[t*gramBlock+col : t*gramBlock+col+4 : t*gramBlock+col+4]
				o[0], o[1], o[2], o[3] = x0[t], x1[t], x2[t], x3[t]
			}
		}
	}
	// Blocks on and above the diagonal, written straight into dist (row
	// stride nk; the padding rows and columns are not stored).
	for bi := 0; bi < nb; bi++ {
		xsI := ws.xs[bi*gramBlock*d : (bi+1)*gramBlock*d]
		rows := min(gramBlock, nk-bi*gramBlock)
		for bj := bi; bj < nb; bj++ {
			j0 := bj * gramBlock
			cols := min(gramBlock, nk-j0)
			if bj == bi && rows == gramBlock && cols == gramBlock &&
				gemmDiag(dist[bi*gramBlock*nk+j0:], nk, xsI, ws.xt[bj*gramBlock*d:(bj+1)*gramBlock*d], d) {
				continue
			}
			gemmStrided(dist[bi*gramBlock*nk+j0:], nk, xsI, ws.xt[bj*gramBlock*d:(bj+1)*gramBlock*d],
				rows, d, gramBlock, cols, ws)
		}
	}
	ws.gramToDist(dist, nk)
}

// gramToDist turns the nk×nk Gram matrix in dist (at least the tiles on and
// above the diagonal that mirrorTiles reads) into distances.
func (ws *workspace) gramToDist(dist []float32, nk int) {
	// Squared norms: the Gram diagonal (so self-distances are exactly 0).
	ws.nrm = grow(ws.nrm, nk)
	for i := range nk {
		ws.nrm[i] = dist[i*nk+i]
	}
	if mirrorTiles(dist, nk, ws.nrm) {
		return
	}
	for i := 0; i < nk; i++ {
		row := dist[i*nk : (i+1)*nk]
		tensor.GramToDist(row[i+1:], ws.nrm[i+1:], ws.nrm[i])
		row[i] = 0
		for j := i + 1; j < nk; j++ { // symmetric: the upper triangle is exact
			dist[j*nk+i] = row[j]
		}
	}
}

// transposeTiles writes the transpose of the rows×cols matrix src (row
// stride lds) into dst (row stride ldd) with vector tiles: 16×16 where the
// build has them (AVX-512) and rows and cols are multiples of 16, else 8×8
// (AVX2) where they are multiples of 8. It reports false (having written
// nothing) where neither applies.
func transposeTiles(dst []float32, ldd int, src []float32, lds, rows, cols int) bool {
	t, ok := tileSize(rows, cols)
	if !ok {
		return false
	}
	for i := 0; i < rows; i += t {
		for j := 0; j < cols; j += t {
			transposeTile(t, dst[j*ldd+i:], ldd, src[i*lds+j:], lds)
		}
	}
	return true
}

// tileSize is the vector transpose tile for a rows×cols matrix: 16 with
// AVX-512, 8 on hosts with AVX2 only (AVX-512 hosts keep their 16×16
// tiles, and so their operation order, whatever the shape).
func tileSize(rows, cols int) (int, bool) {
	switch {
	case hasTranspose16:
		return 16, rows%16 == 0 && cols%16 == 0
	case hasTranspose8:
		return 8, rows%8 == 0 && cols%8 == 0
	}
	return 0, false
}

func transposeTile(t int, dst []float32, ldd int, src []float32, lds int) {
	if t == 16 {
		transpose16(dst, ldd, src, lds)
	} else {
		transpose8(dst, ldd, src, lds)
	}
}

// mirrorTiles turns the nk×nk Gram matrix g (at least the t×t tiles on and
// above the diagonal computed, t the tileSize; squared norms in nrm) into
// distances: the tiles on and right of the diagonal through GramToDist,
// which is symmetric in its two norms, so that a diagonal tile's lower half
// equals its upper half bit for bit, and the tiles below the diagonal as
// the transposes of those above. It reports false (having written nothing)
// where the build has no vector transpose or nk is no multiple of the tile.
func mirrorTiles(g []float32, nk int, nrm []float32) bool {
	t, ok := tileSize(nk, nk)
	if !ok {
		return false
	}
	if t == 8 && gramToDistUpper(g, nk, nrm) {
		mirrorUpper8(g, nk, nk)
		return true
	}
	for i := 0; i < nk; i++ {
		it := i - i%t
		row := g[i*nk : (i+1)*nk]
		tensor.GramToDist(row[it:], nrm[it:], nrm[i])
		row[i] = 0
	}
	for ti := 0; ti < nk; ti += t {
		for tj := ti + t; tj < nk; tj += t {
			transposeTile(t, g[tj*nk+ti:], nk, g[ti*nk+tj:], nk)
		}
	}
	return true
}

// mirrorUpper8 copies the 8×8 tiles of the nk×nk matrix m (row stride ld,
// nk a multiple of 8) above the diagonal's tiles to their transposed places
// below it, one row of tiles per call where there is a kernel.
func mirrorUpper8(m []float32, ld, nk int) {
	for ti := 0; ti+8 < nk; ti += 8 {
		if transposeTiles8(m[(ti+8)*ld+ti:], ld, m[ti*ld+ti+8:], ld, 8, nk-ti-8) {
			continue
		}
		for tj := ti + 8; tj < nk; tj += 8 {
			transpose8(m[tj*ld+ti:], ld, m[ti*ld+tj:], ld)
		}
	}
}

// streamMin is the size of the kept distances (float32s) from which the
// forward writes them with non-temporal stores (copyStream): beyond the
// last-level cache, where Backward reads them back from memory anyway;
// below it they would still be in the cache.
const streamMin = 8 << 20

// smallD is the embedding width below which the backward's pairwise term
// is computed transposed (d products of length nk, not nk of length d).
const smallD = 16

// softmax64 writes softmax(z) into s (log-sum-exp, float64; the
// exponentials four at a time with math.Exp's bits, tensor.ExpVec).
func softmax64(s, z []float64) {
	s = s[:len(z)]
	shiftByMax(s, z)
	tensor.ExpVec(s, s)
	var sum float64
	for _, e := range s {
		sum += e
	}
	divBy(s, sum)
}

// rowDist returns the buffer for row r's nk×nk distances: the kept ones,
// or the chunk's scratch.
func (st *softState) rowDist(ws *workspace, r, nk int) []float32 {
	if st.level == keepAll {
		return st.dist[st.distPtr[r]:st.distPtr[r+1]]
	}
	ws.dist = grow(ws.dist, nk*nk)
	return ws.dist
}

// Backward implements Aggregator.
func (m *SoftKMedoid) Backward(state any, gradOut, gradX *tensor.Dense, gradVals []float32) {
	st := state.(*softState)
	chunks, _ := fixedChunks(st.a.Rows)
	st.ws = grow(st.ws, chunks)
	if m.bwd == nil {
		m.fwd, m.bwd = m.forwardRows, m.backwardRows
	}
	st.backward(st.a, st.x.Cols, gradOut, gradX, gradVals, m.bwd)
}

// backwardRows is Backward for rows [lo, hi) with chunk's scratch.
func (m *SoftKMedoid) backwardRows(chunk, lo, hi int) {
	st := &m.st
	a, x := st.a, st.x
	gradOut, gradX, gradVals := st.gradOut, st.gradX, st.gradVals
	d := x.Cols
	invT := 1 / m.opts.Temperature
	corr := m.correct()
	ws := &st.ws[chunk]
	gy := grow(ws.gy, d)
	ws.gy = gy
	var pg *scatterGrads // the gradient rows to prefetch (none without ∂x)
	if gradX != nil {
		pg = &st.g
	}
	for r := lo; r < hi; r++ {
		if r+1 < hi {
			prefetchRow(a, r+1, x, pg, chunk)
		}
		sel, s, sh := st.rowEntries(ws, r, m.opts.K)
		nk := len(sel)
		g := gradOut.Row(r)
		scale := st.rowSum[r]
		// Through the row-sum scale: ∂L/∂A_vj += g · y for every entry.
		addRowScaleGrad(gradVals, a, r, g, st.out.Row(r), scale)
		if nk == 0 {
			continue
		}
		for i := range gy {
			gy[i] = float32(float64(g[i]) * scale)
		}
		e, gs := grow(ws.e, nk), grow(ws.gs, nk)
		ws.e, ws.gs = e, gs
		// The selected rows, and gy as one more row (for the product
		// below); the distances again where Forward did not keep them
		// (computing them gathers the rows into ws.xs, made large enough
		// first for the extra row).
		ws.xs = grow(ws.xs, (nk+gramBlock+1)*d)
		dist := st.rowDist(ws, r, nk)
		if st.level == keepAll {
			ws.gather(sel, a, x)
		} else {
			ws.distances(sel, a, x, dist)
		}
		if st.level == keepRows {
			m.softWeights(ws, sel, a, dist, s, sh) // what Forward computed
		}
		xs := ws.xs[:(nk+1)*d]
		copy(xs[nk*d:], gy)
		// e_a = gy·x_a, as gyᵀ·Xᵀ over the transposed rows where there is
		// a transpose: the narrow path's (built here for below too) or the
		// vector tiles'.
		ld := nk + 1
		e32 := grow(ws.rs, nk)
		ws.rs = e32
		switch {
		case d < smallD:
			xt := grow(ws.xt, d*ld)
			ws.xt = xt
			for b := 0; b < ld; b++ {
				for t, v := range xs[b*d : (b+1)*d] {
					xt[t*ld+b] = v
				}
			}
			weightedSum(e32, xt, ld, gy)
		case d%16 == 0 && nk%16 == 0 && hasTranspose16:
			xt := grow(ws.xt, d*nk)
			ws.xt = xt
			transposeTiles(xt, nk, xs, d, nk, d)
			weightedSum(e32, xt, nk, gy)
		case dotRows(e32, xs, d, gy): // tensor.Dot's bits, one call for the rows
		default:
			for i := range sel {
				e32[i] = tensor.Dot(gy, xs[i*d:(i+1)*d])
			}
		}
		var ebar float64
		for i := range sel {
			e[i] = float64(e32[i])
			ebar += sh[i] * e[i]
		}
		w := ws.weights(sel, a) // the selected entries' weights, for both gradients below
		// ∂L/∂s (through the weight correction) and ∂L/∂w directly.
		if corr {
			if z := st.norm[r]; z > 0 {
				tv := grow(ws.tv, nk)
				ws.tv = tv
				corrGrads(gs, tv, s, e, w, z, ebar)
				if gradVals != nil {
					for i, pi := range sel {
						gradVals[pi] += float32(tv[i])
					}
				}
			} else {
				clear(gs)
			}
		} else {
			copy(gs, e)
		}
		// Softmax: ∂L/∂z_a = s_a (gs_a − Σ s_b gs_b); z = −c/T, so
		// ∂L/∂c_a = −s_a (gs_a − Σ s_b gs_b) / T, in float32 for below.
		var sg float64
		for i := range gs {
			sg += s[i] * gs[i]
		}
		// c_a = Σ_b w_b D_ab: ∂L/∂w_b += Σ_a gc_a D_ab = (D gc)_b (D symmetric).
		gc32 := grow(ws.gc, nk)
		ws.gc = gc32
		softGrad(gc32, s, gs, sg, invT)
		if gradVals != nil {
			dg := grow(ws.tmp, nk)
			ws.tmp = dg
			weightedSum(dg, dist, nk, gc32) // D·gc = Dᵀgc
			for j, pj := range sel {
				gradVals[pj] += dg[j]
			}
		}
		// ∂L/∂D_ab = gc_a w_b + gc_b w_a =: C_ab·D_ab and ∂D_ab/∂x_a =
		// (x_a − x_b)/D_ab, so ∂L/∂x_a = (Σ_b C_ab) x_a − Σ_b C_ab x_b.
		// With C_aa := −Σ_b C_ab that is −(C·X)_a, and with the weighted
		// sum's ŝ_a·gy as one more column −ŝ of C and row gy of X,
		// ∂L/∂x_a = −(C'·X')_a: one small matrix product per row.
		if gradX != nil {
			// C' is stored (nk+1)×(nk+1) with −ŝ as its last column and
			// also as its last row: the rows of C'ᵀ = [C; −ŝᵀ] (C is
			// symmetric) are then rows of cm.
			cm := grow(ws.c, ld*ld)
			ws.c = cm
			ws.pairCoefs(cm, ld, dist, w, gc32)
			for i := range sel {
				cm[i*ld+nk] = -float32(sh[i])
				cm[nk*ld+i] = -float32(sh[i])
			}
			tmp := grow(ws.blk, nk*d)
			ws.blk = tmp
			if d >= smallD {
				// Rows in blocks of six straight into the gradient rows
				// (ws.rows: the selected columns, set by the gather above),
				// the rest through tmp: GemmSmall and Axpy's bits either way.
				done := gemmSubRows(st.g.chunkBuf(chunk), ws.rows[:nk], cm, ld, xs, nk, ld, d)
				if done == nk {
					continue
				}
				gemm(tmp, cm[done*ld:], xs, nk-done, ld, d)
				for i, pi := range sel[done:] {
					tensor.Axpy(st.g.row(chunk, int(a.Indices[pi])), tmp[i*d:(i+1)*d], -1)
				}
				continue
			}
			// Narrow embeddings (the output layer): tmpᵀ = X'ᵀ·C'ᵀ as d
			// vector–matrix products of length nk instead of nk·(nk+1)
			// products of length d.
			xt := ws.xt[:d*ld] // Xᵀ, built above
			for t := 0; t < d; t++ {
				weightedSum(tmp[t*nk:(t+1)*nk], cm, ld, xt[t*ld:(t+1)*ld])
			}
			for i, pi := range sel {
				gj := st.g.row(chunk, int(a.Indices[pi]))
				for t := range gj {
					gj[t] -= tmp[t*nk+i]
				}
			}
		}
	}
}

// pairCoefs writes the nk×nk matrix C of the Soft Medoid's pairwise
// gradient coefficients into cm (row stride ld): C_ab = (gc_a w_b + gc_b
// w_a)/D_ab off the diagonal (0 where D_ab = 0), C_aa = −Σ_b C_ab. C is
// symmetric, bit for bit (the two products are added in either order), so
// with the vector tile transpose only the tiles on and right of the
// diagonal are computed and the others transposed.
func (ws *workspace) pairCoefs(cm []float32, ld int, dist, w, gc []float32) {
	nk := len(w)
	if nk%8 == 0 && nk > 0 && useFMA && hasTranspose8 {
		// AVX2: the 8×8 tiles on and right of the diagonal, the others
		// transposed (C is symmetric bit for bit), then the row sums in
		// tensor.PairCoef's lane order (rowSums8), so its bits.
		if !pairCoefUpper(cm, ld, dist, w, gc) {
			for i := 0; i < nk; i++ {
				i8 := i &^ 7
				tensor.PairCoef(cm[i*ld+i8:i*ld+nk], dist[i*nk+i8:(i+1)*nk], w[i8:], gc[i8:], gc[i], w[i])
			}
		}
		mirrorUpper8(cm, ld, nk)
		rs := grow(ws.rs, nk)
		ws.rs = rs
		if rowSums8(rs, cm, ld, nk) {
			for i, v := range rs {
				cm[i*ld+i] = -v
			}
			return
		}
	}
	if nk%16 != 0 || !hasTranspose16 {
		for i := 0; i < nk; i++ {
			row := cm[i*ld : i*ld+nk]
			rs := tensor.PairCoef(row, dist[i*nk:(i+1)*nk], w, gc, gc[i], w[i])
			row[i] = -rs // the diagonal distance is 0, so row[i] was 0
		}
		return
	}
	for i := 0; i < nk; i++ {
		i16 := i &^ 15
		pairCoefRow(cm[i*ld+i16:i*ld+nk], dist[i*nk+i16:(i+1)*nk], w[i16:], gc[i16:], gc[i], w[i])
	}
	for ti := 0; ti < nk; ti += 16 {
		for tj := ti + 16; tj < nk; tj += 16 {
			transpose16(cm[tj*ld+ti:], ld, cm[ti*ld+tj:], ld)
		}
	}
	// Row sums = column sums (C is symmetric, its diagonal still 0): one
	// vector–matrix product with a vector of ones.
	one, rs := grow(ws.nrm, nk), grow(ws.rs, nk)
	ws.nrm, ws.rs = one, rs
	for i := range one {
		one[i] = 1
	}
	weightedSum(rs, cm, ld, one)
	for i, v := range rs {
		cm[i*ld+i] = -v
	}
}
