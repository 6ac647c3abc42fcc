package attack

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/rgnn/rgnn/tensor"
)

// numPairs is n(n−1)/2, the number of undirected pairs without self loops.
func numPairs(n int) int64 { return int64(n) * int64(n-1) / 2 }

// linearToPair maps a linear index of the strict upper triangle (row-major)
// to its pair (the reference's linear_to_triu_idx, with integer fix-ups).
func linearToPair(n int, lin int64) Flip {
	nn := int64(n)
	// row u has n−1−u entries; offset(u) = u·n − u(u+1)/2 − u... solve for u.
	// (truncated, not floored: off by one at most where the estimate is
	// below 0, and the integer fix-ups below land on the exact row anyway)
	u := nn - 2 - int64(math.Sqrt(float64(-8*lin+4*nn*(nn-1)-7))/2-0.5)
	off := func(u int64) int64 { return u * (2*nn - u - 1) / 2 }
	for u > 0 && off(u) > lin {
		u--
	}
	for u < nn-2 && off(u+1) <= lin {
		u++
	}
	v := lin - off(u) + u + 1
	return Flip{int32(u), int32(v)}
}

// pairToLinear is the inverse of linearToPair.
func pairToLinear(n int, f Flip) int64 {
	u, nn := int64(f.U), int64(n)
	return u*(2*nn-u-1)/2 + int64(f.V) - u - 1
}

// newRNG is the attacks' random source for a seed and a stream.
func newRNG(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0xa77ac4^stream))
}

// pairDraws draws the linear indices of random pairs: the numbers of
// newRNG(seed, stream).Int64N, with the generator's concrete type so that a
// block's hundreds of thousands of draws per epoch make no interface calls.
type pairDraws struct {
	src *rand.PCG
	r   *rand.Rand // over src: Int64N where its algorithm is not the one below
}

func newPairDraws(seed, stream uint64) *pairDraws {
	src := rand.NewPCG(seed, 0xa77ac4^stream)
	return &pairDraws{src: src, r: rand.New(src)}
}

// Int64N is math/rand/v2's (*Rand).Int64N over d's PCG (n > 0): on 64-bit
// platforms Lemire's multiply-and-reject, as the standard library does it;
// elsewhere the standard library's call.
func (d *pairDraws) Int64N(n int64) int64 {
	if strconv.IntSize != 64 || n <= 0 {
		return d.r.Int64N(n)
	}
	un := uint64(n)
	if un&(un-1) == 0 {
		return int64(d.src.Uint64() & (un - 1))
	}
	hi, lo := bits.Mul64(d.src.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(d.src.Uint64(), un)
		}
	}
	return int64(hi)
}

// Perturbed returns the weighted adjacency of adj with every pair's weight
// moved by p: an edge gets 1 − p, a non-edge p. Non-edges with p ≤ floor are
// left out of the structure (floor < 0 keeps them all).
func Perturbed(adj *tensor.CSR, pairs []Flip, p []float32, floor float32) (*tensor.CSR, error) {
	return perturbedSigned(adj, pairs, p, nil, floor)
}

