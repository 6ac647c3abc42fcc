package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/task"
)

// checkpointEvery is how many samples a certify run draws between
// checkpoints of its votes, and checkpointAfter how long at most: whichever
// comes first, so a run stopped (Ctrl-C, kill -9, a lost machine, the end
// of a sitting) loses at most about 10 s of sampling. (On a graph whose
// votes take long to write the interval grows to ten times the last
// write, so checkpoints cost at most a tenth of the time.)
const (
	checkpointEvery = 250
	checkpointAfter = 10 * time.Second
)

// checkpointInterval is the least time between two checkpoints of a
// perturb run's flips: def unless a test set Env.checkpointAfter.
func (e *Env) checkpointInterval(def time.Duration) time.Duration {
	if e.checkpointAfter != 0 {
		return e.checkpointAfter
	}
	return def
}

// voteCheckpoints keeps the partial votes of certify runs in
// <artifacts>/partial/<run key>.npz: written atomically while they sample,
// read when the run starts again, removed when its votes are stored. The
// file is named by the run's store key (its kind and canonical parameters,
// which decide its votes and stay the same from one rgnn version to the
// next: testdata/keys.golden), so a run resumes only its own votes, also
// after an upgrade between two sittings; a file that does not fit (shape,
// counts) is ignored and the run starts from the first sample.
type voteCheckpoints struct {
	env   *Env
	paths []string
	mu    sync.Mutex
	last  time.Time
	write time.Duration // how long the last save took
}

func newVoteCheckpoints(env *Env, specs []task.Certify) *voteCheckpoints {
	dir := env.Store.ArtifactDir()
	if dir == "" || env.Kinds == nil {
		return nil
	}
	c := &voteCheckpoints{env: env, paths: make([]string, len(specs)), last: time.Now()}
	for i := range specs {
		key, _, err := env.Kinds.Dependency("certify", ParamsOf(&specs[i]))
		if err != nil {
			env.logf("  certify: no checkpoints (a stop loses the votes): %v", err)
			return nil
		}
		c.paths[i] = filepath.Join(dir, "partial", key+".npz")
	}
	return c
}

// resume reads the saved partial votes of every spec (nil where there are
// none or they do not fit n nodes, classes classes and samples samples).
func (c *voteCheckpoints) resume(n, classes, samples int) []*certify.Partial {
	if c == nil {
		return nil
	}
	out := make([]*certify.Partial, len(c.paths))
	found := 0
	for i, path := range c.paths {
		p, err := certify.LoadPartial(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = p.Validate(n, classes, samples)
		}
		if err != nil {
			c.env.logf("  certify: ignoring the saved votes %s: %v", path, err)
			continue
		}
		out[i] = p
		found++
	}
	if found == 0 {
		return nil
	}
	return out
}

// save writes every spec's partial votes (the sampling calls it every
// checkpointEvery samples or checkpointAfter, whichever comes first), but
// not sooner than ten times the last write took after it. A checkpoint is
// a convenience: a write that fails (a full disk, a folder made read-only)
// is logged and the run samples on, trying again at the next one; only
// the votes of a stopped run are at stake.
func (c *voteCheckpoints) save(parts []*certify.Partial) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.last) < 10*c.write {
		return nil
	}
	start := time.Now()
	defer func() { c.write, c.last = time.Since(start), time.Now() }()
	if len(parts) != len(c.paths) {
		return fmt.Errorf("%d partial votes for %d runs", len(parts), len(c.paths))
	}
	err := os.MkdirAll(filepath.Dir(c.paths[0]), 0o755)
	for i := 0; err == nil && i < len(parts); i++ {
		err = parts[i].Save(c.paths[i])
	}
	if err != nil {
		c.env.logf("  certify: could not save the partial votes (sampling goes on; a stop now loses them): %v", err)
	}
	return nil
}

// remove deletes spec i's saved votes (its votes are stored).
func (c *voteCheckpoints) remove(i int) {
	if c == nil {
		return
	}
	if err := os.Remove(c.paths[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.env.logf("  certify: removing %s: %v", c.paths[i], err)
	}
}

// hooks binds the checkpoints to task.Hooks.
func (c *voteCheckpoints) hooks(h task.Hooks, n, classes, samples int) task.Hooks {
	if c == nil {
		return h
	}
	h.Resume = c.resume(n, classes, samples)
	h.Checkpoint, h.CheckpointEvery, h.CheckpointAfter = c.save, checkpointEvery, checkpointAfter
	return h
}
