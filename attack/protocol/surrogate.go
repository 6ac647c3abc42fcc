package protocol

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// TrainSurrogate trains the transfer surrogate: a GCN (64 hidden, dropout
// 0.5) with Adam lr 1e-2, weight decay 1e-3, patience 100 on the clean graph.
func TrainSurrogate(ctx context.Context, p *data.Problem, seed uint64, progress func(done, total int)) (model.Model, error) {
	m, err := model.Default(nil).New("gcn", p.Features.Cols, p.NumClasses, model.Options{Seed: seed})
	if err != nil {
		return nil, err
	}
	g, err := m.Preprocess(p.Adj, p.Features)
	if err != nil {
		return nil, err
	}
	cfg := train.Config{Patience: 100, Seed: seed}
	if progress != nil {
		cfg.Progress = func(epoch int, _, _ float64) { progress(epoch+1, 3000) }
	}
	if _, err := train.Fit(ctx, m, g, p, cfg); err != nil {
		return nil, fmt.Errorf("surrogate: %w", err)
	}
	return m, nil
}
