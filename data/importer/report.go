package importer

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the report.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "wrote %s (%s: %s)\n", r.Out, r.Format, strings.Join(r.Sources, ", "))
	feats := fmt.Sprintf("%d features", r.Features)
	if r.Features == 0 {
		feats = "no features (identity features at load)"
	}
	fmt.Fprintf(w, "input          %d nodes, %s, %d classes, %d edge rows", r.RawNodes, feats, r.Classes, r.EdgeRows)
	if r.HeaderRow {
		fmt.Fprint(w, " (header skipped)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "standardised   %d undirected edges: %d self loops dropped, %d duplicate rows merged, %d reverse edges added",
		r.Edges, r.SelfLoops, r.Duplicates, r.Symmetrised)
	if r.ZeroWeight > 0 || r.NonUnit > 0 {
		fmt.Fprintf(w, ", %d zero-weight rows dropped, %d weights ≠ 1 ignored (unweighted graph)", r.ZeroWeight, r.NonUnit)
	}
	fmt.Fprintln(w)
	if r.KeepAll {
		fmt.Fprintf(w, "loads as       %d nodes, %d edges (every node kept)\n", r.Nodes, r.LoadedEdges)
	} else {
		fmt.Fprintf(w, "loads as       %d nodes, %d edges (largest connected component: %d nodes, %d edges outside it dropped)\n",
			r.Nodes, r.LoadedEdges, r.NodesDropped, r.EdgesDropped)
	}
	switch r.Split {
	case "given":
		fmt.Fprintf(w, "split          given, stored in the file and used by every command: %d train, %d validation, %d test",
			r.SplitSizes.Train, r.SplitSizes.Valid, r.SplitSizes.Test)
		if r.SplitDropped > 0 {
			fmt.Fprintf(w, " (%d nodes outside the kept component dropped)", r.SplitDropped)
		}
		fmt.Fprintln(w)
	default:
		fmt.Fprintf(w, "split          random per seed (20 training, 20 validation nodes per class): %d train, %d validation, %d test\n",
			r.SplitSizes.Train, r.SplitSizes.Valid, r.SplitSizes.Test)
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "warning        %s\n", s)
	}
}
