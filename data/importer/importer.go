package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// Options select the input of an import. Their tags bind them to the flags
// of `rgnn data import` (the field reflection of package task).
type Options struct {
	// Format is "edgelist", "pyg" or "ogb"; "" infers it from the inputs.
	Format string `param:"format" help:"input format: edgelist (--edges, --features, --labels), pyg (an .npz of edge_index, x, y, masks) or ogb (an OGB node-property folder); empty: inferred from the inputs"`
	// Edges is the edge list (edgelist), or the PyG .npz or OGB folder.
	Edges    string `param:"edges" help:"edge list (CSV/TSV: source, target[, weight]; header and # comments allowed)"`
	Features string `param:"features" help:"node features: CSV/TSV (one row per node), dense .npy [N, F] or sparse .npz (scipy.sparse.save_npz); empty: none (identity features)"`
	Labels   string `param:"labels" help:"node labels: CSV (one per line, or node,label) or .npy [N]"`
	Train    string `param:"train" help:"training nodes: a file of node ids, or a boolean mask .npy (with --val and --test; empty: a random split per seed)"`
	Val      string `param:"val" help:"validation nodes (as --train)"`
	Test     string `param:"test" help:"test nodes (as --train)"`
	// Nodes is "lcc" (the largest connected component, as every shipped
	// dataset) or "all"; "" chooses all for OGB folders, lcc otherwise.
	Nodes string `param:"nodes" help:"nodes the dataset keeps at load: lcc (the largest connected component) or all; empty: all for --format ogb (its split covers every node), else lcc"`
	// OGBSplit names the split folder of an OGB folder ("": its only one).
	OGBSplit string `param:"ogb_split" help:"--format ogb: the split folder under split/ (empty: the only one)"`
	// Out is the dataset .npz to write.
	Out string `param:"out" help:"the dataset .npz to write (use it with --dataset FILE.npz)"`
}

// Report tells what an import read and how the graph was standardised.
type Report struct {
	Out     string   `json:"out"`
	Format  string   `json:"format"`
	Sources []string `json:"sources"`
	// Input counts.
	RawNodes  int  `json:"raw_nodes"`
	Features  int  `json:"features"` // columns (0: none, identity features)
	Classes   int  `json:"classes"`
	EdgeRows  int  `json:"edge_rows"`
	HeaderRow bool `json:"header_skipped,omitempty"`
	// Standardisation (rgnn's graphs are undirected and unweighted, without
	// self loops or repeated edges).
	ZeroWeight  int `json:"zero_weight_dropped"`
	NonUnit     int `json:"non_unit_weights_ignored"`
	SelfLoops   int `json:"self_loops_dropped"`
	Duplicates  int `json:"duplicates_merged"`
	Symmetrised int `json:"reverse_edges_added"`
	Edges       int `json:"edges"` // undirected edges written
	// What a load keeps.
	KeepAll      bool `json:"keep_all_nodes"`
	Nodes        int  `json:"nodes"`
	LoadedEdges  int  `json:"loaded_edges"`
	NodesDropped int  `json:"nodes_dropped"`
	EdgesDropped int  `json:"edges_dropped"`
	// Split: "given" (stored in the file, used by every command) or
	// "random" (20 training and 20 validation nodes per class, per seed).
	Split        string          `json:"split"`
	SplitSizes   data.SplitSizes `json:"split_sizes"`
	SplitDropped int             `json:"split_nodes_dropped"`
	Warnings     []string        `json:"warnings,omitempty"`
}

// Import reads the input o names, writes the dataset .npz o.Out and loads
// it back as every command will (data.LoadFile), reporting both steps.
func Import(ctx context.Context, o Options, progress io.Writer) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	in, format, err := Read(ctx, o, progress)
	if err != nil {
		return nil, err
	}
	keepAll := in.KeepAll
	if o.Nodes != "" {
		keepAll = o.Nodes == "all"
	}
	rep, err := Write(o.Out, in, keepAll)
	if err != nil {
		return nil, err
	}
	rep.Format = format
	return rep, nil
}

