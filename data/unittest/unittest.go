// Package unittest reads the black-box robustness unit test of Mujkanovic
// et al. 2022 ("Are Defenses for Graph Neural Networks Robust?", NeurIPS):
// one .npz (unit_test.npz) holding, per dataset (cora_ml, citeseer), the
// graph, five 10/10/80 splits and, per scenario (evasion, poisoning),
// source model, split and budget, the edges to flip — the strongest global
// perturbations the authors found against each defense. A model passes the
// test by keeping its accuracy on them.
//
// Keys (ds a dataset, i a split, b a budget):
//
//	{ds}/dataset/adjacency   [E, 2] edges of the upper triangle (symmetrise)
//	{ds}/dataset/features    [nnz, 2] (node, feature) of the 1s of binary features
//	{ds}/dataset/labels      [N]
//	{ds}/splits/{i}/{train,val,test}                         node ids
//	{ds}/perturbations/{scenario}/{model}/split_{i}/budget_{b}  [k, 2] edges to flip
//
// Every array is checked as it is read: node ids inside the graph, no self
// loops, labels ≥ 0, splits of distinct nodes; errors name the key and the
// row.
package unittest

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// The published file's contents (the fetch checks a download against them).
var (
	PublishedDatasets  = []string{"cora_ml", "citeseer"}
	PublishedModels    = []string{"gcn", "jaccard_gcn", "svd_gcn", "rgcn", "pro_gnn", "gnn_guard", "grand", "soft_median_gdc"}
	PublishedScenarios = []string{"evasion", "poisoning"}
	PublishedSplits    = 5
)

// File is a unit-test file.
type File struct {
	Path     string
	Datasets []*Dataset // in the order of the names, sorted
}

// Dataset is one dataset of the file with its splits and perturbations.
type Dataset struct {
	Name       string
	Adj        *tensor.CSR // symmetric 0/1, no self loops
	Features   *tensor.CSR // binary
	Labels     []int32
	NumClasses int
	Splits     []Split
	// Perturbations by scenario, in order of source model, split, budget.
	Perturbations map[string][]Perturbation
}

// Split is one train/val/test split.
type Split struct{ Train, Val, Test []int }

// Perturbation is one set of edges to flip.
type Perturbation struct {
	Source string // the model the perturbation was found against
	Split  int
	// Budget is the key's budget label; Value its number (NaN-free; the
	// label's order when it is not a number).
	Budget string
	Value  float64
	Flips  [][2]int32 // u < v
}

