package attack

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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
	lins  []int64   // drawRound's scratch
	vals  []float32 // resample's scratch: the weights above the floor
	drop  []uint32  // resample's scratch: the dropped pairs (bitmap sets)
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
func (b *block) fill(rng *pairDraws, size int) {
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
// of the new entries are filled in parallel (the same entries) — for a
// bitmap set while the draws go on (drawBitmap).
func (b *block) drawRound(rng *pairDraws, np int64, want int) {
	k0 := len(b.pairs)
	if b.set.bits != nil {
		// Room for every draw; the block keeps the new ones.
		b.pairs = slices.Grow(b.pairs, want)[:k0+want]
		b.p = slices.Grow(b.p, want)[:k0+want]
		b.sign = slices.Grow(b.sign, want)[:k0+want]
		k := b.drawBitmap(rng, np, want, k0)
		b.pairs, b.p, b.sign = b.pairs[:k0+k], b.p[:k0+k], b.sign[:k0+k]
		return
	}
	lins := b.lins[:0]
	for range want {
		lin := rng.Int64N(np)
		if b.has(lin) {
			continue
		}
		b.set.add(lin)
		lins = append(lins, lin)
	}
	b.lins = lins
	b.pairs = slices.Grow(b.pairs, len(lins))[:k0+len(lins)]
	b.p = slices.Grow(b.p, len(lins))[:k0+len(lins)]
	b.sign = slices.Grow(b.sign, len(lins))[:k0+len(lins)]
	if len(lins) < 4096 {
		b.fillNew(lins, k0, 0, len(lins))
		return
	}
	tensor.ParallelChunks(len(lins), 1024, func(lo, hi int) { b.fillNew(lins, k0, lo, hi) })
}

// fillNew writes the new entries lins[lo:hi] at k0+lo… of the block: the
// pair, the floor weight and the sign.
func (b *block) fillNew(lins []int64, k0, lo, hi int) {
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

// drawBitmap is drawRound for a bitmap set: it draws want pairs, sets
// their bits, keeps those whose bit was clear in draw order (a pair drawn
// twice counts once, the first time) and fills them in at k0 (the block has
// room for want); it returns how many it kept. There is no branch on
// membership (a fifth of a cora_ml block's draws hit it, at random): every
// draw is written to the slot after the new ones and kept if its bit was
// clear. Each run of fillChunk new entries is filled in by a helper
// goroutine while the draws go on (the draws are sequential: the
// generator's order); the last ones by both.
func (b *block) drawBitmap(rng *pairDraws, np int64, want, k0 int) int {
	bm := b.set.bits
	lins := slices.Grow(b.lins[:0], want+1)[:want+1]
	b.lins = lins
	var (
		runs chan [2]int
		wg   sync.WaitGroup
	)
	fillRuns := func() {
		for r := range runs {
			b.fillNew(lins, k0, r[0], r[1])
		}
	}
	helped := want >= 2*fillChunk && runtime.GOMAXPROCS(0) > 1
	if helped {
		runs = make(chan [2]int, want/fillChunk+2)
		wg.Go(fillRuns)
	}
	k, sent := 0, 0
	for range want {
		lin := rng.Int64N(np)
		w, m := &bm[lin>>6], uint64(1)<<(lin&63)
		fresh := *w&m == 0
		*w |= m
		lins[k] = lin
		k += b2i(fresh)
		if helped && k-sent >= fillChunk {
			runs <- [2]int{sent, k}
			sent = k
		}
	}
	if !helped {
		if k < 4096 {
			b.fillNew(lins, k0, 0, k)
		} else {
			tensor.ParallelChunks(k, 1024, func(lo, hi int) { b.fillNew(lins, k0, lo, hi) })
		}
		return k
	}
	for lo := sent; lo < k; lo += 1024 {
		runs <- [2]int{lo, min(lo+1024, k)}
	}
	close(runs)
	fillRuns()
	wg.Wait()
	return k
}

// fillChunk is how many new entries drawBitmap hands to its helper at a
// time.
const fillChunk = 1 << 14

// resampleGrain is the chunk of a resampling's parallel compaction.
const resampleGrain = 1 << 16

// keepAbove is resample's compaction for a bitmap set without ties to
// break: the entries above th stay, in order. Chunks of the block compact
// in parallel (each into its own start, its dropped pairs listed without a
// branch and their bits cleared atomically — clearing commutes), then the
// chunks are moved together.
func (b *block) keepAbove(th float32) {
	n := len(b.p)
	chunks := (n + resampleGrain - 1) / resampleGrain
	if cap(b.drop) < n {
		b.drop = make([]uint32, n)
	}
	drop, bm := b.drop[:n], b.set.bits
	kept := make([]int, chunks)
	tensor.ParallelChunks(chunks, 1, func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			lo, hi := c*resampleGrain, min((c+1)*resampleGrain, n)
			d, nd, k := drop[lo:hi], 0, lo
			for i := lo; i < hi; i++ {
				v, f := b.p[i], b.pairs[i]
				keep := v > th
				d[nd] = uint32(pairToLinear(b.n, f)) // < 2³²: checked by the caller
				nd += b2i(!keep)
				b.pairs[k], b.p[k], b.sign[k] = f, v, b.sign[i]
				k += b2i(keep)
			}
			for _, lin := range d[:nd] {
				atomic.AndUint64(&bm[lin>>6], ^(uint64(1) << (lin & 63)))
			}
			kept[c] = k - lo
		}
	})
	k := kept[0]
	for c := 1; c < chunks; c++ {
		lo := c * resampleGrain
		copy(b.pairs[k:], b.pairs[lo:lo+kept[c]])
		copy(b.p[k:], b.p[lo:lo+kept[c]])
		copy(b.sign[k:], b.sign[lo:lo+kept[c]])
		k += kept[c]
	}
	b.pairs, b.p, b.sign = b.pairs[:k], b.p[:k], b.sign[:k]
}

