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
	// the pairs' entries by row, in pair order within a row: a counting
	// sort, on every worker above pairsParallelMin pairs (each chunk of
	// pairs counted and placed after the chunks before it: the same order)
	chunks := 1
	if len(pairs) >= pairsParallelMin {
		chunks = runtime.GOMAXPROCS(0)
	}
	size := (len(pairs) + chunks - 1) / chunks
	span := func(c int) (int, int) { return min(c*size, len(pairs)), min((c+1)*size, len(pairs)) }
	each := func(fn func(c int)) {
		if chunks == 1 {
			fn(0)
			return
		}
		var wg sync.WaitGroup
		for c := range chunks {
			wg.Go(func() { fn(c) })
		}
		wg.Wait()
	}
	keep := make([]bool, len(pairs))
	vals := make([]float32, len(pairs))
	counts := make([]int, chunks*n)
	each(func(c int) {
		cnt := counts[c*n : (c+1)*n]
		lo, hi := span(c)
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
	pos := 0
	for r := range n {
		start[r] = pos
		for c := range chunks {
			k := counts[c*n+r]
			counts[c*n+r] = pos // chunk c's next slot in row r
			pos += k
		}
	}
	start[n] = pos
	ents := make([]cv, pos)
	each(func(c int) {
		next := counts[c*n : (c+1)*n]
		lo, hi := span(c)
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

// pairsParallelMin is the fewest pairs whose perturbed graph is sorted into
// rows on every worker.
const pairsParallelMin = 1 << 17

// edgeSign returns +1 for non-edges and −1 for edges: ∂w/∂p of a pair.
func edgeSign(adj *tensor.CSR, f Flip) float32 {
	if hasEdge(adj, int(f.U), int(f.V)) {
		return -1
	}
	return 1
}
