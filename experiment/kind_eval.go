package experiment

import (
	"context"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/train"
)

// evalKind evaluates trained weights (from the train result with the same
// parameters, trained if missing) on the clean graph or on a perturbed
// adjacency file (`graph`, the reference attack format). Metrics:
// test_accuracy, clean_accuracy, edges.
func evalKind() *Kind {
	return &Kind{
		Name: "eval",
		Doc:  "evaluate trained weights on the clean or a perturbed graph",
		Params: append(trainParams(),
			Param{"graph", "", "perturbed adjacency .npz (edge_index, edge_weight, shape); empty: clean graph"}),
		Run: func(ctx context.Context, env *Env, p store.Params) (*Output, error) {
			m, pb, tr, err := env.Trained(ctx, p)
			if err != nil {
				return nil, err
			}
			adj := pb.Graph.Adj
			if path := pStr(p, "graph"); path != "" {
				if adj, err = data.LoadPerturbedAdj(path, adj.Rows); err != nil {
					return nil, err
				}
			}
			g, err := m.Preprocess(adj, pb.Graph.Features)
			if err != nil {
				return nil, err
			}
			acc := train.Accuracy(train.Predict(m, g, pb.X), pb.Graph.Labels, pb.Test)
			return &Output{Metrics: map[string]any{"test_accuracy": acc, "clean_accuracy": tr.Metrics["test_accuracy"],
				"edges": adj.Nnz() / 2}}, nil
		},
	}
}
