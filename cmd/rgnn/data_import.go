package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/data/importer"
)

func newDataImportCmd() *cobra.Command {
	var o importer.Options
	c := &cobra.Command{
		Use:   "import [INPUT]",
		Short: "Import your own graph (edge list, PyG .npz, OGB folder) into a dataset .npz",
		Long: `import converts a graph into rgnn's dataset .npz (docs/DATA_FORMAT.md), which every
command reads with --dataset FILE.npz:

  - an edge list (CSV/TSV: source, target[, weight]; header and # comments
    allowed) with --labels (CSV or .npy), optionally --features (CSV, dense .npy
    or scipy sparse .npz) and a split (--train, --val, --test: node-id files or
    boolean .npy masks);
  - a PyG-style .npz written with np.savez (edge_index [2, E], x [N, F], y [N],
    optionally edge_weight and train_mask, val_mask, test_mask);
  - an OGB node-property folder of any name and size (raw/*.csv.gz,
    split/<name>/*.csv.gz; --format ogb DIR).

INPUT (or --edges) is the edge list, the .npz or the folder. Node ids are 0-based
rows of the feature and label files. rgnn's graphs are undirected and
unweighted, without self loops; the output says how many rows each step of
that standardisation changed and how many nodes the largest connected
component keeps (--nodes all keeps every node, the default for OGB folders).
A given split is stored in the file and used by every command (the split seed
is then ignored). Bad input (negative or non-finite weights, NaN/Inf
features, labels out of range, ids beyond the node count) stops the import
with the file, the row and the fix.`,
		Example: `  rgnn data import edges.csv --features x.npy --labels y.csv --out mygraph.npz
  rgnn data import edges.tsv --labels y.csv --train train.txt --val val.txt --test test.txt --out g.npz
  rgnn data import graph_pyg.npz --out g.npz --json
  rgnn data import --format ogb ./ogbn_mag_papers --out papers.npz
  rgnn data info --dataset g.npz`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				if o.Edges != "" {
					return usagef("give the input as an argument or as --edges, not both")
				}
				o.Edges = args[0]
			}
			if err := o.Validate(); err != nil {
				return usageError{err: err}
			}
			rep, err := importer.Import(context.Background(), o, progressWriter())
			if err != nil {
				return err
			}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), rep)
			}
			rep.WriteText(c.OutOrStdout())
			return nil
		},
	}
	bind(c, &o)
	addJSONFlag(c)
	return c
}
