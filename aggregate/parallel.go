package aggregate

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The aggregations run their rows in parallel on long-lived worker
// goroutines instead of tensor.Parallel, which starts goroutines per call
// (their closures and WaitGroup are allocations): with the per-chunk
// scratch kept in the aggregator, a steady-state Forward/Backward allocates
// nothing. Chunks are contiguous row ranges whose scratch is indexed by
// chunk, and every row's result depends only on its inputs, so results are
// bitwise identical for any GOMAXPROCS.
//
// The pool is process-wide (like the Go scheduler it feeds): it holds no
// results, only idle goroutines, at most GOMAXPROCS−1 of them, started on
// first use.

// task is one chunk of rows for a worker.
type task struct {
	fn            func(chunk, lo, hi int)
	chunk, lo, hi int
	wg            *sync.WaitGroup
	// f, when set, makes the task take chunks from f until none are left
	// (runFixed); fn, chunk, lo and hi are then unused.
	f *fixedRun
}

type workerPool struct {
	mu      sync.Mutex
	started int
	tasks   chan task
}

var pool = &workerPool{tasks: make(chan task, 256)}

// ensure starts workers until there are at least n.
func (p *workerPool) ensure(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.started < n; p.started++ {
		go work(p.tasks)
	}
}

func work(tasks <-chan task) {
	for t := range tasks {
		if t.f != nil {
			t.f.drain()
		} else {
			t.fn(t.chunk, t.lo, t.hi)
		}
		t.wg.Done()
	}
}

// chunking returns how many chunks of at least grain rows [0, n) is cut
// into (at most GOMAXPROCS) and their size.
func chunking(n, grain int) (chunks, size int) {
	if n <= 0 {
		return 0, 0
	}
	chunks = max(1, min(runtime.GOMAXPROCS(0), (n+grain-1)/max(grain, 1)))
	size = (n + chunks - 1) / chunks
	return (n + size - 1) / size, size
}

// par runs row chunks on the pool; an aggregator embeds one per parallel
// section and binds fn once (a method value allocates when created).
type par struct {
	wg sync.WaitGroup
	f  fixedRun
}

// fixedRun hands out the chunks of runFixed to whoever asks next.
type fixedRun struct {
	next           atomic.Int64
	n, size, count int
	fn             func(chunk, lo, hi int)
}

func (f *fixedRun) drain() {
	for {
		c := int(f.next.Add(1) - 1)
		if c >= f.count {
			return
		}
		f.fn(c, c*f.size, min((c+1)*f.size, f.n))
	}
}

// fixedChunks returns the number and size of the chunks runFixed cuts
// [0, n) into: at most maxFixedChunks chunks of at least fixedGrain rows
// (at most 4: so more than 4 cores do not speed up the backward passes).
// It depends on n only, never on GOMAXPROCS, so that per-chunk partial
// results (scatterGrads) and hence their fixed-order sum are the same bits
// on any machine.
func fixedChunks(n int) (count, size int) {
	if n <= 0 {
		return 0, 0
	}
	count = min(maxFixedChunks, max(1, n/fixedGrain))
	size = (n + count - 1) / count
	return (n + size - 1) / size, size
}

const (
	maxFixedChunks = 4
	fixedGrain     = 256
)

// runFixed calls fn(chunk, lo, hi) for the chunks of fixedChunks(n), on the
// calling goroutine and up to GOMAXPROCS−1 workers, each taking the next
// chunk when done with the last, and returns when all are done.
func (p *par) runFixed(n int, fn func(chunk, lo, hi int)) {
	count, size := fixedChunks(n)
	if count == 0 {
		return
	}
	f := &p.f
	f.next.Store(0)
	f.n, f.size, f.count, f.fn = n, size, count, fn
	if workers := min(runtime.GOMAXPROCS(0), count); workers > 1 {
		pool.ensure(workers - 1)
		p.wg.Add(workers - 1)
		for w := 1; w < workers; w++ {
			pool.tasks <- task{f: f, wg: &p.wg}
		}
	}
	f.drain()
	p.wg.Wait()
	f.fn = nil
}

// run calls fn(chunk, lo, hi) for the chunks of chunking(n, grain), chunk 0
// on the calling goroutine, and returns when all are done.
func (p *par) run(n, grain int, fn func(chunk, lo, hi int)) {
	chunks, size := chunking(n, grain)
	if chunks == 0 {
		return
	}
	if chunks > 1 {
		pool.ensure(chunks - 1)
		p.wg.Add(chunks - 1)
		for c := 1; c < chunks; c++ {
			pool.tasks <- task{fn: fn, chunk: c, lo: c * size, hi: min((c+1)*size, n), wg: &p.wg}
		}
	}
	fn(0, 0, min(size, n))
	p.wg.Wait()
}
