package bridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// DefaultTimeout bounds the start-up and each request when Options.Timeout
// is 0.
const DefaultTimeout = 10 * time.Minute

// smallReply bounds an array of a reply that should have none (ready,
// fitted, error).
const smallReply = 1 << 20

// Options configure Start.
type Options struct {
	// Nodes and Classes are the graph's; the model must answer with one
	// row of Classes logits (or a class) per node.
	Nodes, Classes int
	// Features are the base features, sent once in the hello.
	Features *tensor.CSR
	// Timeout bounds the start-up (until the model is ready) and each
	// request; 0: DefaultTimeout.
	Timeout time.Duration
	// Stderr receives the child's stderr (nil: os.Stderr).
	Stderr io.Writer
	// Dir is the child's working directory ("": rgnn's).
	Dir string
}

// Client is a running outside model. It is safe for concurrent use:
// requests are serialised.
type Client struct {
	command string
	opts    Options
	cmd     *exec.Cmd
	in      *bufio.Writer
	stdin   io.WriteCloser
	out     *bufio.Reader
	tail    *tailBuffer
	exited  chan struct{}
	waitErr error

	mu       sync.Mutex
	nextID   int
	broken   error // the first failure: every later call returns it
	timedOut atomic.Bool
	canFit   bool
	name     string
	closed   bool
}

