package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
// checkpoints of its votes, and checkpointAfter how long it waits at least
// between two writes: a run stopped (Ctrl-C, a lost machine, the end of a
// sitting) loses at most a few minutes of sampling.
const (
	checkpointEvery = 250
	checkpointAfter = time.Minute
)

// checkpointInterval is the least time between two checkpoints of a run
// (checkpointAfter unless a test set Env.checkpointAfter).
func (e *Env) checkpointInterval() time.Duration {
	if e.checkpointAfter != 0 {
		return e.checkpointAfter
	}
	return checkpointAfter
}

// voteCheckpoints keeps the partial votes of certify runs in
// <artifacts>/partial/<spec hash>.npz: written atomically while they
// sample, read when the run starts again, removed when its votes are
// stored. The file is named by the run's whole spec (which decides its
// votes), so a run resumes only its own votes; a file that does not fit
// (shape, counts) is ignored and the run starts from the first sample.
type voteCheckpoints struct {
	env   *Env
	paths []string
	mu    sync.Mutex
	last  time.Time
}

func newVoteCheckpoints(env *Env, specs []task.Certify) *voteCheckpoints {
	dir := env.Store.ArtifactDir()
	if dir == "" {
		return nil
	}
	c := &voteCheckpoints{env: env, paths: make([]string, len(specs)), last: time.Now()}
	for i, s := range specs {
		b, err := json.Marshal(s)
		if err != nil {
			return nil
		}
		h := sha256.Sum256(b)
		c.paths[i] = filepath.Join(dir, "partial", hex.EncodeToString(h[:16])+".npz")
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

// save writes every spec's partial votes, at most once per checkpointAfter.
// A checkpoint is a convenience: a write that fails (a full disk, a
// folder made read-only) is logged and the run samples on, trying again a
// checkpointAfter later; only the votes of a stopped run are at stake.
func (c *voteCheckpoints) save(parts []*certify.Partial) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.last) < c.env.checkpointInterval() {
		return nil
	}
	c.last = time.Now()
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
	h.Checkpoint, h.CheckpointEvery = c.save, checkpointEvery
	return h
}