// Scenarios lists the scenarios with perturbations in d.
func (d *Dataset) Scenarios() []string {
	var out []string
	for s := range d.Perturbations {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Open reads a unit-test file.
func Open(path string) (*File, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	return Read(a)
}

// Read checks and decodes the arrays of a unit-test archive.
func Read(a *npz.Archive) (*File, error) {
	byDS := map[string][]string{}
	for _, k := range a.Keys() {
		ds, _, ok := strings.Cut(k, "/")
		if !ok {
			continue // not part of the layout
		}
		byDS[ds] = append(byDS[ds], k)
	}
	f := &File{Path: a.Path}
	var names []string
	for ds := range byDS {
		names = append(names, ds)
	}
	sort.Strings(names)
	for _, ds := range names {
		if !a.Has(ds + "/dataset/adjacency") {
			continue
		}
		d, err := readDataset(a, ds, byDS[ds])
		if err != nil {
			return nil, err
		}
		f.Datasets = append(f.Datasets, d)
	}
	if len(f.Datasets) == 0 {
		return nil, fmt.Errorf("%s: no {dataset}/dataset/adjacency array: not a robustness unit-test file (keys: %s)", a.Path, clipKeys(a.Keys()))
	}
	return f, nil
}

func clipKeys(k []string) string {
	if len(k) > 8 {
		return strings.Join(k[:8], ", ") + ", …"
	}
	return strings.Join(k, ", ")
}

// errAt names a key (and a row) of the file.
func errAt(a *npz.Archive, key string, row int, format string, args ...any) error {
	where := key
	if row >= 0 {
		where += fmt.Sprintf(" row %d", row)
	}
	return fmt.Errorf("%s: %s: %s", a.Path, where, fmt.Sprintf(format, args...))
}

// pairs reads an [k, 2] integer array of node pairs below n; upper turns
// each into (min, max); self loops are errors.
func pairs(a *npz.Archive, key string, n int) ([][2]int32, error) {
	v, shape, err := a.Int64(key)
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[1] != 2 {
		if len(v) == 0 {
			return nil, nil
		}
		return nil, errAt(a, key, -1, "shape %v, want [k, 2] node pairs", shape)
	}
	out := make([][2]int32, shape[0])
	for i := range out {
		u, w := v[2*i], v[2*i+1]
		if u < 0 || w < 0 || u >= int64(n) || w >= int64(n) {
			return nil, errAt(a, key, i, "edge (%d, %d) outside the %d nodes", u, w, n)
		}
		if u == w {
			return nil, errAt(a, key, i, "self loop (%d, %d)", u, w)
		}
		out[i] = [2]int32{int32(min(u, w)), int32(max(u, w))}
	}
	return out, nil
}

func readDataset(a *npz.Archive, ds string, keys []string) (*Dataset, error) {
	d := &Dataset{Name: ds, Perturbations: map[string][]Perturbation{}}
	lab, shape, err := a.Int64(ds + "/dataset/labels")
	if err != nil {
		return nil, err
	}
	if len(shape) != 1 || len(lab) < 2 {
		return nil, errAt(a, ds+"/dataset/labels", -1, "shape %v, want [N] with N ≥ 2", shape)
	}
	n := len(lab)
	d.Labels = make([]int32, n)
	for i, y := range lab {
		if y < 0 || y >= 1<<20 {
			return nil, errAt(a, ds+"/dataset/labels", i, "label %d out of range", y)
		}
		d.Labels[i] = int32(y)
		d.NumClasses = max(d.NumClasses, int(y)+1)
	}
	edges, err := pairs(a, ds+"/dataset/adjacency", n)
	if err != nil {
		return nil, err
	}
	d.Adj = symmetric(n, edges, nil)
	fv, fshape, err := a.Int64(ds + "/dataset/features")
	if err != nil {
		return nil, err
	}
	if len(fshape) != 2 || fshape[1] != 2 || fshape[0] == 0 {
		return nil, errAt(a, ds+"/dataset/features", -1, "shape %v, want [nnz, 2] (node, feature) coordinates", fshape)
	}
	cols := int64(0)
	es := make([]tensor.Entry, 0, fshape[0])
	for i := range fshape[0] {
		r, c := fv[2*i], fv[2*i+1]
		if r < 0 || r >= int64(n) || c < 0 || c >= 1<<24 {
			return nil, errAt(a, ds+"/dataset/features", i, "coordinate (%d, %d) outside %d nodes", r, c, n)
		}
		cols = max(cols, c+1)
		es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: 1})
	}
	if d.Features, err = tensor.FromCOO(n, int(cols), es); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", a.Path, ds+"/dataset/features", err)
	}
	for i := range d.Features.Values {
		d.Features.Values[i] = 1 // repeated coordinates are one 1
	}
	for i := 0; a.Has(fmt.Sprintf("%s/splits/%d/train", ds, i)); i++ {
		var sp Split
		seen := make([]int8, n)
		for j, part := range []*[]int{&sp.Train, &sp.Val, &sp.Test} {
			key := fmt.Sprintf("%s/splits/%d/%s", ds, i, []string{"train", "val", "test"}[j])
			ids, _, err := a.Int64(key)
			if err != nil {
				return nil, err
			}
			for r, v := range ids {
				if v < 0 || v >= int64(n) {
					return nil, errAt(a, key, r, "node %d outside the %d nodes", v, n)
				}
				if seen[v] != 0 {
					return nil, errAt(a, key, r, "node %d is already in this split", v)
				}
				seen[v] = 1
				*part = append(*part, int(v))
			}
			if len(*part) == 0 {
				return nil, errAt(a, key, -1, "no nodes")
			}
		}
		d.Splits = append(d.Splits, sp)
	}
	if len(d.Splits) == 0 {
		return nil, fmt.Errorf("%s: %s has no splits (%s/splits/0/train …)", a.Path, ds, ds)
	}
	prefix := ds + "/perturbations/"
	for _, k := range keys {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		if len(parts) != 4 || !strings.HasPrefix(parts[2], "split_") || !strings.HasPrefix(parts[3], "budget_") {
			return nil, fmt.Errorf("%s: %s: want %s{scenario}/{model}/split_{i}/budget_{b}", a.Path, k, prefix)
		}
		split, err := strconv.Atoi(strings.TrimPrefix(parts[2], "split_"))
		if err != nil || split < 0 || split >= len(d.Splits) {
			return nil, fmt.Errorf("%s: %s: split %q is not one of the %d splits", a.Path, k, parts[2], len(d.Splits))
		}
		flips, err := pairs(a, k, n)
		if err != nil {
			return nil, err
		}
		budget := strings.TrimPrefix(parts[3], "budget_")
		value, err := strconv.ParseFloat(budget, 64)
		if err != nil || value != value {
			value = -1 // not a number: ordered by label after the numbers
		}
		d.Perturbations[parts[0]] = append(d.Perturbations[parts[0]], Perturbation{Source: parts[1], Split: split,
			Budget: budget, Value: value, Flips: flips})
	}
	for _, ps := range d.Perturbations {
		slices.SortFunc(ps, func(x, y Perturbation) int {
			if c := strings.Compare(x.Source, y.Source); c != 0 {
				return c
			}
			if x.Split != y.Split {
				return x.Split - y.Split
			}
			if x.Value != y.Value {
				if x.Value < y.Value {
					return -1
				}
				return 1
			}
			return strings.Compare(x.Budget, y.Budget)
		})
	}
	return d, nil
}