// perturbedSigned is Perturbed with the pairs' edgeSign precomputed (nil:
// looked up). The pairs' entries (both directions) are sorted into rows
// by a counting sort, each row by column, and merged with adj's sorted
// rows in parallel; a pair's entry is added to adj's (in float64, adj's
// value first) — the values rowsToCSR gives for adj's entries followed by
// the pairs', in O(edges + pairs) without sorting the edges.
func perturbedSigned(adj *tensor.CSR, pairs []Flip, p, sign []float32, floor float32) (*tensor.CSR, error) {
	n := adj.Rows
	type cv struct {
		c int32
		v float32
	}
	// the pairs' entries by row, in pair order within a row (a counting
	// sort by rowChunks)
	rc := newRowChunks(len(pairs), n, nil)
	keep := make([]bool, len(pairs))
	vals := make([]float32, len(pairs))
	rc.each(func(_, lo, hi int, cnt []int) {
		for i := lo; i < hi; i++ {
			f, d := pairs[i], p[i]
			isEdge := false
			if sign != nil {
				isEdge = sign[i] < 0
			} else {
				isEdge = hasEdge(adj, int(f.U), int(f.V))
			}
			if isEdge {
				d = -d
			} else if d <= floor {
				continue
			}
			keep[i], vals[i] = true, d
			cnt[f.U]++
			cnt[f.V]++
		}
	})
	start := make([]int, n+1)
	pos := rc.slots(start)
	ents := make([]cv, pos)
	rc.each(func(_, lo, hi int, next []int) {
		for i := lo; i < hi; i++ {
			if f := pairs[i]; keep[i] {
				ents[next[f.U]] = cv{f.V, vals[i]}
				next[f.U]++
				ents[next[f.V]] = cv{f.U, vals[i]}
				next[f.V]++
			}
		}
	})
	// sort every row's entries by column (stably: repeated pairs add up in
	// pair order) and count the merged row lengths
	indptr := make([]int, n+1)
	tensor.Parallel(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := ents[start[r]:start[r+1]]
			slices.SortStableFunc(row, func(a, b cv) int { return int(a.c) - int(b.c) })
			cols := adj.Indices[adj.Indptr[r]:adj.Indptr[r+1]]
			cnt, k := 0, 0
			for j := 0; j < len(row); {
				c := row[j].c
				for k < len(cols) && cols[k] < c {
					k++
					cnt++
				}
				if k < len(cols) && cols[k] == c {
					k++
				}
				cnt++
				for j < len(row) && row[j].c == c {
					j++
				}
			}
			indptr[r+1] = cnt + len(cols) - k
		}
	})
	for i := 0; i < n; i++ {
		indptr[i+1] += indptr[i]
	}
	out := &tensor.CSR{Rows: n, Cols: adj.Cols, Indptr: indptr, Indices: make([]int32, indptr[n]),
		Values: make([]float32, indptr[n])}
	tensor.Parallel(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := ents[start[r]:start[r+1]]
			a0, a1 := adj.Indptr[r], adj.Indptr[r+1]
			w := indptr[r]
			k := a0
			for j := 0; j < len(row); {
				c := row[j].c
				for k < a1 && adj.Indices[k] < c {
					out.Indices[w], out.Values[w] = adj.Indices[k], adj.Values[k]
					k++
					w++
				}
				v, have := 0.0, false
				if k < a1 && adj.Indices[k] == c {
					v, have = float64(adj.Values[k]), true
					k++
				}
				for ; j < len(row) && row[j].c == c; j++ {
					if have {
						v += float64(row[j].v)
					} else {
						v, have = float64(row[j].v), true
					}
				}
				out.Indices[w], out.Values[w] = c, float32(v)
				w++
			}
			copy(out.Indices[w:], adj.Indices[k:a1])
			copy(out.Values[w:], adj.Values[k:a1])
		}
	})
	return out, nil
}

// rowChunks runs a counting sort of items into n rows on every worker:
// the items are cut into one chunk per worker (one chunk below
// rowChunksParallelMin items); each chunk counts its items per row, slots
// turns the counts into every chunk's first slot in each row — chunk c's
// items after those of the chunks before it — and each chunk places its
// items. The order is that of one pass over the items.
type rowChunks struct {
	items, n, chunks, size int
	counts                 []int // chunk c's row r at c·n + r: its count, then its next slot
}

// rowChunksParallelMin is the fewest items sorted on every worker.
const rowChunksParallelMin = 1 << 17

// newRowChunks prepares the sort of items items into n rows; counts is
// reused when it is large enough.
func newRowChunks(items, n int, counts []int) rowChunks {
	chunks := 1
	if items >= rowChunksParallelMin {
		chunks = runtime.GOMAXPROCS(0)
	}
	if len(counts) < chunks*n {
		counts = make([]int, chunks*n)
	}
	counts = counts[:chunks*n]
	clear(counts)
	return rowChunks{items: items, n: n, chunks: chunks, size: (items + chunks - 1) / chunks, counts: counts}
}

// each calls fn(c, lo, hi, rows) for every chunk c of items [lo, hi) with
// the chunk's per-row counts (before slots) or next slots (after), the
// chunks on their own goroutines.
func (rc rowChunks) each(fn func(c, lo, hi int, rows []int)) {
	run := func(c int) {
		fn(c, min(c*rc.size, rc.items), min((c+1)*rc.size, rc.items), rc.counts[c*rc.n:(c+1)*rc.n])
	}
	if rc.chunks == 1 {
		run(0)
		return
	}
	var wg sync.WaitGroup
	for c := range rc.chunks {
		wg.Go(func() { run(c) })
	}
	wg.Wait()
}

// slots turns the counts into next slots and writes every row's start
// (start has n+1 entries); it returns the number of items placed.
func (rc rowChunks) slots(start []int) int {
	pos := 0
	for r := range rc.n {
		start[r] = pos
		for c := range rc.chunks {
			k := rc.counts[c*rc.n+r]
			rc.counts[c*rc.n+r] = pos
			pos += k
		}
	}
	start[rc.n] = pos
	return pos
}

// edgeSign returns +1 for non-edges and −1 for edges: ∂w/∂p of a pair.
func edgeSign(adj *tensor.CSR, f Flip) float32 {
	if hasEdge(adj, int(f.U), int(f.V)) {
		return -1
	}
	return 1
}
