package serve

import (
	"context"
	"slices"
	"sync"
	"time"
)

// update is an acknowledged graph version waiting for its logits.
type update struct {
	g       *graphState
	changed []int // rows that differ from the previous version
	acked   time.Time
}

// pending is the queue of acknowledged versions, in order, from the write
// path to the engine.
type pending struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  []update
	closed bool
	// wake holds a token after a push or close (for quiet's timed wait).
	wake chan struct{}
}

func newPending() *pending {
	p := &pending{wake: make(chan struct{}, 1)}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pending) push(u update) {
	p.mu.Lock()
	p.queue = append(p.queue, u)
	p.mu.Unlock()
	p.cond.Signal()
	p.poke()
}

func (p *pending) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// fillNow reports whether to fill a lazy version's table now: true when
// predictions asked for it (a token in want) or no update arrives (and the
// queue is not closed) within d; false when one does.
func (p *pending) fillNow(d time.Duration, want <-chan struct{}) bool {
	select { // a token from before this call
	case <-p.wake:
	default:
	}
	select {
	case <-want:
		return true
	default:
	}
	p.mu.Lock()
	busy := len(p.queue) > 0 || p.closed
	p.mu.Unlock()
	if busy {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.wake:
		return false
	case <-want:
		return true
	case <-t.C:
		return true
	}
}

// takeAll waits for updates and returns all of them (nil once closed).
func (p *pending) takeAll() []update {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) == 0 && !p.closed {
		p.cond.Wait()
	}
	if len(p.queue) == 0 {
		return nil
	}
	q := p.queue
	p.queue = nil
	return q
}

func (p *pending) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
	p.poke()
}

// engineLoop brings the logits to the latest acknowledged version, batch by
// batch: the updates queued meanwhile are applied together (the union of
// their changed rows against the latest graph), so the served version
// never falls far behind, and predictions always come from one
// consistent version. A lazy version (modePushGDCRows) is served at once
// and gets its whole table when updates pause for Options.FillDelay, or
// at once when predictions ask for more nodes than lazyRows should compute
// (requestFill).
func (s *Server) engineLoop(ctx context.Context) {
	defer s.bg.Done()
	go func() {
		<-ctx.Done()
		s.pending.close()
	}()
	var carry []int // the changed rows of a batch that failed
	for {
		batch := s.pending.takeAll()
		if batch == nil {
			return
		}
		last := batch[len(batch)-1]
		changed := carry
		for _, u := range batch {
			changed = append(changed, u.changed...)
		}
		slices.Sort(changed)
		changed = slices.Compact(changed)
		prev := s.served.Load()
		logits, lazy, rows, err := s.eng.update(prev.logits, last.g, changed)
		if err != nil {
			msg := err.Error()
			s.engErr.Store(&msg)
			s.logf("logits of version %d: %v (serving version %d)", last.g.version, err, prev.version)
			carry = changed
			continue
		}
		carry = nil
		s.engErr.Store(nil)
		if rows > 0 {
			s.met.pprRows.Observe(float64(rows))
		}
		s.publishServed(&servedState{version: last.g.version, logits: logits, lazy: lazy, nodes: last.g.nodes()})
		now := time.Now()
		for _, u := range batch {
			s.met.updateLag.Observe(now.Sub(u.acked).Seconds())
		}
		s.eng.settle()
		if lazy != nil && s.pending.fillNow(time.Duration(s.opts.FillDelay*float64(time.Second)), s.fillWant) {
			s.publishServed(&servedState{version: last.g.version, logits: s.eng.fill(lazy), nodes: last.g.nodes()})
			select { // asked for during the fill: answered by it
			case <-s.fillWant:
			default:
			}
		}
	}
}