// symmetric builds the symmetric 0/1 adjacency of the pairs edges (u < v)
// with flips toggled.
func symmetric(n int, edges, flips [][2]int32) *tensor.CSR {
	set := make(map[[2]int32]bool, len(edges)+len(flips))
	for _, e := range edges {
		set[e] = true
	}
	for _, e := range flips {
		if set[e] {
			delete(set, e)
		} else {
			set[e] = true
		}
	}
	es := make([]tensor.Entry, 0, 2*len(set))
	for e := range set {
		es = append(es, tensor.Entry{Row: e[0], Col: e[1], Val: 1}, tensor.Entry{Row: e[1], Col: e[0], Val: 1})
	}
	m, _ := tensor.FromCOO(n, n, es) // ids checked by pairs
	return m
}

// Perturbed returns the dataset's adjacency with the edges of p flipped.
func (d *Dataset) Perturbed(p Perturbation) *tensor.CSR {
	var edges [][2]int32
	for r := range d.Adj.Rows {
		lo, hi := d.Adj.RowRange(r)
		for _, c := range d.Adj.Indices[lo:hi] {
			if int32(r) < c {
				edges = append(edges, [2]int32{int32(r), c})
			}
		}
	}
	return symmetric(d.Adj.Rows, edges, p.Flips)
}

// CheckPublished checks that f holds what the published file holds: both
// datasets with five splits each, and perturbations for both scenarios and
// every evaluated model on every split (the fetch's check of a download).
func (f *File) CheckPublished() error {
	have := map[string]*Dataset{}
	for _, d := range f.Datasets {
		have[d.Name] = d
	}
	for _, ds := range PublishedDatasets {
		d, ok := have[ds]
		if !ok {
			return fmt.Errorf("%s: no dataset %s (the published file has %s)", f.Path, ds, strings.Join(PublishedDatasets, ", "))
		}
		if len(d.Splits) != PublishedSplits {
			return fmt.Errorf("%s: %s has %d splits, the published file %d", f.Path, ds, len(d.Splits), PublishedSplits)
		}
		for _, sc := range PublishedScenarios {
			got := map[string]map[int]bool{}
			for _, p := range d.Perturbations[sc] {
				if got[p.Source] == nil {
					got[p.Source] = map[int]bool{}
				}
				got[p.Source][p.Split] = true
			}
			for _, m := range PublishedModels {
				if len(got[m]) != PublishedSplits {
					return fmt.Errorf("%s: %s %s: perturbations against %s on %d of the %d splits", f.Path, ds, sc, m, len(got[m]), PublishedSplits)
				}
			}
		}
	}
	return nil
}

// Entries returns f in the file's layout (WriteFile writes them).
func (f *File) Entries() []npz.Entry {
	var out []npz.Entry
	pairsEntry := func(key string, ps [][2]int32) npz.Entry {
		v := make([]int64, 0, 2*len(ps))
		for _, p := range ps {
			v = append(v, int64(p[0]), int64(p[1]))
		}
		return npz.I64(key, []int{len(ps), 2}, v)
	}
	ids := func(key string, xs []int) npz.Entry {
		v := make([]int64, len(xs))
		for i, x := range xs {
			v[i] = int64(x)
		}
		return npz.I64(key, []int{len(v)}, v)
	}
	for _, d := range f.Datasets {
		var edges, coords [][2]int32
		for r := range d.Adj.Rows {
			lo, hi := d.Adj.RowRange(r)
			for _, c := range d.Adj.Indices[lo:hi] {
				if int32(r) < c {
					edges = append(edges, [2]int32{int32(r), c})
				}
			}
			lo, hi = d.Features.RowRange(r)
			for _, c := range d.Features.Indices[lo:hi] {
				coords = append(coords, [2]int32{int32(r), c})
			}
		}
		y := make([]int64, len(d.Labels))
		for i, l := range d.Labels {
			y[i] = int64(l)
		}
		out = append(out, pairsEntry(d.Name+"/dataset/adjacency", edges), pairsEntry(d.Name+"/dataset/features", coords),
			npz.I64(d.Name+"/dataset/labels", []int{len(y)}, y))
		for i, sp := range d.Splits {
			out = append(out, ids(fmt.Sprintf("%s/splits/%d/train", d.Name, i), sp.Train),
				ids(fmt.Sprintf("%s/splits/%d/val", d.Name, i), sp.Val), ids(fmt.Sprintf("%s/splits/%d/test", d.Name, i), sp.Test))
		}
		for _, sc := range d.Scenarios() {
			for _, p := range d.Perturbations[sc] {
				out = append(out, pairsEntry(fmt.Sprintf("%s/perturbations/%s/%s/split_%d/budget_%s", d.Name, sc, p.Source, p.Split, p.Budget), p.Flips))
			}
		}
	}
	return out
}

// WriteFile writes f to path in the unit test's layout.
func (f *File) WriteFile(path string) error { return npz.WriteFile(path, f.Entries()...) }
