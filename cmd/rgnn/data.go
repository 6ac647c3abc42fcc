package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/task"
)

func newDataCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "data",
		Short: "Inspect, fetch, generate and import datasets (see the subcommands' examples)",
	}
	c.AddCommand(newDataInfoCmd(), newDataFetchCmd(), newDataGenerateCmd(), newDataImportCmd())
	return c
}

func newDataInfoCmd() *cobra.Command {
	d := &task.Data{Dataset: "cora_ml"}
	c := &cobra.Command{
		Use:   "info",
		Short: "Print statistics of a standardised dataset (a registered name or an .npz file)",
		Long: `info loads a dataset as every command does and prints its size, features, classes
and split. Registered .npz datasets are reduced to their largest connected
component; OGB datasets (ogbn-arxiv, ogbn-products) keep every node and report
their official split; an .npz path (e.g. from "rgnn data generate") is read like
cora_ml.npz.`,
		Example: `  rgnn data info --dataset cora_ml
  rgnn data info --dataset citeseer --json
  rgnn data info --dataset ogbn-arxiv --json
  rgnn data info --dataset ./arxiv_synth.npz`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			name, bin := d.Dataset, d.BinaryAttr
			var info data.Info
			if !data.IsPath(name) {
				var err error
				if info, err = data.Lookup(name); err != nil {
					return usageError{err: err}
				}
			}
			g, err := data.LoadDataset(context.Background(), name, data.Options{Dir: dataDir(c), BinaryAttr: bin,
				Fetch: data.FetchOptions{Progress: progressWriter()}})
			if err != nil {
				return err
			}
			out := data.Describe(name, g, info)
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), out)
			}
			out.WriteText(c.OutOrStdout())
			return nil
		},
	}
	bind(c, d)
	addJSONFlag(c)
	return c
}

func newDataFetchCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "fetch",
		Short: "Download a dataset into the data directory (sha256 verified; OGB datasets extracted)",
		Example: `  rgnn data fetch --dataset cora_ml
  rgnn data fetch --dataset ogbn-arxiv --data-dir /shared/datasets
  rgnn data fetch --dataset unit_test`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			name, _ := c.Flags().GetString("dataset")
			if _, err := data.Lookup(name); err != nil {
				return usageError{err: err}
			}
			dir, err := data.ResolveDir(dataDir(c))
			if err != nil {
				return err
			}
			path, err := data.Fetch(context.Background(), name, dir, data.FetchOptions{Progress: progressWriter()})
			if err != nil {
				return err
			}
			if wantJSON(c) {
				return writeJSON(c.OutOrStdout(), struct {
					Dataset string `json:"dataset"`
					Path    string `json:"path"`
				}{name, path})
			}
			fmt.Fprintln(c.OutOrStdout(), path)
			return nil
		},
	}
	addJSONFlag(c)
	c.Flags().String("dataset", "cora_ml", "dataset: "+strings.Join(data.FetchNames(), ", ")+
		" (unit_test: the black-box robustness unit test of Mujkanovic et al. 2022, for rgnn unittest)")
	return c
}
