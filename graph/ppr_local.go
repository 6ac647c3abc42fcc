package graph

import (
	"errors"
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// PPRRows are clean rows of the random-walk personalised PageRank
// Π = α(I − (1−α)P)⁻¹, P = D̃⁻¹Â, Â = A + I (the walk whose estimate the push
// of TopKPPR computes), stored sparsely: Π[j, l] ≈ RowScale[j]·M[j, l]·ColScale[l]
// on the stored entries of row j of M and 0 elsewhere. A nil scale is 1.
// Rows that LocalPPR never reads may be empty.
type PPRRows struct {
	M                  *tensor.CSR
	RowScale, ColScale []float64
}

// WalkRows returns the walk-PPR rows behind the top-k PPR matrix of every
// node, pi and sums as TopKPPRScaled(adj, nil, ...) returned them: the kept
// entries of row u are π_u[v] ≈ pi[u, v]·sums[u]·√d̃_v (d̃ the row sums of
// A + I). Nothing of size n·k is copied: M is pi itself.
func WalkRows(adj, pi *tensor.CSR, sums []float64) (*PPRRows, error) {
	if adj == nil || pi == nil {
		return nil, errors.New("walk rows: nil matrix")
	}
	n := adj.Rows
	if pi.Rows != n || pi.Cols != n || len(sums) != n {
		return nil, fmt.Errorf("walk rows: top-k matrix %d×%d with %d sums for a %d-node graph", pi.Rows, pi.Cols, len(sums), n)
	}
	deg, err := diffusionDegrees(adj)
	if err != nil {
		return nil, fmt.Errorf("walk rows: %w", err)
	}
	sq := make([]float64, n)
	for v, d := range deg {
		sq[v] = math.Sqrt(d)
	}
	return &PPRRows{M: pi, RowScale: sums, ColScale: sq}, nil
}

// diffusionDegrees returns d̃, the row sums of Â = A + I, with the
// arithmetic of newDiffusionGraph (the self loop's 1 added at its column's
// place), without building Â.
func diffusionDegrees(a *tensor.CSR) ([]float64, error) {
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("adjacency is %d×%d, want square", a.Rows, a.Cols)
	}
	deg := make([]float64, a.Rows)
	for i := range a.Rows {
		d := diffusionDegree(a, i)
		if !(d > 0) {
			return nil, fmt.Errorf("row sum of A+I is %v at node %d", d, i)
		}
		deg[i] = d
	}
	return deg, nil
}

// diffusionDegree returns d̃_i, the sum of row i of Â = A + I, with the
// arithmetic of newDiffusionGraph: the row's entries in order, the self
// loop's 1 added at its column's place.
func diffusionDegree(a *tensor.CSR, i int) float64 {
	var d float64
	placed := false
	for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
		c := int(a.Indices[k])
		v := float64(a.Values[k])
		if !placed && c > i {
			d++
			placed = true
		}
		if c == i {
			v++
			placed = true
		}
		d += v
	}
	if !placed {
		d++
	}
	return d
}

// LocalPPR updates the walk-PPR row of one target i when the weights of the
// pairs (i, v) change, without recomputing PPR for the graph: the update of
// the local attacks on PPRGo (Geisler et al. 2021, calc_ppr_update_sparse).
//
// Only row i of the walk matrix P changes: r = P[i,:] = Â[i,:]/d̃_i becomes
// r′ = Â′[i,:]/d̃′_i. The flips also change the rows of their other
// endpoints v (their entry (v, i) and their degree); those changes are
// ignored — the documented approximation of the follow-up. With
// P̄ = I − (1−α)P (so P̄⁻¹ = Π/α) the perturbed P̄′ = P̄ + e_i·δᵀ,
// δ = (α−1)(r′ − r), and Sherman–Morrison gives the new row
//
//	π′_i = Π_i − Π_ii·y/(α + y_i),  y = δᵀΠ = Σ_j δ_j Π_j,
//
// which needs the clean rows Π_j of the support of δ only: i, its
// neighbours and the pairs whose weight changed. With exact rows π′_i is the
// exact PPR row of the walk whose row i is r′ (tested against power
// iteration); with top-k rows see ErrorBound. An update costs
// O((deg i + |v|)·k) for rows of k entries, memory O(n) per LocalPPR
// (dense scratch reset only where it was written).
//
// TopK then applies PPRGo's preprocessing to π′_i as TopKPPR applies it to
// a push estimate: rank v by π′_i[v]/√d̃′_v (d̃′ the degrees of the graph
// with the new weights, of i and of the v whose pair changed), keep the
// top k, divide by their sum. Backward and TopKBackward return the
// gradients with respect to the new pair weights, the selection held
// fixed. A LocalPPR is not safe for concurrent use; Clone shares the
// read-only parts.
type LocalPPR struct {
	adj   *tensor.CSR
	rows  *PPRRows
	alpha float64
	deg   []float64 // d̃ of the clean graph (shared)

	// dense scratch, zero (false, −1) outside the current update's support
	base, acc, gyd []float64 // Π_i, y, and the backward's gradient of y
	gmark          []uint64  // the columns where gyd is set, one bit each
	in             []bool
	slot           []int32 // node → its index in list
	supp           []int32 // the support of base and acc

	// the current update
	i          int
	ok         bool
	list       []int32   // i, its neighbours, then the new pairs' other ends
	a0, w1     []float64 // clean Â[i,j] and new Â′[i,j] of list
	delta, gr  []float64
	cand       []int32 // candidate c's index in list
	candOf     []int32 // list index → its candidate (−1: none)
	dOld, dNew float64
	pii, yi, c float64

	// TopK's selection
	sel     topKSelector
	cands   []candidate
	tcols   []int32
	tvals   []float64 // normalised
	traw    []float64 // the ranking values before the division
	tsum    float64
	gpi     []float64
	topkSet bool
	sink    int32 // keeps the look-ahead loads of Backward
}

