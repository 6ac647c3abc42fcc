package graph

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sync"

	"github.com/rgnn/rgnn/tensor"
)

// Fingerprint is a 64-bit FNV-1a hash of a CSR's shape, indptr, indices and
// value bits. Equal matrices have equal fingerprints; a single flipped edge
// changes it (with overwhelming probability). It costs one pass over the
// arrays, negligible next to any preprocessing.
func Fingerprint(a *tensor.CSR) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	put(uint64(a.Rows))
	put(uint64(a.Cols))
	// Hash in chunks to keep the number of Write calls low.
	chunk := make([]byte, 0, 4096)
	flush := func() {
		h.Write(chunk)
		chunk = chunk[:0]
	}
	for _, p := range a.Indptr {
		chunk = binary.LittleEndian.AppendUint64(chunk, uint64(p))
		if len(chunk) >= 4088 {
			flush()
		}
	}
	for _, c := range a.Indices {
		chunk = binary.LittleEndian.AppendUint32(chunk, uint32(c))
		if len(chunk) >= 4088 {
			flush()
		}
	}
	for _, v := range a.Values {
		chunk = binary.LittleEndian.AppendUint32(chunk, math.Float32bits(v))
		if len(chunk) >= 4088 {
			flush()
		}
	}
	flush()
	return h.Sum64()
}

// PrepCache memoises preprocessing results (GDC, SVD, Jaccard, …) per input
// graph and parameter string, so the same graph is not preprocessed twice
// while every perturbed graph is computed afresh. It is keyed by
// Fingerprint(graph) and the parameters, and it confirms a hit by comparing
// the stored copy of the input, so a hash collision can never return a
// wrong result. At most Capacity results are kept (the oldest inserted is
// evicted first). Safe for concurrent use; concurrent requests for the same
// key compute once. Returned matrices are shared: callers must not modify
// them.
type PrepCache struct {
	mu       sync.Mutex
	capacity int
	entries  map[cacheKey]*cacheEntry
	order    []cacheKey // insertion order, for eviction
	hits     int
	misses   int
}

type cacheKey struct {
	fp     uint64
	params string
}

type cacheEntry struct {
	ready chan struct{} // closed when out/err are set
	input *tensor.CSR
	out   any // *tensor.CSR, *SVDNorm
	err   error
}

// NewPrepCache returns a cache holding at most capacity results
// (capacity < 1 means 1).
func NewPrepCache(capacity int) *PrepCache {
	return &PrepCache{capacity: max(1, capacity), entries: map[cacheKey]*cacheEntry{}}
}

// Get returns compute(a), memoised under (a, params). params must identify
// every parameter compute depends on besides a (for example
// fmt.Sprint(cfg)); inputs other than a (such as features) must be part of
// it too. Errors are not cached.
func (c *PrepCache) Get(a *tensor.CSR, params string, compute func(*tensor.CSR) (*tensor.CSR, error)) (*tensor.CSR, error) {
	return cached(c, a, params, compute)
}

// cached is Get for any result type T; entries of one params string hold
// one type.
func cached[T any](c *PrepCache, a *tensor.CSR, params string, compute func(*tensor.CSR) (T, error)) (T, error) {
	key := cacheKey{Fingerprint(a), params}
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		c.mu.Unlock()
		<-e.ready
		if out, isT := e.out.(T); isT && e.err == nil && sameCSR(e.input, a) {
			c.mu.Lock()
			c.hits++
			c.mu.Unlock()
			return out, nil
		}
		// An error (retry) or a fingerprint collision: compute uncached.
		c.mu.Lock()
		c.misses++
		c.mu.Unlock()
		return compute(a)
	}
	e := &cacheEntry{ready: make(chan struct{}), input: a.Clone()}
	c.entries[key] = e
	c.order = append(c.order, key)
	c.misses++
	for len(c.order) > c.capacity {
		old := c.order[0]
		c.order = c.order[1:]
		delete(c.entries, old)
	}
	c.mu.Unlock()

	out, err := compute(a)
	e.out, e.err = out, err
	close(e.ready)
	if err != nil {
		c.mu.Lock()
		if c.entries[key] == e {
			delete(c.entries, key)
			if i := slices.Index(c.order, key); i >= 0 {
				c.order = slices.Delete(c.order, i, i+1)
			}
		}
		c.mu.Unlock()
	}
	return out, err
}

// GDC returns GDC(a, cfg) through the cache.
func (c *PrepCache) GDC(a *tensor.CSR, cfg GDCConfig) (*tensor.CSR, error) {
	params := fmt.Sprintf("gdc alpha=%v k=%d eps=%v", cfg.Alpha, cfg.K, cfg.Eps)
	return c.Get(a, params, func(a *tensor.CSR) (*tensor.CSR, error) { return GDC(a, cfg) })
}

// SVDLowRank returns SVDLowRank(a, rank) through the cache (svd_gcn's
// preprocessing, which depends on the graph alone: with attribute noise
// every sample of a certificate reuses it).
func (c *PrepCache) SVDLowRank(a *tensor.CSR, rank int) (*SVDNorm, error) {
	return cached(c, a, fmt.Sprintf("svd rank=%d", rank), func(a *tensor.CSR) (*SVDNorm, error) { return SVDLowRank(a, rank) })
}

// Stats returns the number of cached results, hits and misses so far.
func (c *PrepCache) Stats() (size, hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.hits, c.misses
}

func sameCSR(a, b *tensor.CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) &&
		slices.Equal(a.Indices, b.Indices) &&
		slices.EqualFunc(a.Values, b.Values, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}
