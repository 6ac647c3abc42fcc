package data

import (
	"fmt"
	"io"
	"strings"
)

// Summary describes a loaded dataset (`rgnn data info`).
type Summary struct {
	Dataset         string  `json:"dataset"`
	Path            string  `json:"path"`
	RawNodes        int     `json:"raw_nodes"`
	Nodes           int     `json:"nodes"`
	Edges           int     `json:"edges"`
	Features        int     `json:"features"`
	FeatureNnz      int     `json:"feature_nnz"`
	FeatureDensity  float64 `json:"feature_density"`
	BinaryFeatures  bool    `json:"binary_features"`
	Classes         int     `json:"classes"`
	ClassCounts     []int   `json:"class_counts"`
	MeanDegree      float64 `json:"mean_degree"`
	ChecksumMatches bool    `json:"checksum_matches"` // verified against the registry's sha256
	// Split names the split: the dataset's official one (e.g. "time"), or
	// "random" (20 training and 20 validation nodes per class, per seed).
	Split      string     `json:"split"`
	SplitSizes SplitSizes `json:"split_sizes"`
	// Standardised is what standardisation changed in the file's graph
	// (Graph.Changes).
	Standardised Changes `json:"standardised"`

	ogb, registered bool
}

// SplitSizes are the sizes of a split.
type SplitSizes struct {
	Train int `json:"train"`
	Valid int `json:"valid"`
	Test  int `json:"test"`
}

// Describe summarises g, loaded as dataset (info: its registry entry, zero
// for a file).
func Describe(name string, g *Graph, info Info) Summary {
	binary := true
	for _, v := range g.Features.Values {
		if v != 1 {
			binary = false
			break
		}
	}
	n := g.NumNodes()
	out := Summary{Dataset: name, Path: g.Path, RawNodes: g.RawNodes, Nodes: n, Edges: g.NumEdges(),
		Features: g.Features.Cols, FeatureNnz: g.Features.Nnz(),
		FeatureDensity: float64(g.Features.Nnz()) / (float64(n) * float64(g.Features.Cols)),
		BinaryFeatures: binary, Classes: g.NumClasses, ClassCounts: g.ClassCounts(),
		MeanDegree: float64(g.Adj.Nnz()) / float64(n), ChecksumMatches: info.SHA256 != "", Split: "random",
		Standardised: g.Changes}
	if g.Split != nil {
		out.Split = g.Split.Name
	}
	if tr, va, te, err := SplitFor(g, 0); err == nil {
		out.SplitSizes = SplitSizes{Train: len(tr), Valid: len(va), Test: len(te)}
	}
	out.ogb, out.registered = info.OGB != nil, info.SHA256 != ""
	return out
}

// WriteText prints the summary as text.
func (s Summary) WriteText(w io.Writer) {
	check := "sha256 ok"
	switch {
	case s.ogb:
		check = "OGB layout, sizes checked"
	case !s.registered:
		check = "file"
	}
	fmt.Fprintf(w, "dataset        %s (%s, %s)\n", s.Dataset, s.Path, check)
	if s.ogb {
		fmt.Fprintf(w, "nodes          %d (every node kept)\n", s.Nodes)
	} else {
		fmt.Fprintf(w, "nodes          %d (largest connected component of %d)\n", s.Nodes, s.RawNodes)
	}
	fmt.Fprintf(w, "edges          %d undirected (mean degree %.2f)\n", s.Edges, s.MeanDegree)
	fmt.Fprintf(w, "features       %d (%d nonzeros, density %.4f, binary %v)\n", s.Features, s.FeatureNnz, s.FeatureDensity, s.BinaryFeatures)
	counts := make([]string, len(s.ClassCounts))
	for i, k := range s.ClassCounts {
		counts[i] = fmt.Sprint(k)
	}
	fmt.Fprintf(w, "classes        %d, counts [%s]\n", s.Classes, strings.Join(counts, ", "))
	fmt.Fprintf(w, "split          %s: %d train, %d validation, %d test\n", s.Split,
		s.SplitSizes.Train, s.SplitSizes.Valid, s.SplitSizes.Test)
	if !s.ogb {
		changed := s.Standardised.String()
		if changed == "" {
			changed = "nothing changed (the file's graph is symmetric, unweighted, loop-free and connected)"
		}
		fmt.Fprintf(w, "standardised   %s\n", changed)
	}
}