// Start runs command (split into words like a shell, Split) and performs
// the hello: the model must answer "ready" within the timeout.
func Start(ctx context.Context, command string, o Options) (*Client, error) {
	words, err := Split(command)
	if err != nil {
		return nil, fmt.Errorf("external model: %w", err)
	}
	if o.Features == nil || o.Features.Rows != o.Nodes || o.Nodes < 1 || o.Classes < 2 {
		return nil, fmt.Errorf("external model %q: need features of %d nodes and ≥ 2 classes", command, o.Nodes)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Dir = o.Dir
	setProcAttr(cmd)
	c := &Client{command: command, opts: o, cmd: cmd, tail: &tailBuffer{max: 4 << 10}, exited: make(chan struct{})}
	cmd.Stderr = io.MultiWriter(o.Stderr, c.tail)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, c.fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, c.fail(err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("external model %q: %w", command, err)
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	c.stdin, c.in, c.out = stdin, bufio.NewWriterSize(stdin, 1<<20), bufio.NewReaderSize(stdout, 1<<20)
	xi, xv := featureArrays(o.Features)
	h := Header{Type: "hello", Version: Version, Nodes: o.Nodes, Features: o.Features.Cols, Classes: o.Classes}
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.roundTrip(ctx, "hello", smallReply, h, xi, xv)
	if err != nil {
		return nil, err
	}
	if m.Type != "ready" {
		return nil, c.fail(fmt.Errorf("answered the hello with %q, want ready", m.Type))
	}
	if m.Version != 0 && m.Version != Version {
		return nil, c.fail(fmt.Errorf("speaks protocol version %d, rgnn %d", m.Version, Version))
	}
	c.canFit, c.name = m.Fit, m.Name
	return c, nil
}

// Command returns the command line the client runs.
func (c *Client) Command() string { return c.command }

// CanFit reports whether the model fits itself (it said "fit": true).
func (c *Client) CanFit() bool { return c.canFit }

// Name is the name the model gave itself ("" if none).
func (c *Client) Name() string { return c.name }

// Predict has the model predict every node of each graph, in one request.
func (c *Client) Predict(ctx context.Context, graphs []Graph) ([]Prediction, error) {
	if len(graphs) == 0 {
		return nil, nil
	}
	entries := make([]npz.Entry, 0, 5)
	ei, ptr := edgeArrays(graphs)
	entries = append(entries, ei, ptr)
	own := false
	for _, g := range graphs {
		if g.Adj.Rows != c.opts.Nodes {
			return nil, fmt.Errorf("external model %q: a graph of %d nodes, the session has %d", c.command, g.Adj.Rows, c.opts.Nodes)
		}
		if g.Features != nil && g.Features != c.opts.Features {
			own = true
		}
	}
	if own {
		entries = append(entries, batchFeatureArrays(graphs, c.opts.Features)...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := c.nextID
	// The reply holds at most B×N×C float64 logits.
	limit := int64(len(graphs))*int64(c.opts.Nodes)*int64(c.opts.Classes)*8 + smallReply
	m, err := c.roundTrip(ctx, fmt.Sprintf("predict request %d", id), limit, Header{Type: "predict", ID: id, Graphs: len(graphs)}, entries...)
	if err != nil {
		return nil, err
	}
	if m.ID != id {
		return nil, c.fail(fmt.Errorf("answered predict request %d with id %d", id, m.ID))
	}
	p, err := DecodePredictions(m, len(graphs), c.opts.Nodes, c.opts.Classes)
	if err != nil {
		return nil, c.fail(fmt.Errorf("reply to predict request %d: %w", id, err))
	}
	return p, nil
}

// Fit has the model fit itself on graph g with the labels and the
// training and validation nodes (rgnn's training step for it).
func (c *Client) Fit(ctx context.Context, g Graph, labels []int32, train, val []int) error {
	if !c.canFit {
		return fmt.Errorf("external model %q does not fit itself (its ready message has no \"fit\": true): "+
			"it must come trained, and poisoning, which retrains on every perturbed graph, is not possible", c.command)
	}
	ei, _ := edgeArrays([]Graph{g})
	y := make([]int64, len(labels))
	for i, v := range labels {
		y[i] = int64(v)
	}
	ids := func(name string, v []int) npz.Entry {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return npz.I64(name, []int{len(out)}, out)
	}
	entries := []npz.Entry{ei, npz.I64("labels", []int{len(y)}, y), ids("train", train), ids("val", val)}
	if g.Features != nil && g.Features != c.opts.Features {
		xi, xv := featureArrays(g.Features)
		entries = append(entries, xi, xv)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := c.nextID
	m, err := c.roundTrip(ctx, fmt.Sprintf("fit request %d", id), smallReply, Header{Type: "fit", ID: id}, entries...)
	if err != nil {
		return err
	}
	if m.Type != "fitted" || m.ID != id {
		return c.fail(fmt.Errorf("answered fit request %d with %q (id %d), want fitted", id, m.Type, m.ID))
	}
	return nil
}

// roundTrip sends a message and reads the reply, each of its arrays at
// most maxBytes, within the timeout (c.mu held). A reply of type "error" is
// returned as an error, leaving the session usable; any other failure
// breaks it.
func (c *Client) roundTrip(ctx context.Context, what string, maxBytes int64, h Header, arrays ...npz.Entry) (*Message, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	if c.closed {
		return nil, fmt.Errorf("external model %q: used after Close", c.command)
	}
	timer := time.AfterFunc(c.opts.Timeout, func() {
		c.timedOut.Store(true)
		c.kill()
	})
	defer timer.Stop()
	stop := context.AfterFunc(ctx, c.kill)
	defer stop()
	err := WriteMessage(c.in, h, arrays...)
	if err == nil {
		err = c.in.Flush()
	}
	if err != nil {
		return nil, c.fail(fmt.Errorf("sending the %s: %w", what, err))
	}
	m, err := ReadMessage(c.out, maxBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.fail(fmt.Errorf("%s: %w", what, ctx.Err()))
		}
		if errors.Is(err, io.EOF) {
			err = errors.New("no reply (the process closed its stdout)")
		}
		return nil, c.fail(fmt.Errorf("reading the reply to the %s: %w", what, err))
	}
	if m.Type == "error" {
		return nil, fmt.Errorf("external model %q failed on the %s: %s", c.command, what, m.Message)
	}
	return m, nil
}

// fail breaks the session: the child is killed and reaped, and err (with
// how the child ended and its last stderr) is what every later call
// returns (c.mu held, or not yet shared).
func (c *Client) fail(err error) error {
	if c.broken != nil {
		return c.broken
	}
	c.kill()
	status := c.reap(5 * time.Second)
	msg := fmt.Sprintf("external model %q: %v", c.command, err)
	switch {
	case c.timedOut.Load():
		msg = fmt.Sprintf("external model %q: no reply within %v (timeout; raise --external-timeout for a slow model): %v",
			c.command, c.opts.Timeout, err)
	case status != "":
		msg += "; " + status
	}
	if t := c.tail.String(); t != "" {
		msg += "; its last stderr:\n" + t
	}
	c.broken = errors.New(msg)
	return c.broken
}

// kill ends the child (its process group where the platform has one).
func (c *Client) kill() {
	if c.cmd.Process != nil {
		killTree(c.cmd)
	}
}

// reap waits up to d for the child to be reaped and describes how it
// ended ("" if it is still running, which kill makes unlikely).
func (c *Client) reap(d time.Duration) string {
	if c.cmd.Process == nil {
		return ""
	}
	select {
	case <-c.exited:
	case <-time.After(d):
		return "the process did not exit"
	}
	var ee *exec.ExitError
	switch {
	case c.waitErr == nil:
		return "the process exited with status 0"
	case errors.As(c.waitErr, &ee):
		return "the process " + ee.ProcessState.String()
	}
	return c.waitErr.Error()
}

// Close ends the session: the child's stdin is closed (the protocol's end),
// and a child that has not exited after a grace period is killed. The
// child is reaped in every case. A child that exits with an error status
// after a clean session is reported.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.broken != nil {
		c.reap(5 * time.Second)
		return nil // reported when it broke
	}
	c.in.Flush()
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.kill()
		<-c.exited
		return fmt.Errorf("external model %q: did not exit within 10 s of its stdin closing: killed", c.command)
	}
	if c.waitErr != nil {
		msg := fmt.Sprintf("external model %q: exited with %v after the session", c.command, c.waitErr)
		if t := c.tail.String(); t != "" {
			msg += "; its last stderr:\n" + t
		}
		return errors.New(msg)
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimRight(string(t.b), "\n")
}
