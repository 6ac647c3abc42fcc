package synth

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Options control Generate.
type Options struct {
	// Progress, if set, is called from Generate's goroutine with the stage
	// ("edges", "adjacency", "features", "write") and the work done of total.
	Progress func(stage string, done, total int64)
}

// Stats describes a generated graph (all of it: no component is dropped).
type Stats struct {
	Nodes            int     `json:"nodes"`
	Edges            int64   `json:"edges"` // undirected, no self loops or repeats
	Features         int     `json:"features"`
	FeatureNnz       int64   `json:"feature_nnz"`
	Classes          int     `json:"classes"`
	ClassCounts      []int   `json:"class_counts"`
	Homophily        float64 `json:"homophily"` // share of edges within a class
	MeanDegree       float64 `json:"mean_degree"`
	MedianDegree     int     `json:"median_degree"`
	MaxDegree        int     `json:"max_degree"`
	DegreeCV         float64 `json:"degree_cv"` // standard deviation / mean of the degrees
	LargestComponent int     `json:"largest_component"`
}

// WriteText prints the statistics as text.
func (st Stats) WriteText(w io.Writer) {
	fmt.Fprintf(w, "nodes          %d (largest connected component %d)\n", st.Nodes, st.LargestComponent)
	fmt.Fprintf(w, "edges          %d undirected (mean degree %.2f, median %d, max %d, cv %.2f)\n",
		st.Edges, st.MeanDegree, st.MedianDegree, st.MaxDegree, st.DegreeCV)
	fmt.Fprintf(w, "features       %d (%d nonzeros)\n", st.Features, st.FeatureNnz)
	fmt.Fprintf(w, "classes        %d, edge homophily %.3f\n", st.Classes, st.Homophily)
}

// Stream tags keep the random streams of the stages apart.
const (
	tagNodes    = 0x6e6f646573 // "nodes"
	tagEdges    = 1 << 62
	tagFeatures = 1 << 61
	tagRankings = 0x72616e6b   // "rank"
	tagSplit    = 0x73706c6974 // "split"
	blockNodes  = 1 << 13      // nodes per random stream (fixed: the output must not depend on the worker count)
	bucketSize  = 1 << 22      // directed entries per bucket, about
)

// model is the node-level state of the generator.
type model struct {
	p            Preset
	n            int
	labels       []int32
	cumG         []float64 // running θ over all nodes (n+1)
	classStart   []int     // members[classStart[c]:classStart[c+1]] are class c's nodes, ascending
	members      []int32
	cumC         []float64 // per class running θ: cumC[classStart[c]+c+j] is the sum over its first j members
	pos          []int32   // pos[u]: u's index among its class's members
	wIn, wOut, h float64
}

func newModel(p Preset, seed uint64) (*model, error) {
	n := p.Nodes
	m := &model{p: p, n: n, labels: make([]int32, n), h: p.Homophily}
	cls := cumulative(p.classWeights())
	rng := rand.New(rand.NewPCG(seed, tagNodes))
	theta := make([]float64, n)
	dbar := 2 * float64(p.Edges) / float64(n)
	capTheta := math.Sqrt(float64(n) / dbar)
	sigma := p.DegreeSigma
	for u := range n {
		m.labels[u] = int32(searchCum(cls, 0, p.Classes, rng.Float64()))
		theta[u] = min(capTheta, math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2))
	}
	m.cumG = cumulative(theta)
	m.classStart = make([]int, p.Classes+1)
	for _, c := range m.labels {
		m.classStart[c+1]++
	}
	for c := range p.Classes {
		m.classStart[c+1] += m.classStart[c]
	}
	m.members = make([]int32, n)
	m.pos = make([]int32, n)
	next := slices.Clone(m.classStart[:p.Classes])
	for u, c := range m.labels {
		m.pos[u] = int32(next[c] - m.classStart[c])
		m.members[next[c]] = int32(u)
		next[c]++
	}
	m.cumC = make([]float64, n+p.Classes)
	var sc2, a float64 // Σ S_c², Σ (S_c² − Q_c)/2
	for c := range p.Classes {
		base := m.classStart[c] + c
		var s, q float64
		for j, u := range m.members[m.classStart[c]:m.classStart[c+1]] {
			s += theta[u]
			q += theta[u] * theta[u]
			m.cumC[base+j+1] = s
		}
		sc2 += s * s
		a += (s*s - q) / 2
	}
	sAll := m.cumG[n]
	b := (sAll*sAll - sc2) / 2 // Σ over cross-class pairs of θ_u θ_v
	budget := float64(p.Edges - int64(n))
	m.wIn = p.Homophily * budget / a
	if b > 0 {
		m.wOut = (1 - p.Homophily) * budget / b
	}
	if a <= 0 || m.wIn < m.wOut {
		return nil, fmt.Errorf("preset %s: homophily %.3g is below the share of same-class pairs; raise it", p.Name, p.Homophily)
	}
	return m, nil
}

