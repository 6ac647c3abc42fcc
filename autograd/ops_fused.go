package autograd

import (
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// Activation selects the nonlinearity of BiasActDropout.
type Activation int

const (
	// ActReLU is max(x, 0) (derivative 0 at 0, as ReLU).
	ActReLU Activation = iota
	// ActELU is ELU with α = 1 (as ELU(x, 1)).
	ActELU
)

// reduceBlocks is the fixed number of row blocks whose partial column sums
// are added in block order: the sums do not depend on GOMAXPROCS.
const reduceBlocks = 16

// BiasActDropout returns Dropout(act(x + 1·b), p, seed) in one pass over
// the n×C input (the hidden layer of GCN and GAT): the same values as
// AddBias, ReLU / ELU and Dropout chained, with one buffer written instead
// of three and one backward pass instead of three. p = 0 (evaluation) skips
// the dropout; the mask is Dropout's, element for element.
func (t *Tape) BiasActDropout(x, b *Var, act Activation, p float64, seed uint64) *Var {
	if b.Value.Rows != 1 || b.Value.Cols != x.Value.Cols {
		panic(fmt.Sprintf("autograd.BiasActDropout: bias %s for %s", b.Value.Shape(), x.Value.Shape()))
	}
	if p < 0 || p >= 1 {
		panic(fmt.Sprintf("autograd.BiasActDropout: p = %v", p))
	}
	rows, c := x.Value.Rows, x.Value.Cols
	out := t.newVar(rows, c)
	// mask holds the dropout factor (0 or 1/(1−p)) and, for ELU, deriv the
	// activation's derivative. The chain's gradient is (g·mask)·act', kept
	// in that order. ReLU keeps neither: its backward reads the output,
	// which is positive and not NaN exactly where act' = 1 and the mask is
	// 1/(1−p) (a dropped element's output is +0, or NaN for an infinite
	// input), so (g·mask)·act' is g·(1/(1−p)) there and +0 where the output
	// is +0 or a negative NaN; only a positive NaN output leaves the mask
	// open, and its coin is drawn again (reluDropoutBack).
	var deriv, mask *tensor.Dense
	if t.grads {
		if act == ActELU {
			deriv = t.alloc(rows, c)
		}
		if p > 0 && act != ActReLU {
			mask = t.alloc(rows, c)
		}
	}
	scale := float32(1 / (1 - p))
	thr := int32(math.Round(p * 65536))
	xd, bd, od := x.Value.Data, b.Value.Data, out.Value.Data
	// Element e's coin is bits 16·(e mod 4) of tensor.DropHash(seed, ⌊e/4⌋),
	// as in Dropout; rows are processed whole, so quads are cut by rows only
	// when C is not a multiple of 4 (then element by element).
	tensor.Parallel(rows, func(lo, hi int) {
		var hsh uint64
		for i := lo; i < hi; i++ {
			xs, os := xd[i*c:(i+1)*c], od[i*c:(i+1)*c]
			if act == ActReLU && p > 0 && c%4 == 0 {
				// The hot case (GCN's hidden layer) in one branch-free
				// pass: relu by the sign bit, the mask by an AND.
				tensor.ReLUDropoutRow(os, xs, bd[:c], seed, i*c/4, thr, scale)
				continue
			}
			for j, v := range xs {
				v += bd[j]
				var y float32
				if act == ActELU {
					if v > 0 {
						y = v
						if deriv != nil {
							deriv.Data[i*c+j] = 1
						}
					} else {
						y = float32(math.Expm1(float64(v)))
						if deriv != nil {
							deriv.Data[i*c+j] = y + 1
						}
					}
				} else {
					y = max(v, 0)
				}
				os[j] = y
			}
			if p == 0 {
				continue
			}
			e0 := i * c
			if c%4 == 0 {
				// Whole quads: one hash per 4 elements, unrolled.
				var ms []float32
				if mask != nil {
					ms = mask.Data[e0 : e0+c]
				}
				for j := 0; j+4 <= c; j += 4 {
					hq := tensor.DropHash(seed, (e0+j)/4)
					m0, m1 := tensor.DropKeep(hq, thr, scale), tensor.DropKeep(hq>>16, thr, scale)
					m2, m3 := tensor.DropKeep(hq>>32, thr, scale), tensor.DropKeep(hq>>48, thr, scale)
					o4 := os[j : j+4 : j+4]
					o4[0] *= m0
					o4[1] *= m1
					o4[2] *= m2
					o4[3] *= m3
					if ms != nil {
						m4 := ms[j : j+4 : j+4]
						m4[0], m4[1], m4[2], m4[3] = m0, m1, m2, m3
					}
				}
				continue
			}
			for j := range os {
				e := e0 + j
				if j == 0 || e%4 == 0 {
					hsh = tensor.DropHash(seed, e/4) >> (16 * uint(e%4))
				}
				m := tensor.DropKeep(hsh, thr, scale)
				hsh >>= 16
				os[j] *= m
				if mask != nil {
					mask.Data[e] = m
				}
			}
		}
	})
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		// gr = (g·mask)·act', written straight into x's gradient when that
		// is new, else to a scratch buffer added to it.
		var gr *tensor.Dense
		fresh := false
		if x.needsGrad {
			gr, fresh = t.gradFresh(x)
		}
		if !fresh {
			gr = t.alloc(rows, c)
		}
		// Fixed row blocks: each also sums its rows of gr per column (in
		// float64) for the bias, added in block order below.
		blocks := min(reduceBlocks, max(rows, 1))
		size := (rows + blocks - 1) / blocks
		var part []float64
		if b.needsGrad {
			part = make([]float64, blocks*c)
		}
		tensor.ParallelChunks(blocks, 1, func(blo, bhi int) {
			for bl := blo; bl < bhi; bl++ {
				lo, hi := bl*size, min((bl+1)*size, rows)
				if lo >= hi {
					continue
				}
				if act == ActReLU && p > 0 {
					// The kernel writes the rows and sums them per column
					// (into a scratch sum when b needs no gradient); a row
					// with a positive NaN output goes through
					// reluDropoutBack.
					var acc []float64
					if part != nil {
						acc = part[bl*c : (bl+1)*c]
					} else {
						acc = make([]float64, c)
					}
					gs, rs, os := g.Data[lo*c:hi*c], gr.Data[lo*c:hi*c], out.Value.Data[lo*c:hi*c]
					for r := 0; r < hi-lo; {
						r += tensor.ReLUDropoutBackRows(rs[r*c:], gs[r*c:], os[r*c:], c, scale, acc)
						if r < hi-lo {
							row := rs[r*c : (r+1)*c]
							reluDropoutBack(gs[r*c:(r+1)*c], row, os[r*c:(r+1)*c], (lo+r)*c, seed, thr, scale)
							for j, v := range row {
								acc[j] += float64(v)
							}
							r++
						}
					}
					continue
				}
				backRows(g.Data[lo*c:hi*c], gr.Data[lo*c:hi*c], out.Value.Data[lo*c:hi*c], mask, deriv, lo*c, act)
				if part != nil {
					acc := part[bl*c : (bl+1)*c]
					for i := lo; i < hi; i++ {
						for j, v := range gr.Data[i*c : (i+1)*c] {
							acc[j] += float64(v)
						}
					}
				}
			}
		})
		if x.needsGrad && !fresh {
			addInto(x.grad, gr)
		}
		if b.needsGrad {
			gb := t.gradOf(b).Data
			for j := range gb {
				var sum float64
				for bl := range blocks {
					sum += part[bl*c+j]
				}
				gb[j] += float32(sum)
			}
		}
	}, x, b)
	return out
}

