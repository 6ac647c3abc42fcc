package data

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// Graph is a standardised dataset: symmetric unweighted adjacency without
// self loops on the largest connected component, sparse features, labels.
type Graph struct {
	Name       string
	Path       string
	Adj        *tensor.CSR // n×n, symmetric, values 1, no self loops
	Features   *tensor.CSR // n×d, as stored (or 0/1 with BinaryAttr)
	Labels     []int32
	NumClasses int
	// LCCNodes maps each node to its row in the raw file.
	LCCNodes []int
	RawNodes int
	// Split is the dataset's official split (OGB datasets); nil for
	// datasets split at random per seed. Use [SplitFor] rather than reading
	// it directly.
	Split *FixedSplit
	// Changes is what standardisation changed in the file's graph
	// (reported by the commands that load it and by `rgnn data info`).
	Changes Changes
}

// NumNodes returns n.
func (g *Graph) NumNodes() int { return g.Adj.Rows }

// NumEdges returns the number of undirected edges.
func (g *Graph) NumEdges() int { return g.Adj.Nnz() / 2 }

// ClassCounts returns the number of nodes per class.
func (g *Graph) ClassCounts() []int {
	c := make([]int, g.NumClasses)
	for _, y := range g.Labels {
		c[y]++
	}
	return c
}

// Options control Load.
type Options struct {
	Dir        string // data directory ("" → ResolveDir(""))
	BinaryAttr bool   // set every nonzero feature to 1
	Fetch      FetchOptions
}

// Load fetches (if needed) and loads a registered dataset. OGB datasets keep
// every node (their official split refers to all of them) and load from a
// binary cache beside their files after the first conversion.
func Load(ctx context.Context, name string, o Options) (*Graph, error) {
	at, notLooked, err := resolveDir(o.Dir)
	if err != nil {
		return nil, err
	}
	dir := at.dir
	if info, err := Lookup(name); err == nil && info.Aux {
		return nil, fmt.Errorf("%s is not a graph (%s): fetch it with rgnn data fetch --dataset %s", name, info.Source, name)
	} else if err == nil && info.OGB != nil {
		o.Fetch.URL = downloadURL(info, o.Fetch)
		g, err := loadOGB(ctx, info, dir, o)
		return g, located(ogbMissing(ctx, info, dir, o.Fetch.URL, err), at, notLooked)
	}
	path, err := Fetch(ctx, name, dir, o.Fetch)
	if err != nil {
		return nil, located(err, at, notLooked)
	}
	g, err := LoadFile(path, o.BinaryAttr)
	if err != nil {
		return nil, err
	}
	g.Name = name
	return g, nil
}