// classCum returns class c's running θ (len = members + 1).
func (m *model) classCum(c int32) []float64 {
	lo, hi := m.classStart[c], m.classStart[c+1]
	return m.cumC[lo+int(c) : hi+int(c)+1]
}

// edgeBlock appends both directions (row<<32 | col) of the edges that nodes
// [lo, hi) generate: one backbone edge each and their block-model edges to
// higher-numbered nodes.
func (m *model) edgeBlock(seed uint64, block, lo, hi int, out []uint64) []uint64 {
	rng := rand.New(rand.NewPCG(seed, tagEdges|uint64(block)))
	pois := distuv.Poisson{Src: rng}
	draw := func(lambda float64) int {
		if lambda <= 0 {
			return 0
		}
		pois.Lambda = lambda
		return int(pois.Rand())
	}
	n := m.n
	sAll := m.cumG[n]
	var partners []int32
	for u := lo; u < hi; u++ {
		partners = partners[:0]
		c := m.labels[u]
		cc := m.classCum(c)
		mem := m.members[m.classStart[c]:m.classStart[c+1]]
		theta := m.cumG[u+1] - m.cumG[u]
		// Backbone: one partner ∝ θ, within the class with probability h.
		for range 64 {
			var v int32
			if rng.Float64() < m.h {
				v = mem[searchCum(cc, 0, len(mem), rng.Float64()*cc[len(mem)])]
			} else {
				v = int32(searchCum(m.cumG, 0, n, rng.Float64()*sAll))
			}
			if int(v) != u {
				partners = append(partners, v)
				break
			}
		}
		// Block model towards v > u: ω_out over all nodes plus the excess
		// ω_in − ω_out over u's class. Poisson(λ1) + Poisson(λ2) partners
		// are Poisson(λ1 + λ2) partners each from the first part with
		// probability λ1/(λ1 + λ2); a repeated partner is redrawn, so the
		// edge count does not fall short where hubs meet.
		g0, p := m.cumG[u+1], int(m.pos[u])
		var l1, l2, c0, c1 float64
		if u+1 < n {
			l1 = theta * m.wOut * (sAll - g0)
		}
		if p+1 < len(mem) {
			c0, c1 = cc[p+1], cc[len(mem)]
			l2 = theta * (m.wIn - m.wOut) * (c1 - c0)
		}
		want := len(partners) + min(draw(l1+l2), n-u-1)
		for try := 0; len(partners) < want && try < 8; try++ {
			for range want - len(partners) {
				if rng.Float64()*(l1+l2) < l1 {
					partners = append(partners, int32(searchCum(m.cumG, u+1, n, g0+rng.Float64()*(sAll-g0))))
				} else {
					partners = append(partners, mem[searchCum(cc, p+1, len(mem), c0+rng.Float64()*(c1-c0))])
				}
			}
			slices.Sort(partners)
			partners = slices.Compact(partners)
		}
		for _, v := range partners {
			out = append(out, uint64(u)<<32|uint64(v), uint64(v)<<32|uint64(u))
		}
	}
	return out
}

