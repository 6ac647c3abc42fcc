package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func items(n int) []QueueItem {
	var out []QueueItem
	for i := range n {
		p := Params{"seed": float64(i)}
		kind := "certify"
		if i%4 == 0 {
			kind = "train"
		}
		k, _ := Key(kind, p)
		out = append(out, QueueItem{Key: k, Kind: kind, Experiment: "e", Params: p, Priority: map[bool]int{true: 0, false: 1}[kind == "train"]})
	}
	return out
}

// TestConcurrentClaims: eight workers, each with its own connection, claim
// from one queue until it is empty; no run is handed to two of them and
// every run is handed out.
func TestConcurrentClaims(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		target := b.target(t)
		its := items(48)
		if n, err := b.open(t, target).Enqueue(bg(), its); err != nil || n != len(its) {
			t.Fatal(n, err)
		}
		var mu sync.Mutex
		got := map[string][]string{}
		var wg sync.WaitGroup
		for w := range 8 {
			s := b.open(t, target)
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("w%d", w)
				for {
					c, ok, err := s.Claim(bg(), name, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						return
					}
					mu.Lock()
					got[c.Key] = append(got[c.Key], name)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(got) != len(its) {
			t.Fatalf("%d of %d runs claimed", len(got), len(its))
		}
		for k, ws := range got {
			if len(ws) != 1 {
				t.Fatalf("run %s claimed by %v", k, ws)
			}
		}
		q, _ := b.open(t, target).Queue(bg())
		for _, e := range q {
			if e.State != Claimed || e.LeaseLeft <= 0 {
				t.Fatalf("%+v", e)
			}
		}
	})
}

