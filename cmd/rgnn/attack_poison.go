package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// victimTrainer returns a function that trains a fresh victim vn from
// scratch on a graph with the victim flags and seed, reporting progress
// as stage "<stage> <vn>": `rgnn attack` trains victims without --weights
// on the clean graph with it (stage "train"), and poisoning attacks retrain
// every victim on every perturbed graph (stage "retrain").
func victimTrainer(c *cobra.Command, p *problem, vn string, seed uint64, stage string,
	progress func(stage string, done, total int)) func(context.Context, *tensor.CSR) (model.Model, error) {
	return func(ctx context.Context, adj *tensor.CSR) (model.Model, error) {
		m, err := victimModel(c, p, vn, seed)
		if err != nil {
			return nil, err
		}
		g, err := m.Preprocess(adj, p.Graph.Features)
		if err != nil {
			return nil, fmt.Errorf("victim %s: %w", vn, err)
		}
		cfg := train.Config{Seed: seed}
		if progress != nil {
			cfg.Progress = func(e int, _, _ float64) { progress(stage+" "+vn, e+1, 3000) }
		}
		if _, err := train.Fit(ctx, m, g, p.dp(), cfg); err != nil {
			return nil, fmt.Errorf("victim %s: %w", vn, err)
		}
		return m, nil
	}
}
