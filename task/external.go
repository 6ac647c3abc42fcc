package task

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rgnn/rgnn/bridge"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// External reports whether the spec's model runs outside rgnn (model.Spec
// .External: package bridge).
func (m Model) External() bool {
	s, ok := Models().Lookup(m.Model)
	return ok && s.External
}

// startExternal starts the external model of m for p's graph and, when the
// process fits itself, fits it on p (its graph, labels and split): what
// training is for a Go model. The caller closes the result (Trained.Close).
func (m Model) startExternal(ctx context.Context, p *data.Problem, seed int) (*Trained, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	c, err := bridge.Start(ctx, m.ExternalCmd, bridge.Options{Nodes: p.NumNodes(), Classes: p.NumClasses, Features: p.Features,
		Timeout: time.Duration(m.ExternalTimeout * float64(time.Second))})
	if err != nil {
		return nil, err
	}
	t := &Trained{Spec: m, Seed: seed, Model: bridge.NewModel(c)}
	if c.CanFit() {
		if err := fitExternal(ctx, t, p); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// fitExternal has the external model of t fit itself on p.
func fitExternal(ctx context.Context, t *Trained, p *data.Problem) error {
	bm, ok := t.Model.(*bridge.Model)
	if !ok {
		return fmt.Errorf("model %s is not external", t.Spec.Model)
	}
	return bm.C.Fit(ctx, bridge.Graph{Adj: p.Adj, Features: p.Features}, p.Labels, p.Train, p.Val)
}

// Close ends what t holds outside the process (an external model's
// process); a no-op for Go models.
func (t *Trained) Close() error {
	if t == nil {
		return nil
	}
	if c, ok := t.Model.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// externalClient returns the client of an external model (nil for a Go
// model).
func externalClient(m model.Model) *bridge.Client {
	if bm, ok := m.(*bridge.Model); ok {
		return bm.C
	}
	return nil
}

// runExternal is Train.Run for an external model: started, fitted on p if
// it fits itself, and evaluated on p's test and validation nodes. The
// result's Trained holds the running process (close it).
func (s Train) runExternal(ctx context.Context, p *data.Problem) (*TrainResult, error) {
	start := time.Now()
	t, err := s.Model.startExternal(ctx, p, s.Seed)
	if err != nil {
		return nil, err
	}
	logits, err := t.Model.(model.Outside).Logits(p.Adj, p.Features)
	if err != nil {
		t.Close()
		return nil, err
	}
	return &TrainResult{Dataset: p.Name, Model: s.Model.Model, Seed: s.Seed, SplitSeed: p.SplitSeed,
		TestAccuracy: train.Accuracy(logits, p.Labels, p.Test), ValAccuracy: train.Accuracy(logits, p.Labels, p.Val),
		NTest: len(p.Test), Fit: train.Result{DurationSecs: time.Since(start).Seconds()}, Trained: t}, nil
}