// pfAhead is how many rows ahead Backward starts loading a row.
const pfAhead = 16

// NewLocalPPR prepares local updates of the graph adj (square, nonnegative,
// usually symmetric) with the clean rows rows of its walk PPR at teleport
// alpha.
func NewLocalPPR(adj *tensor.CSR, rows *PPRRows, alpha float64) (*LocalPPR, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("local ppr: alpha %v outside (0, 1)", alpha)
	}
	if adj == nil || rows == nil || rows.M == nil {
		return nil, errors.New("local ppr: nil graph or rows")
	}
	n := adj.Rows
	if rows.M.Rows != n || rows.M.Cols != n {
		return nil, fmt.Errorf("local ppr: rows %d×%d for a %d-node graph", rows.M.Rows, rows.M.Cols, n)
	}
	if err := rows.M.Validate(); err != nil {
		return nil, fmt.Errorf("local ppr: rows: %w", err)
	}
	if (rows.RowScale != nil && len(rows.RowScale) != n) || (rows.ColScale != nil && len(rows.ColScale) != n) {
		return nil, fmt.Errorf("local ppr: scales of length %d and %d for %d nodes", len(rows.RowScale), len(rows.ColScale), n)
	}
	deg, err := diffusionDegrees(adj)
	if err != nil {
		return nil, fmt.Errorf("local ppr: %w", err)
	}
	for _, v := range adj.Values {
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("local ppr: edge weight %v (must be finite and ≥ 0)", v)
		}
	}
	l := &LocalPPR{adj: adj, rows: rows, alpha: alpha, deg: deg}
	l.alloc()
	return l, nil
}

func (l *LocalPPR) alloc() {
	n := l.adj.Rows
	l.base, l.acc, l.gyd = make([]float64, n), make([]float64, n), make([]float64, n)
	l.in, l.slot = make([]bool, n), make([]int32, n)
	l.gmark = make([]uint64, (n+63)/64)
	for v := range l.slot {
		l.slot[v] = -1
	}
}

// Clone returns a LocalPPR on the same graph and rows with its own scratch.
func (l *LocalPPR) Clone() *LocalPPR {
	c := &LocalPPR{adj: l.adj, rows: l.rows, alpha: l.alpha, deg: l.deg}
	c.alloc()
	return c
}

// Degree returns d̃_v of the clean graph (row sum of A + I).
func (l *LocalPPR) Degree(v int) float64 { return l.deg[v] }

// rowScale and colScale read the scales (nil: 1).
func (l *LocalPPR) rowScale(j int32) float64 {
	if l.rows.RowScale == nil {
		return 1
	}
	return l.rows.RowScale[j]
}

func (l *LocalPPR) colScale(j int32) float64 {
	if l.rows.ColScale == nil {
		return 1
	}
	return l.rows.ColScale[j]
}

// reset clears what the previous update wrote.
func (l *LocalPPR) reset() {
	for _, v := range l.supp {
		l.base[v], l.acc[v], l.in[v] = 0, 0, false
	}
	for _, v := range l.list {
		l.slot[v] = -1
	}
	l.supp, l.list, l.a0, l.w1 = l.supp[:0], l.list[:0], l.a0[:0], l.w1[:0]
	l.cand, l.candOf = l.cand[:0], l.candOf[:0]
	l.ok, l.topkSet = false, false
}

