package experiment

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// smallerBudget is what a perturb run of an incremental attack (FGSM,
// Metattack: the flips of a budget are the first flips of every larger one)
// continues from: the stored perturb run with the same parameters but the
// largest smaller ε whose perturbed graph is on disk. It returns that run's
// flips, ε and attack seconds; ok is false when there is none (the run
// then starts on the clean graph). A stored graph that does not match its
// run's metrics is not used.
func (e *Env) smallerBudget(ctx context.Context, s task.Perturb, p *data.Problem) (prev []attack.Flip, eps, secs float64, ok bool, err error) {
	if !s.Incremental() || len(s.Epsilons) != 1 {
		return nil, 0, 0, false, nil
	}
	k, found := e.Kinds.Lookup("perturb")
	if !found {
		return nil, 0, 0, false, nil
	}
	own := ParamsOf(&s)
	want, _, err := e.Kinds.Dependency("perturb", own)
	if err != nil {
		return nil, 0, 0, false, err
	}
	filter := map[string]string{}
	for _, name := range []string{"dataset", "attack", "seed"} {
		if v, ok := own[name]; ok {
			filter[name] = fmt.Sprint(v)
		}
	}
	rs, err := e.Store.Query(ctx, store.Filter{Kind: "perturb", Params: filter})
	if err != nil {
		return nil, 0, 0, false, err
	}
	var best *store.Result
	for i := range rs {
		r := &rs[i]
		spec, err := k.Decode(r.Params)
		if err != nil {
			continue
		}
		c := *spec.(*task.Perturb)
		if len(c.Epsilons) != 1 || !(c.Epsilons[0] < s.Epsilons[0]) || (best != nil && c.Epsilons[0] <= eps) {
			continue
		}
		ce := c.Epsilons[0]
		c.Epsilons = s.Epsilons
		if key, _, err := e.Kinds.Dependency("perturb", ParamsOf(&c)); err != nil || key != want {
			continue
		}
		if _, err := e.Store.OpenArtifact(r.Artifacts["perturbed_graph"]); err != nil {
			continue // imported without its graph, or damaged: not worth recomputing for this
		}
		best, eps = r, ce
	}
	if best == nil {
		return nil, 0, 0, false, nil
	}
	path, err := e.Store.OpenArtifact(best.Artifacts["perturbed_graph"])
	if err != nil {
		return nil, 0, 0, false, err
	}
	adj, err := data.LoadPerturbedGraph(path, p.Adj)
	if err != nil {
		return nil, 0, 0, false, fmt.Errorf("perturb run %s: %w", best.Key, err)
	}
	if prev, err = attack.FlipsBetween(p.Adj, adj); err != nil {
		return nil, 0, 0, false, fmt.Errorf("perturb run %s: %w", best.Key, err)
	}
	if n, _ := best.Metrics["flips"].(float64); int(n) != len(prev) {
		e.logf("  perturb run %s: its graph has %d flips, its metrics %v: not continued from", best.Key, len(prev), best.Metrics["flips"])
		return nil, 0, 0, false, nil
	}
	secs, _ = best.Metrics["attack_seconds"].(float64)
	return prev, eps, secs, true, nil
}