// LoadFile loads and standardises a dataset file. The input is checked
// first (CheckAdjacency, CheckFeatures, CheckLabels: negative or
// non-finite edge weights, non-finite features and labels out of range are
// errors naming the file and the first bad entry; so is a graph without
// edges), and what standardising changed is counted in Graph.Changes.
func LoadFile(path string, binaryAttr bool) (*Graph, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	adj, adjDups, err := readCSR(a, "adj_matrix", "adj", edgeWeights)
	if err != nil {
		return nil, err
	}
	if adj.Rows != adj.Cols {
		return nil, fmt.Errorf("%s: adjacency is %d×%d, want square", path, adj.Rows, adj.Cols)
	}
	n := adj.Rows
	var feats *tensor.CSR
	featDups := 0
	if hasCSR(a, "attr_matrix", "attr") {
		if feats, featDups, err = readCSR(a, "attr_matrix", "attr", featureValues); err != nil {
			return nil, err
		}
		if feats.Rows != n {
			return nil, fmt.Errorf("%s: features have %d rows for %d nodes", path, feats.Rows, n)
		}
	} else {
		feats = identity(n) // graphs without features (polblogs)
	}
	lab, _, err := a.Int64("labels")
	if err != nil {
		return nil, err
	}
	if len(lab) != n {
		return nil, fmt.Errorf("%s: %d labels for %d nodes", path, len(lab), n)
	}
	// A graph split at random needs every class; one with a stored split
	// (generated graphs) may leave a class empty.
	nc, err := CheckLabels(path, "labels", lab, !hasStoredSplit(a))
	if err != nil {
		return nil, err
	}
	if err := checkFormatVersion(a); err != nil {
		return nil, err
	}
	labels := make([]int32, n)
	for i, y := range lab {
		labels[i] = int32(y)
	}
	sym, changes := Standardise(adj)
	if sym.Nnz() == 0 {
		return nil, fmt.Errorf("%s: the graph has no edges (%d nodes; after dropping self-loops and zero weights): "+
			"a node classification graph needs edges", path, n)
	}
	changes.Duplicates, changes.FeatureDuplicates = adjDups, featDups
	keep, comps, err := keptNodes(a, sym)
	if err != nil {
		return nil, err
	}
	changes.Components, changes.DroppedNodes = comps, n-len(keep)
	sub, subFeats := sym, feats
	if len(keep) != n { // the whole graph is one component: nothing to restrict
		sub, subFeats = subgraph(sym, keep), rows(feats, keep)
	}
	g := &Graph{Path: path, Adj: sub, Features: subFeats, NumClasses: nc, LCCNodes: keep, RawNodes: n, Changes: changes}
	g.Labels = make([]int32, len(keep))
	for i, v := range keep {
		g.Labels[i] = labels[v]
	}
	if g.Split, err = readStoredSplit(a, n, keep); err != nil {
		return nil, err
	}
	if binaryAttr {
		for i := range g.Features.Values {
			if g.Features.Values[i] != 0 {
				g.Features.Values[i] = 1
			}
		}
	}
	return g, nil
}

// storedSplitKeys are the entries of a fixed split stored in an .npz (node
// ids of the raw file), as package synth writes them.
var storedSplitKeys = [3]string{"split_train", "split_valid", "split_test"}

// hasStoredSplit reports whether the archive stores a fixed split.
func hasStoredSplit(a *npz.Archive) bool {
	for _, k := range storedSplitKeys {
		if !a.Has(k) {
			return false
		}
	}
	return true
}

// readStoredSplit returns the file's fixed split mapped to the kept nodes
// (nodes outside the largest component are dropped), or nil if the file
// stores none.
func readStoredSplit(a *npz.Archive, n int, keep []int) (*FixedSplit, error) {
	for _, k := range storedSplitKeys {
		if !a.Has(k) {
			return nil, nil
		}
	}
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range keep {
		pos[v] = int32(i)
	}
	sp := &FixedSplit{Name: "fixed"}
	for i, dst := range []*[]int{&sp.Train, &sp.Val, &sp.Test} {
		ids, _, err := a.Int64(storedSplitKeys[i])
		if err != nil {
			return nil, err
		}
		*dst = make([]int, 0, len(ids))
		for _, v := range ids {
			if v < 0 || v >= int64(n) {
				return nil, fmt.Errorf("%s: %s: node %d outside %d nodes", a.Path, storedSplitKeys[i], v, n)
			}
			if p := pos[v]; p >= 0 {
				*dst = append(*dst, int(p))
			}
		}
	}
	return sp, nil
}

func hasCSR(a *npz.Archive, dot, old string) bool {
	return a.Has(dot+".data") || a.Has(old+"_data")
}

// valueKind says how readCSR checks a matrix's stored values.
type valueKind int

const (
	edgeWeights   valueKind = iota // finite and ≥ 0 (CheckWeights)
	featureValues                  // finite (CheckFeatures)
)

// badValue describes why v is not a valid value of kind ("" if it is).
func (k valueKind) badValue(v float32) string {
	switch {
	case math.IsNaN(float64(v)) || math.IsInf(float64(v), 0):
		if k == edgeWeights {
			return fmt.Sprintf("edge weight %v is non-finite (edge weights must be finite and ≥ 0; 0 is no edge)", v)
		}
		return fmt.Sprintf("feature value %v (features must be finite)", v)
	case k == edgeWeights && v < 0:
		return fmt.Sprintf("edge weight %v is negative (edge weights must be finite and ≥ 0; 0 is no edge)", v)
	}
	return ""
}

