package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/task"
)

// smallerBudget is what a perturb run of an incremental attack (FGSM,
// Metattack: the flips of a budget are the first flips of every larger one)
// continues from: the stored perturb run with the same parameters but the
// largest smaller ε whose perturbed graph is on disk. It returns that run's
// flips, ε and attack seconds; ok is false when there is none (the run
// then starts on the clean graph). A stored graph that does not match its
// run's metrics is not used. want is the key of s's own run.
func (e *Env) smallerBudget(ctx context.Context, s task.Perturb, want string, p *data.Problem) (prev []attack.Flip, eps, secs float64, ok bool, err error) {
	k, found := e.Kinds.Lookup("perturb")
	if !found || len(s.Epsilons) != 1 {
		return nil, 0, 0, false, nil
	}
	own := ParamsOf(&s)
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

// flipCheckpoint keeps the flips of a running perturb run of an incremental
// attack in <artifacts>/partial/<run key>.flips.json: written atomically at
// most once per flipsCheckpointAfter while the attack flips, read when the run
// starts again (Perturb.Continue gives the same result from them), removed
// when the run's result is stored. A Metattack budget takes minutes to
// hours; a stopped sitting then loses at most a minute of it.
type flipCheckpoint struct {
	env  *Env
	path string
	mu   sync.Mutex
	last time.Time
	// Where the run's flips began (origin): the smaller ε it continued
	// from (0: the clean graph) and the attack's seconds before this
	// sitting, so that a resumed run records both as an uninterrupted one.
	from, base float64
	start      time.Time
}

// flipFile is the checkpoint's content. ContinuedFrom and Seconds are
// absent in files of earlier versions (then the resumed run records its
// own time only).
type flipFile struct {
	Key           string     `json:"key"`
	Flips         [][2]int32 `json:"flips"`
	ContinuedFrom float64    `json:"continued_from,omitempty"`
	Seconds       float64    `json:"seconds,omitempty"`
}

func newFlipCheckpoint(env *Env, key string) *flipCheckpoint {
	dir := env.Store.ArtifactDir()
	if dir == "" {
		return nil
	}
	return &flipCheckpoint{env: env, path: filepath.Join(dir, "partial", key+".flips.json"), last: time.Now()}
}

// origin records where the run's flips begin: continued from ε = from (0:
// the clean graph) after secs seconds of attack.
func (c *flipCheckpoint) origin(from, secs float64) {
	if c != nil {
		c.from, c.base, c.start = from, secs, time.Now()
	}
}

// load returns the saved flips (nil if there are none, or they are not
// valid flips of n nodes within budget: then the run starts without them),
// the ε their run continued from (0: none) and the attack's seconds up to
// them (0: not recorded).
func (c *flipCheckpoint) load(key string, n, budget int) (flips []attack.Flip, from, secs float64) {
	if c == nil {
		return nil, 0, 0
	}
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, 0
	}
	var f flipFile
	if err == nil {
		err = json.Unmarshal(b, &f)
	}
	if err == nil && f.Key != key {
		err = fmt.Errorf("saved for run %s", f.Key)
	}
	flips = make([]attack.Flip, len(f.Flips))
	for i, p := range f.Flips {
		flips[i] = attack.Flip{U: p[0], V: p[1]}
	}
	if err == nil {
		err = attack.CheckFlips(flips, n, budget)
	}
	if err == nil && (!(f.ContinuedFrom >= 0) || !(f.Seconds >= 0)) {
		err = fmt.Errorf("continued_from %v, seconds %v", f.ContinuedFrom, f.Seconds)
	}
	if err != nil {
		c.env.logf("  perturb: ignoring the saved flips %s: %v", c.path, err)
		return nil, 0, 0
	}
	return flips, f.ContinuedFrom, f.Seconds
}

// flipsCheckpointAfter is the least time between two saves of a perturb
// run's flips.
const flipsCheckpointAfter = time.Minute

// save writes flips, at most once per flipsCheckpointAfter; a failed write is
// logged and the attack goes on (only the flips of a stopped run are at
// stake).
func (c *flipCheckpoint) save(key string) func([]attack.Flip) {
	return func(flips []attack.Flip) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if time.Since(c.last) < c.env.checkpointInterval(flipsCheckpointAfter) {
			return
		}
		c.last = time.Now()
		f := flipFile{Key: key, Flips: make([][2]int32, len(flips)), ContinuedFrom: c.from}
		if !c.start.IsZero() {
			f.Seconds = c.base + time.Since(c.start).Seconds()
		}
		for i, fl := range flips {
			f.Flips[i] = [2]int32{fl.U, fl.V}
		}
		b, err := json.Marshal(f)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(c.path), 0o755)
		}
		if err == nil {
			err = npz.AtomicWrite(c.path, b)
		}
		if err != nil {
			c.env.logf("  perturb: could not save the flips so far (the attack goes on; a stop now loses them): %v", err)
		}
	}
}

// remove deletes the saved flips (the run's result is stored).
func (c *flipCheckpoint) remove() {
	if c == nil {
		return
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.env.logf("  perturb: removing %s: %v", c.path, err)
	}
}
