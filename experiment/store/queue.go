package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Queue states of a run.
const (
	Queued  = "queued"  // waiting to be claimed
	Claimed = "claimed" // held by a worker whose lease has not expired (or has: then claimable again)
	Done    = "done"    // its result is stored
	Failed  = "failed"  // it returned an error; claimed again only after RetryFailed
)

// QueueItem is a run to enqueue.
type QueueItem struct {
	Key, Kind, Experiment string
	Params                Params
	// Priority orders claims: lower first (training before the runs that
	// load its weights).
	Priority int
}

// Claim is a run a worker holds a lease on.
type Claim struct {
	Key, Kind, Experiment string
	Params                Params
	Attempts              int // claims so far, this one included
}

// QueueEntry is a queued run with its state, as listed by [Store.Queue].
type QueueEntry struct {
	Key        string        `json:"key"`
	Kind       string        `json:"kind"`
	Experiment string        `json:"experiment"`
	Params     Params        `json:"params"`
	State      string        `json:"state"`
	Worker     string        `json:"worker,omitempty"`
	LeaseLeft  time.Duration `json:"lease_left_ns,omitempty"` // < 0: expired, claimable again
	Attempts   int           `json:"attempts"`
	Error      string        `json:"error,omitempty"`
}

// Enqueue adds runs to the queue. A run already queued, claimed or failed
// keeps its state; one marked done whose result is gone (deleted) is queued
// again. It returns the number of runs newly queued.
func (s *Store) Enqueue(ctx context.Context, items []QueueItem) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("enqueue: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, s.rebind(`INSERT INTO queue
		(key, kind, experiment, params, priority, seq, enqueued_at, state)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'queued')
		ON CONFLICT (key) DO UPDATE SET state = 'queued', error = '', worker = '', lease_until = 0
		WHERE queue.state = 'done'`))
	if err != nil {
		return 0, fmt.Errorf("enqueue: %w", err)
	}
	defer stmt.Close()
	at := time.Now().UTC().Format(time.RFC3339Nano)
	n := 0
	for i, it := range items {
		params, err := Canonical(it.Params)
		if err != nil {
			return 0, err
		}
		res, err := stmt.ExecContext(ctx, it.Key, it.Kind, it.Experiment, params, it.Priority, i, at)
		if err != nil {
			return 0, fmt.Errorf("enqueue %s: %w", it.Key, err)
		}
		m, _ := res.RowsAffected()
		n += int(m)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("enqueue: %w", err)
	}
	return n, nil
}

// claimable is the condition on a queue row that a worker may claim it.
func (s *Store) claimable() string {
	return `(state = 'queued' OR (state = 'claimed' AND lease_until < ` + s.nowMS() + `))`
}

// Claim takes the next claimable run (queued, or claimed with an expired
// lease) for worker with a lease of the given length, or reports false if
// there is none. In PostgreSQL concurrent claims skip each other's locked
// rows (FOR UPDATE SKIP LOCKED); in SQLite the claim is one write
// statement, which the database serialises. Either way no run is held by
// two workers under a live lease.
func (s *Store) Claim(ctx context.Context, worker string, lease time.Duration) (Claim, bool, error) {
	lock := ""
	if s.pg {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	return s.claim(ctx, `key = (SELECT key FROM queue WHERE `+s.claimable()+`
		ORDER BY priority, enqueued_at, seq LIMIT 1`+lock+`)`, worker, lease)
}

// ClaimKey claims the run with key if it is claimable.
func (s *Store) ClaimKey(ctx context.Context, key, worker string, lease time.Duration) (Claim, bool, error) {
	return s.claim(ctx, `key = ? AND `+s.claimable(), worker, lease, key)
}

func (s *Store) claim(ctx context.Context, where, worker string, lease time.Duration, args ...any) (Claim, bool, error) {
	q := s.rebind(`UPDATE queue SET state = 'claimed', worker = ?, lease_until = ` + s.nowMS() + ` + ?,
		attempts = attempts + 1 WHERE ` + where + ` RETURNING key, kind, experiment, params, attempts`)
	var c Claim
	var params string
	err := s.db.QueryRowContext(ctx, q, append([]any{worker, lease.Milliseconds()}, args...)...).
		Scan(&c.Key, &c.Kind, &c.Experiment, &params, &c.Attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return Claim{}, false, nil
	}
	if err != nil {
		return Claim{}, false, fmt.Errorf("claim: %w", err)
	}
	if err := json.Unmarshal([]byte(params), &c.Params); err != nil {
		return Claim{}, false, fmt.Errorf("claim %s params: %w", c.Key, err)
	}
	return c, true, nil
}

// Heartbeat extends the leases worker holds to lease from now and returns
// how many it holds still (a lease that expired and was claimed by another
// worker is lost; the run's result is written once whoever finishes it).
func (s *Store) Heartbeat(ctx context.Context, worker string, lease time.Duration) (int, error) {
	res, err := s.db.ExecContext(ctx, s.rebind(`UPDATE queue SET lease_until = `+s.nowMS()+` + ?
		WHERE worker = ? AND state = 'claimed'`), lease.Milliseconds(), worker)
	if err != nil {
		return 0, fmt.Errorf("heartbeat: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Release puts the runs with keys that worker holds back in the queue (all
// it holds when keys is empty), for a worker that stops before finishing
// them.
func (s *Store) Release(ctx context.Context, worker string, keys ...string) error {
	if len(keys) == 0 {
		_, err := s.db.ExecContext(ctx, s.rebind(`UPDATE queue SET state = 'queued', worker = '', lease_until = 0
			WHERE worker = ? AND state = 'claimed'`), worker)
		if err != nil {
			return fmt.Errorf("release: %w", err)
		}
		return nil
	}
	for _, k := range keys {
		if _, err := s.db.ExecContext(ctx, s.rebind(`UPDATE queue SET state = 'queued', worker = '', lease_until = 0
			WHERE key = ? AND worker = ? AND state = 'claimed'`), k, worker); err != nil {
			return fmt.Errorf("release %s: %w", k, err)
		}
	}
	return nil
}

// MarkDone marks the queued run key done (its result is in the store).
func (s *Store) MarkDone(ctx context.Context, key string) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`UPDATE queue SET state = 'done', worker = '', lease_until = 0, error = ''
		WHERE key = ?`), key)
	if err != nil {
		return fmt.Errorf("queue %s: %w", key, err)
	}
	return nil
}

// RetryFailed queues the failed runs among keys (every failed run when keys
// is nil) again and returns how many.
func (s *Store) RetryFailed(ctx context.Context, keys []string) (int, error) {
	if keys == nil {
		res, err := s.db.ExecContext(ctx, `UPDATE queue SET state = 'queued', worker = '', lease_until = 0
			WHERE state = 'failed'`)
		if err != nil {
			return 0, fmt.Errorf("retry failed: %w", err)
		}
		n, _ := res.RowsAffected()
		return int(n), nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("retry failed: %w", err)
	}
	defer tx.Rollback()
	n := 0
	for _, k := range keys {
		res, err := tx.ExecContext(ctx, s.rebind(`UPDATE queue SET state = 'queued', worker = '', lease_until = 0
			WHERE key = ? AND state = 'failed'`), k)
		if err != nil {
			return 0, fmt.Errorf("retry failed: %w", err)
		}
		m, _ := res.RowsAffected()
		n += int(m)
	}
	return n, tx.Commit()
}

// Entry returns the queue entry of key, or ok=false.
func (s *Store) Entry(ctx context.Context, key string) (QueueEntry, bool, error) {
	q, err := s.entries(ctx, `WHERE key = ?`, key)
	if err != nil || len(q) == 0 {
		return QueueEntry{}, false, err
	}
	return q[0], true, nil
}

// Queue lists the queue in claim order.
func (s *Store) Queue(ctx context.Context) ([]QueueEntry, error) {
	return s.entries(ctx, `ORDER BY priority, enqueued_at, seq`)
}

// QueueMatching lists the queued runs of every state whose kind,
// experiment and parameters match f (as [Store.Query] matches results).
func (s *Store) QueueMatching(ctx context.Context, f Filter) ([]QueueEntry, error) {
	clause, args := s.filterWhere(f)
	return s.entries(ctx, clause+` ORDER BY priority, enqueued_at, seq`, args...)
}

func (s *Store) entries(ctx context.Context, clause string, args ...any) ([]QueueEntry, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT key, kind, experiment, params, state, worker,
		lease_until - `+s.nowMS()+`, attempts, error FROM queue `+clause), args...)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	defer rows.Close()
	var out []QueueEntry
	for rows.Next() {
		var e QueueEntry
		var params string
		var left int64
		if err := rows.Scan(&e.Key, &e.Kind, &e.Experiment, &params, &e.State, &e.Worker, &left, &e.Attempts, &e.Error); err != nil {
			return nil, fmt.Errorf("queue: %w", err)
		}
		if err := json.Unmarshal([]byte(params), &e.Params); err != nil {
			return nil, fmt.Errorf("queue %s params: %w", e.Key, err)
		}
		if e.State == Claimed {
			e.LeaseLeft = time.Duration(left) * time.Millisecond
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