// readCSR reads a scipy CSR stored as <dot>.{data,indices,indptr,shape} or
// the older <old>_{data,indices,indptr,shape}, checks its stored values as
// kind (before duplicates are merged) and returns how many duplicate
// entries it merged (summed, as scipy does).
func readCSR(a *npz.Archive, dot, old string, kind valueKind) (*tensor.CSR, int, error) {
	key := func(part string) string {
		if a.Has(dot + "." + part) {
			return dot + "." + part
		}
		return old + "_" + part
	}
	data, _, err := a.Float32(key("data"))
	if err != nil {
		return nil, 0, err
	}
	ind, _, err := a.Int32(key("indices"))
	if err != nil {
		return nil, 0, err
	}
	ptr, _, err := a.Int64(key("indptr"))
	if err != nil {
		return nil, 0, err
	}
	shape, _, err := a.Int64(key("shape"))
	if err != nil {
		return nil, 0, err
	}
	if len(shape) != 2 || shape[0] < 0 || shape[1] < 0 || shape[0] > 1<<30 || shape[1] > 1<<30 {
		return nil, 0, fmt.Errorf("%s: %s: bad shape %v", a.Path, dot, shape)
	}
	r, c := int(shape[0]), int(shape[1])
	if len(ptr) != r+1 || len(ind) != len(data) || ptr[0] != 0 || ptr[r] != int64(len(ind)) {
		return nil, 0, fmt.Errorf("%s: %s: inconsistent CSR (indptr %d for %d rows, %d indices, %d values)",
			a.Path, dot, len(ptr), r, len(ind), len(data))
	}
	if m, ok := sortedCSR(r, c, ptr, ind, data); ok {
		for row := 0; row < r; row++ {
			for k := m.Indptr[row]; k < m.Indptr[row+1]; k++ {
				if why := kind.badValue(m.Values[k]); why != "" {
					return nil, 0, fmt.Errorf("%s: %s: row %d, column %d: %s", a.Path, key("data"), row, m.Indices[k], why)
				}
			}
		}
		return m, 0, nil
	}
	es := make([]tensor.Entry, 0, len(ind))
	for i := 0; i < r; i++ {
		if ptr[i+1] < ptr[i] || ptr[i+1] > int64(len(ind)) {
			return nil, 0, fmt.Errorf("%s: %s: indptr decreases at row %d or exceeds the %d indices", a.Path, dot, i, len(ind))
		}
		for k := ptr[i]; k < ptr[i+1]; k++ {
			if ind[k] < 0 || int(ind[k]) >= c {
				return nil, 0, fmt.Errorf("%s: %s: column %d out of range in row %d", a.Path, dot, ind[k], i)
			}
			if why := kind.badValue(data[k]); why != "" {
				return nil, 0, fmt.Errorf("%s: %s: row %d, column %d: %s", a.Path, key("data"), i, ind[k], why)
			}
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(ind[k]), Val: data[k]})
		}
	}
	m, err := tensor.FromCOO(r, c, es)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %s: %w", a.Path, dot, err)
	}
	return m, len(es) - m.Nnz(), nil
}

// sortedCSR builds the CSR directly when every row's columns are in range
// and strictly increasing (scipy's canonical format, and every file rgnn
// writes): the same matrix FromCOO would assemble, without sorting nnz
// entries. ok is false when the fast path does not apply.
func sortedCSR(r, c int, ptr []int64, ind []int32, data []float32) (*tensor.CSR, bool) {
	for i := 0; i < r; i++ {
		lo, hi := ptr[i], ptr[i+1]
		if hi < lo || hi > int64(len(ind)) {
			return nil, false // readCSR reports it
		}
		prev := int32(-1)
		for _, v := range ind[lo:hi] {
			if v <= prev || int(v) >= c {
				return nil, false
			}
			prev = v
		}
	}
	m := &tensor.CSR{Rows: r, Cols: c, Indptr: make([]int, r+1), Indices: ind, Values: data}
	for i, p := range ptr {
		m.Indptr[i] = int(p)
	}
	return m, true
}