// TestLeases: training is claimed first; an expired lease is claimed again
// by another worker (the first one's heartbeat then finds nothing);
// a live one is not; release, done and failure move the run on.
func TestLeases(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s := b.open(t, b.target(t))
		its := items(3) // train, certify, certify
		s.Enqueue(ctx, its)
		if n, _ := s.Enqueue(ctx, its); n != 0 {
			t.Fatalf("re-enqueue added %d", n)
		}
		c, ok, err := s.Claim(ctx, "a", 1500*time.Millisecond)
		if err != nil || !ok || c.Kind != "train" || c.Attempts != 1 {
			t.Fatal(c, ok, err)
		}
		if _, ok, _ := s.ClaimKey(ctx, c.Key, "b", time.Minute); ok {
			t.Fatal("a live lease was claimed")
		}
		time.Sleep(1700 * time.Millisecond)
		c2, ok, err := s.ClaimKey(ctx, c.Key, "b", time.Minute)
		if err != nil || !ok || c2.Attempts != 2 {
			t.Fatal("expired lease not re-claimed", c2, ok, err)
		}
		if n, _ := s.Heartbeat(ctx, "a", time.Minute); n != 0 {
			t.Fatal("worker a still holds a lease it lost")
		}
		if n, _ := s.Heartbeat(ctx, "b", time.Minute); n != 1 {
			t.Fatal("worker b lost its lease")
		}
		if _, err := s.Put(ctx, Result{Key: c.Key, Kind: c.Kind, Params: c.Params}); err != nil {
			t.Fatal(err)
		}
		c3, _, _ := s.Claim(ctx, "a", time.Minute)
		if err := s.PutFailure(ctx, Failure{Key: c3.Key, Kind: c3.Kind, Params: c3.Params, Error: "boom", At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		c4, _, _ := s.Claim(ctx, "a", time.Minute)
		if err := s.Release(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		q, _ := s.Queue(ctx)
		state := map[string]QueueEntry{}
		for _, e := range q {
			state[e.Key] = e
		}
		if state[c.Key].State != Done || state[c3.Key].State != Failed || state[c3.Key].Error != "boom" || state[c4.Key].State != Queued {
			t.Fatalf("states %+v", q)
		}
		// A failed run is not claimed again until asked.
		c5, _, _ := s.Claim(ctx, "a", time.Minute)
		if c5.Key != c4.Key {
			t.Fatal("claimed", c5.Key)
		}
		if _, ok, _ := s.Claim(ctx, "a", time.Minute); ok {
			t.Fatal("a failed run was claimed")
		}
		if n, err := s.RetryFailed(ctx, nil); n != 1 || err != nil {
			t.Fatal(n, err)
		}
		if c6, ok, _ := s.Claim(ctx, "a", time.Minute); !ok || c6.Key != c3.Key {
			t.Fatal("retried run not claimed")
		}
		// A done run whose result was deleted is queued again.
		s.Delete(ctx, []string{c.Key})
		if n, _ := s.Enqueue(ctx, its[:1]); n != 1 {
			t.Fatal("deleted result not re-queued")
		}
	})
}

// TestMigrationKeepsRows: a database at the previous schema version, with
// a result and a failure, migrates to the current one and keeps them.
func TestMigrationKeepsRows(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		target := b.target(t)
		s := b.open(t, target)
		// Rebuild at version len(migrations)-1 (drop what the last migration made).
		if s.pg {
			for _, q := range []string{`DROP TABLE queue`, `DROP TABLE settings`, `UPDATE schema_version SET version = 1`} {
				if _, err := s.db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			for _, q := range []string{`DROP TABLE queue`, `DROP TABLE settings`, `PRAGMA user_version = 1`} {
				if _, err := s.db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}
		if v, _ := s.Version(); v != 1 {
			t.Fatal("version", v)
		}
		p := Params{"seed": 3}
		key, _ := Key("train", p)
		params, _ := Canonical(p)
		sum := checksum(key, "train", params, `{"acc":0.5}`, `{}`)
		if _, err := s.db.Exec(s.rebind(`INSERT INTO results VALUES (?, 'train', 'old', ?, '{"acc":0.5}', '{}', '2025-01-01T00:00:00Z', '2025-01-01T00:00:01Z', 1.5, ?)`),
			key, params, sum); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(s.rebind(`INSERT INTO failures VALUES ('k2', 'certify', 'old', '{}', 'oom', '2025-01-01T00:00:00Z')`)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = b.open(t, target)
		if v, _ := s.Version(); v != len(migrations) {
			t.Fatal("not migrated: version", v)
		}
		r, ok, err := s.Get(ctx, key)
		if err != nil || !ok || r.Metrics["acc"] != 0.5 || r.Seconds != 1.5 || r.Experiment != "old" {
			t.Fatal("result lost in migration", r, ok, err)
		}
		if fs, _ := s.Failures(ctx); len(fs) != 1 || fs[0].Error != "oom" {
			t.Fatal("failure lost in migration", fs)
		}
		if probs, err := s.Check(ctx); err != nil || len(probs) != 0 {
			t.Fatal(probs, err)
		}
	})
}

// TestQueueMatching: the queue is filtered as Query filters results (kind,
// experiment, parameters; numbers and booleans by value), on both backends.
func TestQueueMatching(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := b.open(t, b.target(t))
		defer s.Close()
		var its []QueueItem
		for i, m := range []string{"gcn", "rgcn", "rgcn"} {
			p := Params{"model": m, "seed": i, "binary_attr": i == 2}
			k, _ := Key("certify", p)
			its = append(its, QueueItem{Key: k, Kind: "certify", Experiment: "e", Params: p})
		}
		if _, err := s.Enqueue(bg(), its); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			f    Filter
			want int
		}{
			{Filter{Params: map[string]string{"model": "rgcn"}}, 2},
			{Filter{Params: map[string]string{"model": "rgcn", "seed": "2.0", "binary_attr": "true"}}, 1},
			{Filter{Kind: "certify", Experiment: "e"}, 3},
			{Filter{Kind: "train"}, 0},
			{Filter{Params: map[string]string{"missing": "1"}}, 0},
		} {
			es, err := s.QueueMatching(bg(), c.f)
			if err != nil || len(es) != c.want {
				t.Fatalf("%+v: %d entries, want %d (%v)", c.f, len(es), c.want, err)
			}
		}
	})
}
