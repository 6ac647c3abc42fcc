package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/task"
)

// Sampled votes are checkpointed every certifyCheckpointEvery samples or
// certifyCheckpointAfter, whichever comes first, so that a stopped run
// (Ctrl-C, kill -9, a lost machine) loses at most about 10 s of sampling;
// the same command resumes from the checkpoint.
const (
	certifyCheckpointEvery = 250
	certifyCheckpointAfter = 10 * time.Second
)

// voteCheckpoint is the checkpoint file of one `rgnn certify` sampling run.
type voteCheckpoint struct {
	path  string
	last  time.Time
	write time.Duration
}

// newVoteCheckpoint returns the checkpoint of sampling spec's votes of the
// weights in weights ("": trained here) on p, in dir ("": rgnn/certify in
// the user cache dir; "none": no checkpoints, nil). The file is named by
// everything that decides the votes — the spec's run key, the weights'
// content, the dataset file — so a run resumes only its own votes.
func newVoteCheckpoint(dir string, spec *task.Certify, weights string, p *task.Problem) (*voteCheckpoint, error) {
	if dir == "none" {
		return nil, nil
	}
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, nil // nowhere to keep them: sample without
		}
		dir = filepath.Join(cache, "rgnn", "certify")
	}
	// The spec enters by its run key (kind and canonical parameters, the
	// store's key, stable from one rgnn version to the next), not by its
	// Go form, so a run resumes its votes after an upgrade.
	key, _, err := experiment.DefaultKinds().Dependency("certify", experiment.ParamsOf(spec))
	if err != nil {
		fmt.Fprintf(lineWriter{}, "no checkpoints (a stop loses the votes): %v\n", err)
		return nil, nil
	}
	h := sha256.New()
	h.Write([]byte(key))
	if weights != "" {
		f, err := os.Open(weights)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return nil, fmt.Errorf("%s: %w", weights, err)
		}
	}
	if p.Source != nil {
		abs, _ := filepath.Abs(p.Source.Path)
		fmt.Fprintf(h, "\n%s\n%d", abs, p.Source.RawNodes)
	}
	return &voteCheckpoint{path: filepath.Join(dir, hex.EncodeToString(h.Sum(nil)[:16])+".npz"), last: time.Now()}, nil
}

// resume returns the saved votes when they fit (nil otherwise).
func (c *voteCheckpoint) resume(n, classes, samples int) *certify.Partial {
	p, err := certify.LoadPartial(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = p.Validate(n, classes, samples)
	}
	if err != nil {
		fmt.Fprintf(lineWriter{}, "ignoring the checkpoint %s: %v\n", c.path, err)
		return nil
	}
	return p
}

// save writes the votes so far (the sampling calls it every
// certifyCheckpointEvery samples or certifyCheckpointAfter), not sooner
// than ten times the last write took after it. A failed write is reported
// and sampling goes on.
func (c *voteCheckpoint) save(parts []*certify.Partial) error {
	if time.Since(c.last) < 10*c.write || len(parts) != 1 {
		return nil
	}
	start := time.Now()
	err := os.MkdirAll(filepath.Dir(c.path), 0o755)
	if err == nil {
		err = parts[0].Save(c.path)
	}
	c.write, c.last = time.Since(start), time.Now()
	if err != nil {
		fmt.Fprintf(lineWriter{}, "could not checkpoint the votes (sampling goes on; a stop now loses them): %v\n", err)
	}
	return nil
}

// hooks binds the checkpoint to the sampling's hooks.
func (c *voteCheckpoint) hooks(h task.Hooks, p *task.Problem, samples int) task.Hooks {
	if c == nil {
		return h
	}
	if r := c.resume(p.NumNodes(), p.NumClasses, samples); r != nil {
		h.Resume = []*certify.Partial{r}
		fmt.Fprintf(lineWriter{}, "resuming the votes from %s: %d of %d samples done\n", c.path, r.Done, samples)
	}
	h.Checkpoint, h.CheckpointEvery, h.CheckpointAfter = c.save, certifyCheckpointEvery, certifyCheckpointAfter
	return h
}

// finish removes the checkpoint once the votes are complete, or says where
// it is when sampling stopped.
func (c *voteCheckpoint) finish(err error) {
	if c == nil {
		return
	}
	if err == nil {
		os.Remove(c.path)
		return
	}
	if _, serr := os.Stat(c.path); serr == nil {
		fmt.Fprintf(lineWriter{}, "the votes so far are checkpointed in %s: the same command resumes from them\n", c.path)
	}
}
