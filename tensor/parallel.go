package tensor

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
)

// minRowsPerChunk keeps tiny problems on one goroutine, where spawning costs
// more than it saves.
const minRowsPerChunk = 64

// Parallel calls fn(lo, hi) over contiguous chunks covering [0, n), at most
// GOMAXPROCS chunks at once, and returns when all are done. Chunks are
// disjoint, so a kernel that writes only rows in [lo, hi) is deterministic.
func Parallel(n int, fn func(lo, hi int)) {
	ParallelChunks(n, minRowsPerChunk, fn)
}

// ParallelChunks is Parallel with an explicit minimum chunk size, for kernels
// whose rows are expensive (grain 1) or very cheap (large grain).
func ParallelChunks(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if grain < 1 {
		grain = 1
	}
	workers := runtime.GOMAXPROCS(0)
	chunks := min(workers, (n+grain-1)/grain)
	if chunks <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	size := (n + chunks - 1) / chunks
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, hi)
	}
	wg.Wait()
}

// parallelByNnz is Parallel for sparse kernels: the rows of a are cut into
// contiguous ranges holding about the same number of entries (skewed
// degree distributions would otherwise leave one goroutine idle).
func parallelByNnz(a *CSR, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	nnz := a.Nnz()
	if workers <= 1 || a.Rows < 2*minRowsPerChunk || nnz == 0 {
		fn(0, a.Rows)
		return
	}
	chunks := workers
	var wg sync.WaitGroup
	lo := 0
	for c := 1; c <= chunks && lo < a.Rows; c++ {
		target := nnz * c / chunks
		hi, _ := slices.BinarySearch(a.Indptr, target)
		hi = min(max(hi, lo+1), a.Rows)
		if c == chunks {
			hi = a.Rows
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, hi)
		lo = hi
	}
	wg.Wait()
}

// ForEachJob runs job(w, i) for every i in [0, n) on workers goroutines
// (clamped to [1, n]), handing out the indices in order as goroutines free
// up; w ∈ [0, workers) names the goroutine, so per-goroutine state (an
// engine, scratch buffers) can be indexed by it. Results written by index
// do not depend on the schedule. After every finished job progress (if
// set) is called with the number done, never concurrently. Jobs not started
// when ctx is cancelled fail with ctx's error; the errors of all jobs are
// joined.
func ForEachJob(ctx context.Context, n, workers int, job func(w, i int) error, progress func(done, total int)) error {
	workers = max(1, min(workers, n))
	errs := make([]error, n)
	var (
		mu         sync.Mutex
		next, done int
		wg         sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				errs[i] = job(w, i)
				mu.Lock()
				done++
				if progress != nil {
					progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