// isStandard reports whether a already is a symmetric pattern without self
// loops or stored zeros (sorted unique columns assumed): then standardize
// only sets the values to 1. Every entry above the diagonal, (r, c) with
// c > r, must have its mirror (c, r): taking rows in ascending order, row
// c's entries below the diagonal are consumed in order by one cursor per
// row. The mirrors of distinct entries are distinct, so when as many
// entries lie below the diagonal as above, the mirrors are all of them and
// the pattern is symmetric.
func isStandard(a *tensor.CSR) bool {
	if a.Rows != a.Cols {
		return false
	}
	cur := make([]int, a.Rows)
	copy(cur, a.Indptr[:a.Rows])
	upper := 0
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			c := int(a.Indices[k])
			if c <= r {
				if c == r || a.Values[k] == 0 {
					return false
				}
				continue
			}
			if a.Values[k] == 0 {
				return false
			}
			p := cur[c]
			if p >= a.Indptr[c+1] || int(a.Indices[p]) != r {
				return false
			}
			cur[c]++
			upper++
		}
	}
	return 2*upper == a.Nnz()
}

// standardize returns the symmetric 0/1 pattern of a + aᵀ without the diagonal.
func standardize(a *tensor.CSR) *tensor.CSR {
	if isStandard(a) {
		return ones(a)
	}
	return standardizeCOO(a)
}

// ones returns a's pattern with every value 1 (sharing a's index arrays).
func ones(a *tensor.CSR) *tensor.CSR {
	s := &tensor.CSR{Rows: a.Rows, Cols: a.Cols, Indptr: a.Indptr, Indices: a.Indices,
		Values: make([]float32, a.Nnz())}
	for i := range s.Values {
		s.Values[i] = 1
	}
	return s
}

// standardizeCOO is standardize by assembling a + aᵀ from coordinates.
func standardizeCOO(a *tensor.CSR) *tensor.CSR {
	es := make([]tensor.Entry, 0, 2*a.Nnz())
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			c := a.Indices[k]
			if int(c) == r || a.Values[k] == 0 {
				continue
			}
			es = append(es, tensor.Entry{Row: int32(r), Col: c, Val: 1}, tensor.Entry{Row: c, Col: int32(r), Val: 1})
		}
	}
	s, _ := tensor.FromCOO(a.Rows, a.Cols, es)
	for i := range s.Values {
		s.Values[i] = 1
	}
	return s
}

// largestComponentCount returns the nodes of the largest connected
// component in ascending order (ties: the component found first from node 0)
// and the number of components.
func largestComponentCount(a *tensor.CSR) ([]int, int) {
	comp := make([]int, a.Rows)
	for i := range comp {
		comp[i] = -1
	}
	var sizes []int
	stack := []int{}
	for s := 0; s < a.Rows; s++ {
		if comp[s] >= 0 {
			continue
		}
		id := len(sizes)
		sizes = append(sizes, 0)
		comp[s] = id
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			sizes[id]++
			for k := a.Indptr[v]; k < a.Indptr[v+1]; k++ {
				if u := int(a.Indices[k]); comp[u] < 0 {
					comp[u] = id
					stack = append(stack, u)
				}
			}
		}
	}
	best := 0
	for id, sz := range sizes {
		if sz > sizes[best] {
			best = id
		}
	}
	var keep []int
	for v, c := range comp {
		if c == best {
			keep = append(keep, v)
		}
	}
	return keep, len(sizes)
}