// addList appends node j with clean weight a and new weight w.
func (l *LocalPPR) addList(j int32, a float64) {
	l.slot[j] = int32(len(l.list))
	l.list = append(l.list, j)
	l.a0 = append(l.a0, a)
	l.w1 = append(l.w1, a)
	l.candOf = append(l.candOf, -1)
}

func (l *LocalPPR) touch(v int32) {
	if !l.in[v] {
		l.in[v] = true
		l.supp = append(l.supp, v)
	}
}

// Update computes π′_i for the graph whose pairs (i, v[c]) have weight w[c]
// (every other pair keeps its weight). The v must be distinct nodes other
// than i; the weights finite and ≥ 0. It fails (leaving no update) for bad
// input and when the truncated rows make the Sherman–Morrison denominator
// α + y_i non-positive (impossible with exact rows, where it is
// α·Π_ii/π′_ii ≥ α·Π_ii).
func (l *LocalPPR) Update(i int, v []int32, w []float64) error {
	l.reset()
	n := l.adj.Rows
	if i < 0 || i >= n {
		return fmt.Errorf("local ppr: target %d outside [0, %d)", i, n)
	}
	if len(v) != len(w) {
		return fmt.Errorf("local ppr: %d pairs, %d weights", len(v), len(w))
	}
	l.i = i
	// list: i and its neighbours in column order (the self loop at its place)
	adj := l.adj
	placed := false
	for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
		c := adj.Indices[k]
		a := float64(adj.Values[k])
		if !placed && int(c) > i {
			l.addList(int32(i), 1)
			placed = true
		}
		if int(c) == i {
			a++
			placed = true
		}
		l.addList(c, a)
	}
	if !placed {
		l.addList(int32(i), 1)
	}
	sum := 0.0
	for c, x := range v {
		wc := w[c]
		switch {
		case x < 0 || int(x) >= n:
			l.reset()
			return fmt.Errorf("local ppr: pair (%d, %d) outside [0, %d)", i, x, n)
		case int(x) == i:
			l.reset()
			return fmt.Errorf("local ppr: pair (%d, %d) is a self loop", i, x)
		case !(wc >= 0) || math.IsInf(wc, 0):
			l.reset()
			return fmt.Errorf("local ppr: weight %v of pair (%d, %d) (must be finite and ≥ 0)", wc, i, x)
		}
		t := l.slot[x]
		if t < 0 {
			t = int32(len(l.list))
			l.addList(x, 0)
		} else if l.candOf[t] >= 0 {
			l.reset()
			return fmt.Errorf("local ppr: pair (%d, %d) given twice", i, x)
		}
		l.candOf[t] = int32(len(l.cand))
		l.cand = append(l.cand, t)
		l.w1[t] = wc
		sum += wc - l.a0[t]
	}
	l.dOld = l.deg[i]
	l.dNew = l.dOld + sum
	if !(l.dNew > 0) {
		l.reset()
		return fmt.Errorf("local ppr: degree of %d would be %v", i, l.dNew)
	}
	l.delta = growF64(l.delta, len(l.list))
	for t := range l.list {
		l.delta[t] = (l.alpha - 1) * (l.w1[t]/l.dNew - l.a0[t]/l.dOld)
	}
	// Π_i, then y = Σ_j δ_j Π_j (without the column scale, applied once at
	// the end)
	m := l.rows.M
	fi := l.rowScale(int32(i))
	for e := m.Indptr[i]; e < m.Indptr[i+1]; e++ {
		c := m.Indices[e]
		l.touch(c)
		l.base[c] = fi * float64(m.Values[e]) * l.colScale(c)
	}
	for t, j := range l.list {
		d := l.delta[t]
		if d == 0 {
			continue
		}
		f := d * l.rowScale(j)
		lo, hi := m.Indptr[j], m.Indptr[j+1]
		cols, vals := m.Indices[lo:hi], m.Values[lo:hi]
		vals = vals[:len(cols)]
		for k, c := range cols {
			if !l.in[c] {
				l.in[c] = true
				l.supp = append(l.supp, c)
			}
			l.acc[c] += f * float64(vals[k])
		}
	}
	if l.rows.ColScale != nil {
		cs := l.rows.ColScale
		for _, c := range l.supp {
			l.acc[c] *= cs[c]
		}
	}
	l.pii, l.yi = l.base[i], l.acc[i]
	den := l.alpha + l.yi
	if !(den > 0) {
		l.reset()
		return fmt.Errorf("local ppr: Sherman–Morrison denominator α + y_i = %v ≤ 0 at target %d (rows too coarse)", den, i)
	}
	l.c = l.pii / den
	l.ok = true
	return nil
}

