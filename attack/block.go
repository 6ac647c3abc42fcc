package attack

import (
	"slices"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// block is a set of candidate pairs with relaxed weights.
type block struct {
	n     int
	adj   *tensor.CSR
	pairs []Flip
	p     []float32
	sign  []float32 // edgeSign of each pair: −1 edge, +1 non-edge
	set   *pairSet  // membership by linear index (the pairs, and pairs never to draw)
	// edges holds adj's edges by linear index (nil: look them up in adj);
	// read-only, shared by clones.
	edges *pairSet
	lins  []int64 // drawRound's scratch
}

// newBlock returns an empty block of adj's pairs with room for size pairs;
// its membership set is a bitmap up to limit pairs (bitmapMaxPairs), else a
// hash set (no object of size n² on large graphs).
func newBlock(adj *tensor.CSR, size int, limit int64) *block {
	n := adj.Rows
	b := &block{n: n, adj: adj, set: newPairSet(numPairs(n), size, limit)}
	if np := numPairs(n); np <= min(limit, edgeBitmapMaxPairs) {
		b.edges = newPairSet(np, 0, np) // a bitmap
		for u := range n {
			for k := adj.Indptr[u]; k < adj.Indptr[u+1]; k++ {
				if v := adj.Indices[k]; int(v) > u {
					b.edges.add(pairToLinear(n, Flip{U: int32(u), V: v}))
				}
			}
		}
	}
	return b
}

// edgeBitmapMaxPairs is the largest graph (in pairs) whose blocks keep a
// bitmap of its edges (16 MiB) for the signs of drawn pairs.
const edgeBitmapMaxPairs = 1 << 27

func (b *block) has(lin int64) bool { return b.set.has(lin) }

// fill draws random new pairs (weight eps) until the block holds size pairs
// or the draws keep colliding.
func (b *block) fill(rng interface{ Int64N(int64) int64 }, size int) {
	np := numPairs(b.n)
	size = int(min(int64(size), np))
	for tries := 0; len(b.pairs) < size && tries < 20; tries++ {
		b.drawRound(rng, np, size-len(b.pairs))
	}
}

// drawRound makes want random draws among the np pairs and adds those not
// yet in the block (weight eps).
//
// The draws and the membership updates run in order; the pairs and signs
// of the new entries are then filled in parallel (the same entries).
func (b *block) drawRound(rng interface{ Int64N(int64) int64 }, np int64, want int) {
	lins := b.lins[:0]
	for i := 0; i < want; i++ {
		lin := rng.Int64N(np)
		if b.has(lin) {
			continue
		}
		b.set.add(lin)
		lins = append(lins, lin)
	}
	b.lins = lins
	k0 := len(b.pairs)
	b.pairs = slices.Grow(b.pairs, len(lins))[:k0+len(lins)]
	b.p = slices.Grow(b.p, len(lins))[:k0+len(lins)]
	b.sign = slices.Grow(b.sign, len(lins))[:k0+len(lins)]
	fill := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lin := lins[i]
			f := linearToPair(b.n, lin)
			b.pairs[k0+i], b.p[k0+i] = f, pEps
			switch {
			case b.edges == nil:
				b.sign[k0+i] = edgeSign(b.adj, f)
			case b.edges.has(lin):
				b.sign[k0+i] = -1
			default:
				b.sign[k0+i] = 1
			}
		}
	}
	if len(lins) < 4096 {
		fill(0, len(lins))
		return
	}
	tensor.ParallelChunks(len(lins), 1024, fill)
}

// draw adds size − len(pairs) random draws to the block, dropping those
// already present (in the block or earlier in the same round), so the block
// ends up somewhat smaller than size — the reference's torch.unique of
// randint draws (e.g. ≈ 0.88M distinct pairs of 1e6 draws on cora_ml). A
// new round is drawn only while the block holds at most budget pairs.
func (b *block) draw(rng interface{ Int64N(int64) int64 }, size, budget int) {
	np := numPairs(b.n)
	size = int(min(int64(size), np))
	for tries := 0; tries < 20; tries++ {
		b.drawRound(rng, np, size-len(b.pairs))
		if len(b.pairs) > budget || len(b.pairs) == size {
			return
		}
	}
}

// keep retains the entries with i in idx (in that order).
func (b *block) keep(idx []int) {
	b.set.removeAll(b.n, b.pairs)
	pairs := make([]Flip, len(idx), cap(b.pairs))
	p := make([]float32, len(idx), cap(b.p))
	sign := make([]float32, len(idx), cap(b.sign))
	for k, i := range idx {
		pairs[k], p[k], sign[k] = b.pairs[i], b.p[i], b.sign[i]
		b.set.add(pairToLinear(b.n, pairs[k]))
	}
	b.pairs, b.p, b.sign = pairs, p, sign
}

func (b *block) clone() *block {
	return &block{n: b.n, adj: b.adj, pairs: slices.Clone(b.pairs), p: slices.Clone(b.p), sign: slices.Clone(b.sign),
		set: b.set.clone(0), edges: b.edges}
}

// resample drops the low weights (all at the floor, but at most half of the
// block) and draws new pairs at random (reference resample_random_block).
func (b *block) resample(rng interface{ Int64N(int64) int64 }, size, budget int) {
	var keepIdx []int
	for i, v := range b.p {
		if v > pEps {
			keepIdx = append(keepIdx, i)
		}
	}
	if half := len(b.p) - len(b.p)/2; len(keepIdx) > half {
		// keep the largest half: values above the half-th largest, then ties
		// at it in position order (O(block) selection, no sort)
		vals := make([]float32, len(keepIdx))
		for k, i := range keepIdx {
			vals[k] = b.p[i]
		}
		th := graph.KthLargest(vals, half)
		above := 0
		for _, i := range keepIdx {
			if b.p[i] > th {
				above++
			}
		}
		ties := half - above
		k := 0
		for _, i := range keepIdx {
			if v := b.p[i]; v > th || (v == th && ties > 0) {
				if v == th {
					ties--
				}
				keepIdx[k] = i
				k++
			}
		}
		keepIdx = keepIdx[:k]
	}
	b.keep(keepIdx)
	b.draw(rng, size, budget)
}