// Validate checks the options that do not need the input files.
func (o Options) Validate() error {
	if o.Edges == "" {
		return errors.New("no input: give --edges FILE (an edge list, a PyG .npz or an OGB folder)")
	}
	if o.Out == "" {
		return errors.New("no output file: give --out FILE.npz")
	}
	if !strings.HasSuffix(o.Out, ".npz") {
		return fmt.Errorf("--out %s: name it FILE.npz (a path ending in .npz is what --dataset reads as a file)", o.Out)
	}
	if o.Nodes != "" && o.Nodes != "lcc" && o.Nodes != "all" {
		return fmt.Errorf("--nodes %q: want lcc or all", o.Nodes)
	}
	_, err := o.format()
	return err
}

// Format infers the input format of o: ogb for a folder, pyg for an .npz
// given as the edges without features or labels, else edgelist.
func (o Options) format() (string, error) {
	switch o.Format {
	case "edgelist", "pyg", "ogb":
		return o.Format, nil
	case "":
	default:
		return "", fmt.Errorf("--format %q: want edgelist, pyg or ogb", o.Format)
	}
	if st, err := os.Stat(o.Edges); err == nil && st.IsDir() {
		return "ogb", nil
	}
	if ext(o.Edges) == ".npz" && o.Features == "" && o.Labels == "" {
		return "pyg", nil
	}
	return "edgelist", nil
}

// Read reads the input o names (Import without writing) and returns it with
// its format.
func Read(ctx context.Context, o Options, progress io.Writer) (*Input, string, error) {
	if o.Edges == "" {
		return nil, "", errors.New("no input: give --edges FILE (an edge list, a PyG .npz or an OGB folder)")
	}
	format, err := o.format()
	if err != nil {
		return nil, "", err
	}
	splitGiven := o.Train != "" || o.Val != "" || o.Test != ""
	if format != "edgelist" && (o.Features != "" || o.Labels != "" || splitGiven) {
		return nil, "", fmt.Errorf("--format %s reads features, labels and split from %s: drop --features, --labels, --train, --val and --test", format, o.Edges)
	}
	if format != "ogb" && o.OGBSplit != "" {
		return nil, "", errors.New("--ogb-split applies to --format ogb only")
	}
	var in *Input
	switch format {
	case "pyg":
		a, err := npz.Open(o.Edges)
		if err != nil {
			return nil, "", err
		}
		in, err = ReadPyG(a)
		if err != nil {
			return nil, "", err
		}
	case "ogb":
		in, err = readOGB(ctx, o.Edges, o.OGBSplit, progress)
	default:
		in, err = readEdgeListInput(o)
	}
	if err != nil {
		return nil, "", err
	}
	return in, format, nil
}

// readEdgeListInput reads the edge list, features, labels and split files.
func readEdgeListInput(o Options) (*Input, error) {
	if o.Labels == "" {
		return nil, errors.New("--labels is required with an edge list (one class per node)")
	}
	y, err := ReadLabels(o.Labels)
	if err != nil {
		return nil, err
	}
	in := &Input{Nodes: len(y), Labels: y, Sources: []string{o.Edges}}
	if o.Features != "" {
		if in.Features, err = ReadFeatures(o.Features); err != nil {
			return nil, err
		}
		if in.Features.Rows != in.Nodes {
			return nil, &InputError{File: o.Features, Msg: fmt.Sprintf("%d feature rows, but %s labels %d nodes", in.Features.Rows, o.Labels, in.Nodes),
				Fix: "features and labels hold one row per node, in the same order"}
		}
		in.Sources = append(in.Sources, o.Features)
	}
	in.Sources = append(in.Sources, o.Labels)
	if in.Edges, err = ReadEdgeListFile(o.Edges, in.Nodes); err != nil {
		return nil, err
	}
	parts := []string{o.Train, o.Val, o.Test}
	given := 0
	for _, p := range parts {
		if p != "" {
			given++
		}
	}
	if given > 0 && given < 3 {
		return nil, errors.New("a split needs --train, --val and --test (validation nodes decide early stopping); give all three, or none for a random split per seed")
	}
	if given == 3 {
		in.Split = &[3][]int{}
		for i, p := range parts {
			if in.Split[i], err = ReadSplitPart(p, in.Nodes); err != nil {
				return nil, err
			}
			in.Sources = append(in.Sources, p)
		}
	}
	return in, nil
}