// backRows writes rd = (gd·mask)·act' for one block of elements starting
// at element off.
func backRows(gd, rd, od []float32, mask, deriv *tensor.Dense, off int, act Activation) {
	var md, dd []float32
	if mask != nil {
		md = mask.Data[off : off+len(gd)]
	}
	if deriv != nil {
		dd = deriv.Data[off : off+len(gd)]
	}
	switch {
	case act == ActELU:
		for i, v := range gd {
			if md != nil {
				v *= md[i]
			}
			if dd[i] != 1 {
				v *= dd[i]
			}
			rd[i] = v
		}
	case md != nil:
		// ReLU: keep (g·mask) where out > 0 (out is +0 or
		// positive), branch-free: the sign is unpredictable.
		for i, v := range gd {
			keep := uint32(int32(math.Float32bits(od[i])-1)>>31) ^ 0xffffffff
			rd[i] = math.Float32frombits(math.Float32bits(v*md[i]) & keep)
		}
	default:
		for i, v := range gd {
			keep := uint32(int32(math.Float32bits(od[i])-1)>>31) ^ 0xffffffff
			rd[i] = math.Float32frombits(math.Float32bits(v) & keep)
		}
	}
}

// reluDropoutBack writes rd = (gd·mask)·relu' for one block of elements of
// BiasActDropout's ReLU with dropout, starting at element off, without the
// mask: where the output is positive and not NaN the mask is scale and
// relu' is 1; where it is +0 or a negative NaN the result is +0 (the sign
// test of backRows); a positive NaN output (an infinite or NaN input) has
// its coin drawn again.
func reluDropoutBack(gd, rd, od []float32, off int, seed uint64, thr int32, scale float32) {
	rd, od = rd[:len(gd)], od[:len(gd)]
	for i, v := range gd {
		ob := math.Float32bits(od[i])
		keep := uint32(int32(ob-1)>>31) ^ 0xffffffff
		if ob > 0x7f800000 && ob < 0x80000000 {
			e := off + i
			v *= tensor.DropKeep(tensor.DropHash(seed, e/4)>>(16*uint(e%4)), thr, scale)
		} else {
			v *= scale
		}
		rd[i] = math.Float32frombits(math.Float32bits(v) & keep)
	}
}