func growF64(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// Row returns the support of π′_i (no particular order) and its values,
// appended to the given slices.
func (l *LocalPPR) Row(cols []int32, vals []float64) ([]int32, []float64) {
	if !l.ok {
		return cols, vals
	}
	for _, c := range l.supp {
		cols = append(cols, c)
		vals = append(vals, l.base[c]-l.c*l.acc[c])
	}
	return cols, vals
}

// Backward adds to out[c] (one per pair of the last Update) the gradient
// ∂L/∂w[c] of a loss L whose gradient with respect to π′_i[cols[t]] is
// g[t] (columns in the support, each at most once; the others count as 0):
// the chain rule through the Sherman–Morrison form and r′ = Â′[i,:]/d̃′_i.
// It costs O((deg i + |v|)·k).
func (l *LocalPPR) Backward(cols []int32, g []float64, out []float64) error {
	if !l.ok {
		return errors.New("local ppr: Backward without an update")
	}
	if len(out) != len(l.cand) || len(g) != len(cols) {
		return fmt.Errorf("local ppr: Backward with %d gradients for %d columns into %d pairs (want %d)",
			len(g), len(cols), len(out), len(l.cand))
	}
	den := l.alpha + l.yi
	// ∂L/∂y: −c·g, plus the denominator's share at i; gmark flags the
	// columns where it is set, so that the rows below read gyd only there
	// (a row's other entries cost a bit test on an n/64-word set, which
	// stays in cache where gyd would not)
	var gy float64
	mark := func(c int32) { l.gmark[c>>6] |= 1 << (uint(c) & 63) }
	for t, c := range cols {
		gy += g[t] * l.acc[c]
		l.gyd[c] += -l.c * g[t] * l.colScale(c)
		mark(c)
	}
	i := int32(l.i)
	l.gyd[i] += l.c * gy / den * l.colScale(i)
	mark(i)
	// ∂L/∂r′_j = (α−1)·Σ_l ∂L/∂y_l·Π[j,l]
	m := l.rows.M
	gm := l.gmark
	l.gr = growF64(l.gr, len(l.list))
	var sr float64
	var touch int32
	list := l.list
	for t, j := range list {
		// Load a column index of the row pfAhead rows on (its row start
		// read pfAhead rows before that): rows are random, and a row's
		// loads are too many for the CPU to run ahead to the next row, so
		// without these loads every row waits for memory on its own.
		if t+2*pfAhead < len(list) {
			touch += int32(m.Indptr[list[t+2*pfAhead]])
		}
		if t+pfAhead < len(list) {
			if x := m.Indptr[list[t+pfAhead]]; x < len(m.Indices) {
				touch += m.Indices[x]
			}
		}
		lo, hi := m.Indptr[j], m.Indptr[j+1]
		cs, vals := m.Indices[lo:hi], m.Values[lo:hi]
		vals = vals[:len(cs)]
		var s float64
		for k, c := range cs {
			if gm[c>>6]&(1<<(uint(c)&63)) != 0 {
				s += l.gyd[c] * float64(vals[k])
			}
		}
		l.gr[t] = (l.alpha - 1) * l.rowScale(j) * s
		sr += l.gr[t] * l.w1[t] / l.dNew
	}
	l.sink += touch
	for _, c := range cols {
		l.gyd[c], gm[c>>6] = 0, 0
	}
	l.gyd[i], gm[i>>6] = 0, 0
	// r′_j = ŵ′_ij/d̃′_i: ∂r′_j/∂w_c = ([j = v_c] − r′_j)/d̃′_i
	for c, t := range l.cand {
		out[c] += (l.gr[t] - sr) / l.dNew
	}
	return nil
}

// newDegree is d̃′_v of the graph with the update's weights.
func (l *LocalPPR) newDegree(v int32) float64 {
	t := l.slot[v]
	switch {
	case int(v) == l.i:
		return l.dNew
	case t < 0:
		return l.deg[v]
	}
	return l.deg[v] + (l.w1[t] - l.a0[t])
}

// TopK applies PPRGo's preprocessing to π′_i: the positive entries ranked by
// π′_i[v]/√d̃′_v, the top k kept (ties as TopKPPR breaks them), divided by
// their sum. It returns the kept columns (ascending) and values; the slices
// are reused by the next call.
func (l *LocalPPR) TopK(k int) ([]int32, []float64, error) {
	if !l.ok {
		return nil, nil, errors.New("local ppr: TopK without an update")
	}
	if k < 1 {
		return nil, nil, fmt.Errorf("local ppr: k must be ≥ 1, got %d", k)
	}
	l.cands = l.cands[:0]
	for _, c := range l.supp {
		if p := l.base[c] - l.c*l.acc[c]; p > 0 {
			l.cands = append(l.cands, candidate{col: c, val: p * (1 / math.Sqrt(l.newDegree(c)))})
		}
	}
	sel := l.sel.selectTopK(l.cands, k)
	var sum float64
	for _, s := range sel {
		sum += s.val
	}
	if sum <= 0 {
		sum = 1
	}
	l.tcols, l.tvals, l.traw = l.tcols[:0], l.tvals[:0], l.traw[:0]
	for _, s := range sel {
		l.tcols = append(l.tcols, s.col)
		l.tvals = append(l.tvals, s.val/sum)
		l.traw = append(l.traw, s.val)
	}
	l.tsum, l.topkSet = sum, true
	return l.tcols, l.tvals, nil
}

// TopKBackward adds to out[c] the gradient ∂L/∂w[c] of a loss whose
// gradient with respect to the values TopK returned is gx (the selection
// held fixed): through the division by the sum, the degrees d̃′ of the
// ranking, and Backward.
func (l *LocalPPR) TopKBackward(gx []float64, out []float64) error {
	if !l.topkSet {
		return errors.New("local ppr: TopKBackward without TopK")
	}
	if len(gx) != len(l.tcols) || len(out) != len(l.cand) {
		return fmt.Errorf("local ppr: TopKBackward with %d gradients for %d values into %d pairs (want %d)",
			len(gx), len(l.tcols), len(out), len(l.cand))
	}
	var dot float64
	for t, g := range gx {
		dot += g * l.tvals[t]
	}
	l.gpi = growF64(l.gpi, len(gx))
	var gdi float64 // ∂L/∂d̃′_i, which every pair's weight moves
	for t, c := range l.tcols {
		gs := (gx[t] - dot) / l.tsum
		d := l.newDegree(c)
		l.gpi[t] = gs * (1 / math.Sqrt(d))
		gd := gs * (-0.5 * l.traw[t] / d) // s = p/√d: ∂s/∂d = −½ s/d
		switch s := l.slot[c]; {
		case int(c) == l.i:
			gdi += gd
		case s >= 0 && l.candOf[s] >= 0:
			out[l.candOf[s]] += gd
		}
	}
	if gdi != 0 {
		for ci := range out {
			out[ci] += gdi
		}
	}
	return l.Backward(l.tcols, l.gpi, out)
}

// ErrorBound bounds ‖π′_i − π̂′_i‖₁, the error of the last Update's row
// against the update computed with the exact rows, when every stored row
// underestimates Π entrywise (0 ≤ Π̂_j ≤ Π_j: push estimates, their top-k,
// truncated exact rows — up to float32 rounding). Then each row's
// L1 error is E_j = 1 − Σ_l Π̂[j,l] (walk rows sum to 1), the error of y is
// at most D = Σ_j |δ_j|·E_j, and with c = π′_ii/α ≤ 1/α and
// α + y_i ≥ α·Π_ii ≥ α·m, m = max(α, Π̂_ii):
//
//	‖π′_i − π̂′_i‖₁ ≤ E_i + D/α + ‖ŷ‖₁·(E_i + Π̂_ii·D/(α + ŷ_i))/(α·m).
//
// The bound is a posteriori (every quantity is known) and costs one more
// pass over the rows.
func (l *LocalPPR) ErrorBound() float64 {
	if !l.ok {
		return math.NaN()
	}
	rowErr := func(j int32) float64 {
		m := l.rows.M
		var s float64
		for e := m.Indptr[j]; e < m.Indptr[j+1]; e++ {
			s += float64(m.Values[e]) * l.colScale(m.Indices[e])
		}
		return max(0, 1-s*l.rowScale(j))
	}
	ei := rowErr(int32(l.i))
	var d float64
	for t, j := range l.list {
		if l.delta[t] != 0 {
			d += math.Abs(l.delta[t]) * rowErr(j)
		}
	}
	var y1 float64
	for _, c := range l.supp {
		y1 += math.Abs(l.acc[c])
	}
	a := l.alpha
	m := max(a, l.pii)
	return ei + d/a + y1*(ei+l.pii*d/(a+l.yi))/(a*m)
}