// readOGB reads an OGB node-property folder of any name and size.
func readOGB(ctx context.Context, dir, split string, progress io.Writer) (*Input, error) {
	g, err := data.LoadOGBFolder(ctx, dir, split, false, progress)
	if err != nil {
		return nil, err
	}
	if err := checkFeatureMatrix(dir+"/raw/node-feat.csv.gz", g.Features); err != nil {
		return nil, err
	}
	n := g.NumNodes()
	in := &Input{Nodes: n, Features: g.Features, Labels: make([]int64, n), KeepAll: true, Sources: []string{dir}}
	for i, y := range g.Labels {
		in.Labels[i] = int64(y)
	}
	in.Edges = &Edges{Rows: g.Adj.Nnz()}
	for r := range n {
		lo, hi := g.Adj.RowRange(r)
		for _, c := range g.Adj.Indices[lo:hi] {
			in.Edges.Src = append(in.Edges.Src, int32(r))
			in.Edges.Dst = append(in.Edges.Dst, c)
		}
	}
	if sp := g.Split; sp != nil {
		in.Split = &[3][]int{sp.Train, sp.Val, sp.Test}
	}
	return in, nil
}

// checkFeatureMatrix checks a loaded feature matrix for non-finite values,
// naming the row (node) and column.
func checkFeatureMatrix(name string, x *tensor.CSR) error {
	for r := range x.Rows {
		lo, hi := x.RowRange(r)
		for k := lo; k < hi; k++ {
			if err := checkFeature(name, r+1, fmt.Sprintf("column %d", x.Indices[k]+1), float64(x.Values[k])); err != nil {
				return err
			}
		}
	}
	return nil
}

// Write standardises in's edges, writes the dataset .npz at path (keeping
// every node at load when keepAll) and loads it back to report what every
// command will see.
func Write(path string, in *Input, keepAll bool) (*Report, error) {
	n := in.Nodes
	if n < 2 {
		return nil, fmt.Errorf("%d nodes: a graph needs at least two", n)
	}
	rep := &Report{Out: path, Sources: in.Sources, RawNodes: n, EdgeRows: in.Edges.Rows, HeaderRow: in.Edges.Header,
		ZeroWeight: in.Edges.ZeroWeight, NonUnit: in.Edges.NonUnit, KeepAll: keepAll, Split: "random"}
	adj, st := Standardise(n, in.Edges.Src, in.Edges.Dst)
	rep.SelfLoops, rep.Duplicates, rep.Symmetrised, rep.Edges = st.SelfLoops, st.Duplicates, st.Symmetrised, adj.Nnz()/2
	if rep.Edges == 0 {
		return nil, fmt.Errorf("%s: no edges left after dropping self loops and zero weights", strings.Join(in.Sources, ", "))
	}
	labels := in.Labels
	classes := 0
	for _, y := range labels {
		classes = max(classes, int(y)+1)
	}
	rep.Classes = classes
	if classes < 2 {
		return nil, fmt.Errorf("%s: every node has label %d: node classification needs at least two classes", strings.Join(in.Sources, ", "), labels[0])
	}
	counts := make([]int, classes)
	for _, y := range labels {
		counts[y]++
	}
	var empty []string
	for c, k := range counts {
		if k == 0 {
			empty = append(empty, fmt.Sprint(c))
		}
	}
	if len(empty) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("classes without nodes: %s (labels run up to %d: the models get %d outputs)",
			strings.Join(empty, ", "), classes-1, classes))
	}
	entries := csrEntries("adj_matrix", adj)
	if in.Features != nil {
		rep.Features = in.Features.Cols
		entries = append(entries, csrEntries("attr_matrix", in.Features)...)
	}
	entries = append(entries, npz.I64("labels", []int{n}, labels),
		npz.I64(data.FormatKey, []int{}, []int64{data.FormatVersion}))
	if keepAll {
		entries = append(entries, npz.I64(data.KeepAllNodesKey, []int{}, []int64{1}))
	}
	given := 0
	if in.Split != nil {
		rep.Split = "given"
		for i, part := range in.Split {
			ids := make([]int64, len(part))
			for j, v := range part {
				ids[j] = int64(v)
			}
			given += len(part)
			entries = append(entries, npz.I64([]string{"split_train", "split_valid", "split_test"}[i], []int{len(ids)}, ids))
		}
		if err := disjoint(in.Split); err != nil {
			return nil, err
		}
	}
	if err := npz.WriteFile(path, entries...); err != nil {
		return nil, err
	}
	g, err := data.LoadFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("reading back %s: %w", path, err)
	}
	rep.Nodes, rep.LoadedEdges = g.NumNodes(), g.NumEdges()
	rep.NodesDropped, rep.EdgesDropped = n-g.NumNodes(), rep.Edges-g.NumEdges()
	tr, va, te, err := data.SplitFor(g, 0)
	if g.Split != nil {
		sp := g.Split
		rep.SplitSizes = data.SplitSizes{Train: len(sp.Train), Valid: len(sp.Val), Test: len(sp.Test)}
		rep.SplitDropped = given - len(sp.Train) - len(sp.Val) - len(sp.Test)
		for i, part := range [][]int{sp.Train, sp.Val, sp.Test} {
			if len(part) == 0 {
				os.Remove(path)
				return nil, fmt.Errorf("no %s nodes are left in the largest connected component (%d of %d nodes): "+
					"keep every node (--nodes all) or give a split inside the component (file discarded)",
					[]string{"training", "validation", "test"}[i], g.NumNodes(), n)
			}
		}
	} else if err == nil {
		rep.SplitSizes = data.SplitSizes{Train: len(tr), Valid: len(va), Test: len(te)}
	} else {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no split given and the random split (20 training and 20 validation nodes per class) "+
			"cannot be drawn: %v; give --train, --val and --test", err))
	}
	return rep, nil
}