// Generate writes a graph drawn from the preset's model with seed to path
// (an .npz, written atomically) and returns its statistics. Temporary files
// go beside path and are removed.
func Generate(ctx context.Context, p Preset, seed uint64, path string, opts Options) (Stats, error) {
	if err := p.Validate(); err != nil {
		return Stats{}, err
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int64, int64) {}
	}
	m, err := newModel(p, seed)
	if err != nil {
		return Stats{}, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".gen*")
	if err != nil {
		return Stats{}, fmt.Errorf("generate %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	g := &generator{m: m, seed: seed, tmp: tmp, progress: progress}
	st, err := g.run(ctx, path)
	if err != nil {
		return Stats{}, fmt.Errorf("generate %s: %w", path, err)
	}
	return st, nil
}

type generator struct {
	m        *model
	seed     uint64
	tmp      string
	progress func(string, int64, int64)
}

// parallelBlocks computes fn for blocks [0, nb) on GOMAXPROCS workers, a
// round at a time, and hands the results to emit in block order.
func parallelBlocks[T any](ctx context.Context, nb int, fn func(b int, buf T) T, emit func(b int, r T) error) error {
	w := max(1, runtime.GOMAXPROCS(0))
	bufs := make([]T, w)
	for lo := 0; lo < nb; lo += w {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(nb, lo+w)
		var wg sync.WaitGroup
		for b := lo; b < hi; b++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bufs[b-lo] = fn(b, bufs[b-lo])
			}()
		}
		wg.Wait()
		for b := lo; b < hi; b++ {
			if err := emit(b, bufs[b-lo]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *generator) run(ctx context.Context, path string) (Stats, error) {
	m, n := g.m, g.m.n
	// 1. Edges into row-range buckets.
	total := 2 * (m.p.Edges + int64(n))
	nBuckets := int(max(1, (total+bucketSize-1)/bucketSize))
	rowsPer := (n + nBuckets - 1) / nBuckets
	nBuckets = (n + rowsPer - 1) / rowsPer
	buckets := make([]*spool, nBuckets)
	for i := range buckets {
		s, err := newSpool(filepath.Join(g.tmp, fmt.Sprintf("bucket%04d", i)))
		if err != nil {
			return Stats{}, err
		}
		defer s.close()
		buckets[i] = s
	}
	nb := (n + blockNodes - 1) / blockNodes
	err := parallelBlocks(ctx, nb, func(b int, buf []uint64) []uint64 {
		return m.edgeBlock(g.seed, b, b*blockNodes, min(n, (b+1)*blockNodes), buf[:0])
	}, func(b int, keys []uint64) error {
		for _, k := range keys {
			if err := buckets[int(k>>32)/rowsPer].u64(k); err != nil {
				return err
			}
		}
		g.progress("edges", int64(b+1), int64(nb))
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	// 2. Each bucket sorted by row, repeats dropped, columns appended to
	// the adjacency spool; degrees, homophily and components on the way.
	indices, err := newSpool(filepath.Join(g.tmp, "adj_indices"))
	if err != nil {
		return Stats{}, err
	}
	defer indices.close()
	indptr := make([]int64, n+1)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var intra int64
	var keys []uint64
	var cols []uint32
	for bi, b := range buckets {
		if err := ctx.Err(); err != nil {
			return Stats{}, err
		}
		if keys, err = b.readU64(keys[:0]); err != nil {
			return Stats{}, err
		}
		b.close()
		os.Remove(b.path)
		r0 := bi * rowsPer
		rows := min(n, r0+rowsPer) - r0
		// Counting sort by row, then each row's columns sorted and unique.
		start := make([]int, rows+1)
		for _, k := range keys {
			start[int(k>>32)-r0+1]++
		}
		for r := range rows {
			start[r+1] += start[r]
		}
		cols = slices.Grow(cols[:0], len(keys))[:len(keys)]
		next := slices.Clone(start[:rows])
		for _, k := range keys {
			r := int(k>>32) - r0
			cols[next[r]] = uint32(k)
			next[r]++
		}
		for r := range rows {
			row := slices.Compact(func() []uint32 { s := cols[start[r]:start[r+1]]; slices.Sort(s); return s }())
			u := r0 + r
			for _, v := range row {
				if err := indices.u32(v); err != nil {
					return Stats{}, err
				}
				if m.labels[u] == m.labels[v] {
					intra++
				}
				if int(v) > u {
					union(parent, int32(u), int32(v))
				}
			}
			indptr[u+1] = indptr[u] + int64(len(row))
		}
		g.progress("adjacency", int64(bi+1), int64(nBuckets))
	}
	if err := indices.flush(); err != nil {
		return Stats{}, err
	}
	nnz := indptr[n]
	st := Stats{Nodes: n, Edges: nnz / 2, Features: m.p.Features, Classes: m.p.Classes,
		ClassCounts: make([]int, m.p.Classes), MeanDegree: float64(nnz) / float64(n)}
	if nnz > 0 {
		st.Homophily = float64(intra) / float64(nnz)
	}
	for _, c := range m.labels {
		st.ClassCounts[c]++
	}
	degrees := make([]int32, n)
	var ss float64
	for u := range n {
		d := indptr[u+1] - indptr[u]
		degrees[u] = int32(d)
		st.MaxDegree = max(st.MaxDegree, int(d))
		ss += (float64(d) - st.MeanDegree) * (float64(d) - st.MeanDegree)
	}
	st.DegreeCV = math.Sqrt(ss/float64(n)) / st.MeanDegree
	slices.Sort(degrees)
	st.MedianDegree = int(degrees[n/2])
	degrees = nil
	size := make([]int32, n)
	for u := range n {
		r := find(parent, int32(u))
		size[r]++
		st.LargestComponent = max(st.LargestComponent, int(size[r]))
	}
	size, parent = nil, nil

	// 3. Features.
	feat := newFeatureModel(m.p, g.seed)
	fIdx, err := newSpool(filepath.Join(g.tmp, "attr_indices"))
	if err != nil {
		return Stats{}, err
	}
	defer fIdx.close()
	fVal, err := newSpool(filepath.Join(g.tmp, "attr_data"))
	if err != nil {
		return Stats{}, err
	}
	defer fVal.close()
	fptr := make([]int64, n+1)
	type rowsBuf struct {
		ptr  []int
		cols []uint32
		vals []float32
	}
	err = parallelBlocks(ctx, nb, func(b int, buf rowsBuf) rowsBuf {
		lo, hi := b*blockNodes, min(n, (b+1)*blockNodes)
		buf.ptr, buf.cols, buf.vals = append(buf.ptr[:0], 0), buf.cols[:0], buf.vals[:0]
		ws := newWordScratch(m.p.Features)
		for u := lo; u < hi; u++ {
			buf.cols, buf.vals = feat.row(g.seed, u, m.labels[u], ws, buf.cols, buf.vals)
			buf.ptr = append(buf.ptr, len(buf.cols))
		}
		return buf
	}, func(b int, buf rowsBuf) error {
		lo := b * blockNodes
		for i := 1; i < len(buf.ptr); i++ {
			fptr[lo+i] = fptr[lo] + int64(buf.ptr[i])
		}
		for i, c := range buf.cols {
			if err := fIdx.u32(c); err != nil {
				return err
			}
			if err := fVal.u32(math.Float32bits(buf.vals[i])); err != nil {
				return err
			}
		}
		g.progress("features", int64(b+1), int64(nb))
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	if err := errors.Join(fIdx.flush(), fVal.flush()); err != nil {
		return Stats{}, err
	}
	st.FeatureNnz = fptr[n]

	// 4. The archive.
	g.progress("write", 0, 1)
	lab := make([]int64, n)
	for u, c := range m.labels {
		lab[u] = int64(c)
	}
	entries := []npyEntry{
		{name: "adj_data", descr: "<f4", shape: []int64{nnz}, src: onesF32(nnz)},
		{name: "adj_indices", descr: "<i4", shape: []int64{nnz}, file: indices.path},
		{name: "adj_indptr", descr: "<i8", shape: []int64{int64(n + 1)}, src: i64Reader(indptr)},
		{name: "adj_shape", descr: "<i8", shape: []int64{2}, src: i64Reader([]int64{int64(n), int64(n)})},
		{name: "attr_data", descr: "<f4", shape: []int64{fptr[n]}, file: fVal.path},
		{name: "attr_indices", descr: "<i4", shape: []int64{fptr[n]}, file: fIdx.path},
		{name: "attr_indptr", descr: "<i8", shape: []int64{int64(n + 1)}, src: i64Reader(fptr)},
		{name: "attr_shape", descr: "<i8", shape: []int64{2}, src: i64Reader([]int64{int64(n), int64(m.p.Features)})},
		{name: "labels", descr: "<i8", shape: []int64{int64(n)}, src: i64Reader(lab)},
	}
	if m.p.TrainFrac > 0 || m.p.ValidFrac > 0 {
		for name, ids := range splitParts(m.p, g.seed) {
			entries = append(entries, npyEntry{name: name, descr: "<i8", shape: []int64{int64(len(ids))}, src: i64Reader(ids)})
		}
	}
	if err = writeNpz(path, entries); err != nil {
		return Stats{}, err
	}
	g.progress("write", 1, 1)
	return st, nil
}

func find(parent []int32, x int32) int32 {
	for parent[x] != x {
		parent[x] = parent[parent[x]]
		x = parent[x]
	}
	return x
}

// union joins the sets of a and b (the smaller root becomes the parent, so
// the result does not depend on anything but the edge order).
func union(parent []int32, a, b int32) {
	ra, rb := find(parent, a), find(parent, b)
	if ra == rb {
		return
	}
	if ra < rb {
		parent[rb] = ra
	} else {
		parent[ra] = rb
	}
}

// spool is a buffered temporary file of little-endian words.
type spool struct {
	path string
	f    *os.File
	w    *bufio.Writer
	b    [8]byte
}

func newSpool(path string) (*spool, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &spool{path: path, f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (s *spool) u64(v uint64) error {
	binary.LittleEndian.PutUint64(s.b[:], v)
	_, err := s.w.Write(s.b[:8])
	return err
}

func (s *spool) u32(v uint32) error {
	binary.LittleEndian.PutUint32(s.b[:], v)
	_, err := s.w.Write(s.b[:4])
	return err
}

func (s *spool) flush() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	return nil
}

// readU64 flushes the spool and reads it back as words appended to buf.
func (s *spool) readU64(buf []uint64) ([]uint64, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(s.f, 1<<16)
	var b [8]byte
	for {
		if _, err := io.ReadFull(r, b[:]); err == io.EOF {
			return buf, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", s.path, err)
		}
		buf = append(buf, binary.LittleEndian.Uint64(b[:]))
	}
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// splitKeys are the archive entries (data.LoadFile reads them) of a stored split (node ids, ascending).
var splitKeys = [3]string{"split_train", "split_valid", "split_test"}

// splitParts draws the stored split: a random permutation cut at the
// preset's fractions, each part sorted.
func splitParts(p Preset, seed uint64) iter.Seq2[string, []int64] {
	return func(yield func(string, []int64) bool) {
		n := p.Nodes
		perm := rand.New(rand.NewPCG(seed, tagSplit)).Perm(n)
		a := int(math.Round(p.TrainFrac * float64(n)))
		b := a + int(math.Round(p.ValidFrac*float64(n)))
		for i, part := range [][]int{perm[:a], perm[a:b], perm[b:]} {
			ids := make([]int64, len(part))
			for j, v := range part {
				ids[j] = int64(v)
			}
			slices.Sort(ids)
			if !yield(splitKeys[i], ids) {
				return
			}
		}
	}
}
