package experiment

import (
	"context"

	"github.com/rgnn/rgnn/experiment/store"
)

// trainKind trains a model with the reference protocol and stores its
// weights (artifact "weights"). Metrics: test_accuracy, val_accuracy,
// epochs, best_epoch, best_val_loss, ms_per_epoch, train_seconds.
func trainKind() *Kind {
	return &Kind{
		Name:   "train",
		Doc:    "train a model (reference protocol), store the weights",
		Params: trainParams(),
		Run: func(ctx context.Context, env *Env, p store.Params) (*Output, error) {
			return env.train(ctx, p)
		},
	}
}