// disjoint checks that no node is in two parts of a split.
func disjoint(sp *[3][]int) error {
	part := map[int]int{}
	names := []string{"training", "validation", "test"}
	for i, ids := range sp {
		for _, v := range ids {
			if j, ok := part[v]; ok && j != i {
				return fmt.Errorf("node %d is both a %s and a %s node: the parts of a split must not overlap", v, names[j], names[i])
			}
			part[v] = i
		}
	}
	return nil
}

// csrEntries are the scipy CSR arrays of m under prefix ("adj_matrix.data",
// ".indices", ".indptr", ".shape").
func csrEntries(prefix string, m *tensor.CSR) []npz.Entry {
	ptr := make([]int64, len(m.Indptr))
	for i, p := range m.Indptr {
		ptr[i] = int64(p)
	}
	return []npz.Entry{
		npz.F32(prefix+".data", []int{len(m.Values)}, m.Values),
		npz.I32(prefix+".indices", []int{len(m.Indices)}, m.Indices),
		npz.I64(prefix+".indptr", []int{len(ptr)}, ptr),
		npz.I64(prefix+".shape", []int{2}, []int64{int64(m.Rows), int64(m.Cols)}),
	}
}

// Stats count what standardising an edge list changed.
type Stats struct {
	SelfLoops   int // rows (u, u) dropped
	Duplicates  int // rows repeating a directed pair already listed
	Symmetrised int // directed pairs (u, v) listed without (v, u): the reverse is added
}

// Standardise builds the symmetric 0/1 adjacency of n nodes without self
// loops from directed pairs (both orders may be listed, repeats are
// merged), counting each change.
func Standardise(n int, src, dst []int32) (*tensor.CSR, Stats) {
	var st Stats
	keys := make([]uint64, 0, len(src))
	for k, u := range src {
		v := dst[k]
		if u == v {
			st.SelfLoops++
			continue
		}
		keys = append(keys, uint64(u)<<32|uint64(uint32(v)))
	}
	slices.Sort(keys)
	before := len(keys)
	keys = slices.Compact(keys)
	st.Duplicates = before - len(keys)
	all := make([]uint64, 0, 2*len(keys))
	for _, k := range keys {
		u, v := k>>32, k&0xffffffff
		rev := v<<32 | u
		if _, ok := slices.BinarySearch(keys, rev); !ok {
			st.Symmetrised++
			all = append(all, rev)
		}
	}
	all = append(all, keys...)
	slices.Sort(all)
	m := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, len(all)), Values: make([]float32, len(all))}
	for i, k := range all {
		m.Indptr[k>>32+1]++
		m.Indices[i] = int32(k & 0xffffffff)
		m.Values[i] = 1
	}
	for i := range n {
		m.Indptr[i+1] += m.Indptr[i]
	}
	return m, st
}
