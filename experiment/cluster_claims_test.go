package experiment

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/fixture"
)

const splitGrid = `
name: split
fixed: {dataset: citeseer, model: gcn, max_epochs: 2}
grid: {seed: [0, 1, 2, 3, 4, 5, 6, 7], kind: [train]}
`

// inProcesses runs do for n processes at once, each with its own
// connection to the SQLite file path (as separate `rgnn run` processes
// have; closed when the test ends) in its Env, and returns their
// summaries. An error of one fails the test.
func inProcesses(t *testing.T, path, dataDir string, n int, do func(i int, env *Env) (Summary, error)) []Summary {
	t.Helper()
	var wg sync.WaitGroup
	sums := make([]Summary, n)
	for i := range sums {
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			sums[i], err = do(i, &Env{Store: st, Kinds: DefaultKinds(), DataDir: dataDir})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	return sums
}

// TestTwoProcessesSplitAGrid: two Executes of one grid on one SQLite file
// (each with its own connection, as two `rgnn run` processes) split the
// runs instead of each running them all, and both finish with the grid
// complete.
func TestTwoProcessesSplitAGrid(t *testing.T) {
	dir := fixture.DataDir(t)
	path := filepath.Join(t.TempDir(), "results.db")
	e, err := Parse([]byte(splitGrid))
	if err != nil {
		t.Fatal(err)
	}
	sums := inProcesses(t, path, dir, 2, func(i int, env *Env) (Summary, error) {
		return Execute(context.Background(), env, e, RunOptions{Worker: fmt.Sprintf("p%d", i)})
	})
	ran := sums[0].Ran + sums[1].Ran
	if ran != 8 || sums[0].Ran+sums[0].AlreadyDone+sums[0].ByOthers != 8 || sums[1].Ran+sums[1].AlreadyDone+sums[1].ByOthers != 8 {
		t.Fatalf("runs executed %d times in all (want 8): %+v", ran, sums)
	}
	st, _ := store.Open(path)
	defer st.Close()
	rs, _ := st.Query(context.Background(), store.Filter{})
	q, _ := st.Queue(context.Background())
	if len(rs) != 8 || len(q) != 8 {
		t.Fatalf("%d results, %d queue entries", len(rs), len(q))
	}
	for _, e := range q {
		if e.State != store.Done {
			t.Fatalf("queue entry %+v", e)
		}
	}
}

// TestWorkersFinishAGridAfterOneDies: a process claims a run and dies
// (its lease is never renewed); workers started with the queue run every
// run, the dead one's after its lease expires, each once, and stop when
// the queue is empty. The stored metrics equal a plain local run's.
func TestWorkersFinishAGridAfterOneDies(t *testing.T) {
	dir := fixture.DataDir(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	e, _ := Parse([]byte(splitGrid))
	runs, err := e.Expand(DefaultKinds())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var items []store.QueueItem
	for _, r := range runs {
		items = append(items, store.QueueItem{Key: r.Key, Kind: r.Kind, Experiment: e.Name, Params: r.Params})
	}
	if _, err := st.Enqueue(ctx, items); err != nil {
		t.Fatal(err)
	}
	dead, ok, err := st.Claim(ctx, "dead", 300*time.Millisecond)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	sums := inProcesses(t, path, dir, 3, func(i int, env *Env) (Summary, error) {
		return Work(ctx, env, WorkOptions{Worker: fmt.Sprintf("w%d", i), Lease: 10 * time.Second})
	})
	if n := sums[0].Ran + sums[1].Ran + sums[2].Ran; n != 8 {
		t.Fatalf("%d runs executed, want 8: %+v", n, sums)
	}
	got, _ := st.Query(ctx, store.Filter{})
	if len(got) != 8 {
		t.Fatalf("%d results", len(got))
	}
	if r, ok, _ := st.Get(ctx, dead.Key); !ok || r.Experiment != "split" {
		t.Fatalf("the dead worker's run: %+v %v", r, ok)
	}
	// The same grid run locally, in one process, stores the same metrics.
	local, err := store.Open(filepath.Join(t.TempDir(), "local.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if _, err := Execute(ctx, &Env{Store: local, Kinds: DefaultKinds(), DataDir: dir}, e, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	want, _ := local.Query(ctx, store.Filter{})
	if d := store.DiffMetrics(want, got); len(d) != 0 {
		t.Fatal(d)
	}
}

// TestDependencyHeldElsewhereIsAwaited: an eval run whose training another
// worker holds waits for that worker's result instead of training again.
func TestDependencyHeldElsewhereIsAwaited(t *testing.T) {
	dir := fixture.DataDir(t)
	ctx := context.Background()
	tmp := t.TempDir()
	e, _ := Parse([]byte(`
name: dep
fixed: {dataset: citeseer, model: gcn, max_epochs: 2, seed: 0}
grid: {kind: [train, eval]}
`))
	// The other worker's training, computed aside.
	aside, _ := store.Open(filepath.Join(tmp, "aside", "r.db"))
	defer aside.Close()
	if _, err := Execute(ctx, &Env{Store: aside, Kinds: DefaultKinds(), DataDir: dir}, e, RunOptions{Only: []string{"train"}}); err != nil {
		t.Fatal(err)
	}
	trained, _ := aside.Query(ctx, store.Filter{Kind: "train"})
	st, _ := store.Open(filepath.Join(tmp, "r.db"))
	defer st.Close()
	runs, _ := e.Expand(DefaultKinds())
	if _, err := Enqueue(ctx, st, e.Name, runs, false); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.ClaimKey(ctx, trained[0].Key, "other", time.Minute); !ok || err != nil {
		t.Fatal(ok, err)
	}
	go func() {
		time.Sleep(700 * time.Millisecond)
		store.CopyResults(ctx, st, aside, store.Filter{})
	}()
	sum, err := Execute(ctx, &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}, e, RunOptions{Only: []string{"eval"}, Lease: time.Second})
	if err != nil || sum.Ran != 1 {
		t.Fatal(sum, err)
	}
	got, _, _ := st.Get(ctx, trained[0].Key)
	if !got.Started.Equal(trained[0].Started) {
		t.Fatal("the training was run again instead of awaited")
	}
}

// TestDeadHolderOnThisHostIsReleased: a run held by a process of this host
// that is gone (kill -9) is taken over at once, not after its lease.
func TestDeadHolderOnThisHostIsReleased(t *testing.T) {
	dir := fixture.DataDir(t)
	ctx := context.Background()
	e, _ := Parse([]byte(`
name: dead
fixed: {dataset: citeseer, model: gcn, max_epochs: 2}
grid: {seed: [0, 1], kind: [train]}
`))
	st, _ := store.Open(filepath.Join(t.TempDir(), "r.db"))
	defer st.Close()
	runs, _ := e.Expand(DefaultKinds())
	Enqueue(ctx, st, e.Name, runs, false)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no `true` to run:", err)
	}
	dead := fmt.Sprintf("%s/%d/%s-0", hostTag(), gone.Process.Pid, pidNamespace())
	if !deadHere(dead) || deadHere(WorkerID()) || deadHere("elsewhere/1/0-0") {
		t.Fatal("deadHere")
	}
	if _, ok, _ := st.ClaimKey(ctx, runs[0].Key, dead, time.Hour); !ok {
		t.Fatal("claim")
	}
	start := time.Now()
	sum, err := Execute(ctx, &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}, e, RunOptions{})
	if err != nil || sum.Ran != 2 || time.Since(start) > time.Minute {
		t.Fatal(sum, err, time.Since(start))
	}
}

// TestWorkStopsClaimingBeforeTheTimeLimit: with less time left than the
// reserve, a worker claims nothing and says why.
func TestWorkStopsClaimingBeforeTheTimeLimit(t *testing.T) {
	ctx := context.Background()
	st, _ := store.Open(filepath.Join(t.TempDir(), "r.db"))
	defer st.Close()
	e, _ := Parse([]byte("name: tl\nfixed: {dataset: citeseer, kind: train}\n"))
	runs, _ := e.Expand(DefaultKinds())
	Enqueue(ctx, st, e.Name, runs, false)
	sum, err := Work(ctx, &Env{Store: st, Kinds: DefaultKinds()}, WorkOptions{TimeLimit: time.Minute, Reserve: time.Hour})
	if err != nil || sum.Ran != 0 || len(sum.Notes) != 1 || !strings.Contains(sum.Notes[0], "before the time limit") {
		t.Fatal(sum, err)
	}
	q, _ := st.Queue(ctx)
	if len(q) != 1 || q[0].State != store.Queued {
		t.Fatal(q)
	}
}