// draw adds size − len(pairs) random draws to the block, dropping those
// already present (in the block or earlier in the same round), so the block
// ends up somewhat smaller than size — the reference's torch.unique of
// randint draws (e.g. ≈ 0.88M distinct pairs of 1e6 draws on cora_ml). A
// new round is drawn only while the block holds at most budget pairs.
func (b *block) draw(rng *pairDraws, size, budget int) {
	np := numPairs(b.n)
	size = int(min(int64(size), np))
	for tries := 0; tries < 20; tries++ {
		b.drawRound(rng, np, size-len(b.pairs))
		if len(b.pairs) > budget || len(b.pairs) == size {
			return
		}
	}
}

func (b *block) clone() *block {
	return &block{n: b.n, adj: b.adj, pairs: slices.Clone(b.pairs), p: slices.Clone(b.p), sign: slices.Clone(b.sign),
		set: b.set.clone(0), edges: b.edges}
}

// resample drops the low weights (all at the floor, but at most half of the
// block) and draws new pairs at random (reference resample_random_block).
// The kept entries stay in their order, compacted in place.
func (b *block) resample(rng *pairDraws, size, budget int) {
	above := 0
	for _, v := range b.p {
		above += b2i(v > pEps)
	}
	// Keep the entries above the floor; if that is more than half of the
	// block, the largest half: values above the half-th largest, then ties
	// at it in position order (O(block) selection, no sort).
	th, ties := float32(pEps), 0
	if half := len(b.p) - len(b.p)/2; above > half {
		vals := b.vals[:0]
		for _, v := range b.p {
			if v > pEps {
				vals = append(vals, v)
			}
		}
		b.vals = vals
		th = graph.KthLargest(vals, half)
		n := 0
		for _, v := range b.p {
			n += b2i(v > th)
		}
		ties = half - n
	}
	// A hash set that holds exactly the block's pairs is cleared and
	// refilled with the kept ones (reference order); otherwise the dropped
	// pairs are removed one by one.
	refill := b.set.bits == nil && len(b.pairs) == b.set.count
	if refill {
		b.set.removeAll(b.n, b.pairs)
	}
	if b.set.bits != nil && ties == 0 && len(b.p) >= 2*resampleGrain && numPairs(b.n) <= 1<<32 {
		b.keepAbove(th)
		b.draw(rng, size, budget)
		return
	}
	k := 0
	for i, v := range b.p {
		keep := v > th
		if v == th && ties > 0 {
			keep = true
			ties--
		}
		f := b.pairs[i]
		switch lin := pairToLinear(b.n, f); {
		case b.set.bits != nil:
			// No branch on keep (half of the entries go, at random).
			b.set.bits[lin>>6] &^= uint64(b2i(!keep)) << (lin & 63)
		case refill && keep:
			b.set.add(lin)
		case !refill && !keep:
			b.set.remove(lin)
		}
		b.pairs[k], b.p[k], b.sign[k] = f, v, b.sign[i]
		k += b2i(keep)
	}
	b.pairs, b.p, b.sign = b.pairs[:k], b.p[:k], b.sign[:k]
	b.draw(rng, size, budget)
}