// subgraph returns a restricted to the nodes keep (ascending), renumbered.
func subgraph(a *tensor.CSR, keep []int) *tensor.CSR {
	pos := make([]int32, a.Rows)
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range keep {
		pos[v] = int32(i)
	}
	out := &tensor.CSR{Rows: len(keep), Cols: len(keep), Indptr: make([]int, len(keep)+1)}
	for i, v := range keep {
		for k := a.Indptr[v]; k < a.Indptr[v+1]; k++ {
			if p := pos[a.Indices[k]]; p >= 0 {
				out.Indices = append(out.Indices, p)
				out.Values = append(out.Values, a.Values[k])
			}
		}
		out.Indptr[i+1] = len(out.Indices)
	}
	return out
}

// rows returns the rows keep of a.
func rows(a *tensor.CSR, keep []int) *tensor.CSR {
	out := &tensor.CSR{Rows: len(keep), Cols: a.Cols, Indptr: make([]int, len(keep)+1)}
	for i, v := range keep {
		lo, hi := a.Indptr[v], a.Indptr[v+1]
		out.Indices = append(out.Indices, a.Indices[lo:hi]...)
		out.Values = append(out.Values, a.Values[lo:hi]...)
		out.Indptr[i+1] = len(out.Indices)
	}
	return out
}

func identity(n int) *tensor.CSR {
	m := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, n), Values: make([]float32, n)}
	for i := 0; i < n; i++ {
		m.Indptr[i+1] = i + 1
		m.Indices[i] = int32(i)
		m.Values[i] = 1
	}
	return m
}

// IsPath reports whether a --dataset value names a file rather than a
// registered dataset: it ends in .npz or contains a path separator.
func IsPath(dataset string) bool {
	return strings.HasSuffix(dataset, ".npz") || strings.ContainsRune(dataset, '/') ||
		strings.ContainsRune(dataset, filepath.Separator)
}

// LoadDataset loads a registered dataset by name (Load) or, when dataset
// is a path (IsPath), an .npz in the cora_ml layout (LoadFileCached, named
// by its file name without extension) or an OGB node-property folder of any
// name and size (LoadOGBFolder).
func LoadDataset(ctx context.Context, dataset string, o Options) (*Graph, error) {
	if !IsPath(dataset) {
		return Load(ctx, dataset, o)
	}
	if IsOGBFolder(dataset) {
		return LoadOGBFolder(ctx, dataset, "", o.BinaryAttr, o.Fetch.Progress)
	}
	g, err := LoadFileCached(dataset, o.BinaryAttr)
	if err != nil {
		return nil, err
	}
	g.Name = strings.TrimSuffix(filepath.Base(dataset), ".npz")
	return g, nil
}

// CacheSuffix is appended to an .npz's path to name its binary cache.
const CacheSuffix = ".rgnn-cache.bin"

// cacheMinBytes is the size from which LoadFileCached keeps a cache: smaller
// files load in well under a second anyway.
const cacheMinBytes = 32 << 20

// LoadFileCached is LoadFile through a binary cache beside a large file
// (32 MiB or more; path + CacheSuffix): written on the first load, read
// while the file keeps its size and modification time. A damaged or stale
// cache is rebuilt; one that cannot be written (read-only directory) is
// skipped.
func LoadFileCached(path string, binaryAttr bool) (*Graph, error) {
	return loadFileCached(path, binaryAttr, cacheMinBytes)
}

func loadFileCached(path string, binaryAttr bool, minBytes int64) (*Graph, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() < minBytes {
		return LoadFile(path, binaryAttr)
	}
	fp := fmt.Sprintf("npz size=%d mtime=%d\n", st.Size(), st.ModTime().UnixNano())
	cache := path + CacheSuffix
	g, err := readCache(cache, fp)
	if err != nil {
		if g, err = LoadFile(path, false); err != nil {
			return nil, err
		}
		_ = writeCache(cache, fp, g) // best effort: the graph is loaded either way
	}
	g.Path = path
	if binaryAttr {
		for i, v := range g.Features.Values {
			if v != 0 {
				g.Features.Values[i] = 1
			}
		}
	}
	return g, nil
}
