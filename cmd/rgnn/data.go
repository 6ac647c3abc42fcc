package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/data"
)

func newDataCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "data",
		Short: "Inspect and fetch datasets",
	}
	c.AddCommand(newDataInfoCmd(), newDataFetchCmd(), newDataGenerateCmd())
	return c
}

// dataInfo is the JSON output of `rgnn data info`.
type dataInfo struct {
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
	ChecksumMatches bool    `json:"checksum_matches"`
}

func newDataInfoCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "info",
		Short: "Print statistics of a standardised dataset (largest connected component)",
		Example: `  rgnn data info --dataset cora_ml
  rgnn data info --dataset citeseer --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			name, _ := c.Flags().GetString("dataset")
			bin, _ := c.Flags().GetBool("binary-attr")
			if _, err := data.Lookup(name); err != nil {
				return usageError{err}
			}
			g, err := data.Load(context.Background(), name, data.Options{Dir: dataDir(c), BinaryAttr: bin,
				Fetch: data.FetchOptions{Progress: progressWriter()}})
			if err != nil {
				return err
			}
			binary := true
			for _, v := range g.Features.Values {
				if v != 1 {
					binary = false
					break
				}
			}
			n := g.NumNodes()
			info := dataInfo{Dataset: name, Path: g.Path, RawNodes: g.RawNodes, Nodes: n, Edges: g.NumEdges(),
				Features: g.Features.Cols, FeatureNnz: g.Features.Nnz(),
				FeatureDensity: float64(g.Features.Nnz()) / float64(n*g.Features.Cols),
				BinaryFeatures: binary, Classes: g.NumClasses, ClassCounts: g.ClassCounts(),
				MeanDegree: float64(g.Adj.Nnz()) / float64(n), ChecksumMatches: true}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), info)
			}
			w := c.OutOrStdout()
			fmt.Fprintf(w, "dataset        %s (%s, sha256 ok)\n", name, g.Path)
			fmt.Fprintf(w, "nodes          %d (largest connected component of %d)\n", n, g.RawNodes)
			fmt.Fprintf(w, "edges          %d undirected (mean degree %.2f)\n", info.Edges, info.MeanDegree)
			fmt.Fprintf(w, "features       %d (%d nonzeros, density %.4f, binary %v)\n", info.Features, info.FeatureNnz, info.FeatureDensity, binary)
			counts := make([]string, len(info.ClassCounts))
			for i, k := range info.ClassCounts {
				counts[i] = fmt.Sprint(k)
			}
			fmt.Fprintf(w, "classes        %d, counts [%s]\n", info.Classes, strings.Join(counts, ", "))
			return nil
		},
	}
	c.Flags().String("dataset", "cora_ml", "dataset: "+strings.Join(data.Names(), ", "))
	c.Flags().Bool("binary-attr", false, "binarise the features")
	addJSONFlag(c)
	return c
}

func newDataFetchCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "fetch",
		Short: "Download a dataset into the data directory (sha256 verified)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			name, _ := c.Flags().GetString("dataset")
			if _, err := data.Lookup(name); err != nil {
				return usageError{err}
			}
			dir, err := data.ResolveDir(dataDir(c))
			if err != nil {
				return err
			}
			path, err := data.Fetch(context.Background(), name, dir, data.FetchOptions{Progress: progressWriter()})
			if err != nil {
				return err
			}
			fmt.Fprintln(c.OutOrStdout(), path)
			return nil
		},
	}
	c.Flags().String("dataset", "cora_ml", "dataset: "+strings.Join(data.Names(), ", "))
	return c
}
