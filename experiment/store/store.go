package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Params are a run's parameters: strings, float64 numbers, bools (after a
// JSON round trip every number is a float64).
type Params map[string]any

// Canonical returns the canonical JSON of p: keys sorted, numbers as JSON
// numbers (ints and floats of equal value are the same).
func Canonical(p Params) (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("params: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("params: %w", err)
	}
	b, err = json.Marshal(m) // maps marshal with sorted keys
	if err != nil {
		return "", fmt.Errorf("params: %w", err)
	}
	return string(b), nil
}

// Key is the result key of a run: the first 20 hex digits of
// sha256(kind + "\n" + canonical params).
func Key(kind string, p Params) (string, error) {
	c, err := Canonical(p)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(kind + "\n" + c))
	return hex.EncodeToString(h[:10]), nil
}

// Result is one finished run.
type Result struct {
	Key        string            `json:"key"`
	Kind       string            `json:"kind"`
	Experiment string            `json:"experiment"`
	Params     Params            `json:"params"`
	Metrics    map[string]any    `json:"metrics"`
	Artifacts  map[string]string `json:"artifacts,omitempty"`
	Started    time.Time         `json:"started"`
	Finished   time.Time         `json:"finished"`
	Seconds    float64           `json:"seconds"`
}

// Failure is a run that returned an error (it is retried by the next run).
type Failure struct {
	Key, Kind, Experiment string
	Params                Params
	Error                 string
	At                    time.Time
}

// Store is an open results database with its artifact folder.
type Store struct {
	db   *sql.DB
	path string
	art  string
}

// Open opens (creating if needed) the database at path and the artifact
// folder "artifacts" beside it, and applies pending migrations.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	art := filepath.Join(filepath.Dir(path), "artifacts")
	if err := os.MkdirAll(art, 0o755); err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(30000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	// One connection: writes are rare and serialising them in the process
	// avoids SQLITE_BUSY between our own goroutines.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path, art: art}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) migrate() error {
	var v int
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this rgnn (%d)", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		tx, err := s.db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(migrations[i]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", i+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// ArtifactDir is the content-addressed artifact folder.
func (s *Store) ArtifactDir() string { return s.art }

func checksum(key, kind, params, metrics, artifacts string) string {
	h := sha256.New()
	for _, f := range []string{key, kind, params, metrics, artifacts} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Put records a result in one transaction, unless a result with its key
// exists (then it reports false). Every artifact it names must already be
// in the artifact folder. A stale failure of the same key is removed.
func (s *Store) Put(ctx context.Context, r Result) (bool, error) {
	params, err := Canonical(r.Params)
	if err != nil {
		return false, err
	}
	if r.Metrics == nil {
		r.Metrics = map[string]any{}
	}
	mb, err := json.Marshal(r.Metrics)
	if err != nil {
		return false, fmt.Errorf("result %s metrics: %w", r.Key, err)
	}
	if r.Artifacts == nil {
		r.Artifacts = map[string]string{}
	}
	for name, sha := range r.Artifacts {
		if _, err := os.Stat(s.ArtifactPath(sha)); err != nil {
			return false, fmt.Errorf("result %s: artifact %s: %w", r.Key, name, err)
		}
	}
	ab, _ := json.Marshal(r.Artifacts)
	sum := checksum(r.Key, r.Kind, params, string(mb), string(ab))
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO results
		(key, kind, experiment, params, metrics, artifacts, started_at, finished_at, seconds, checksum)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Key, r.Kind, r.Experiment, params, string(mb), string(ab),
		r.Started.UTC().Format(time.RFC3339Nano), r.Finished.UTC().Format(time.RFC3339Nano), r.Seconds, sum)
	if err != nil {
		return false, fmt.Errorf("store result %s: %w", r.Key, err)
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM failures WHERE key = ?`, r.Key); err != nil {
		return false, fmt.Errorf("store result %s: %w", r.Key, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store result %s: %w", r.Key, err)
	}
	return n == 1, nil
}

// PutFailure records (or replaces) a failed run.
func (s *Store) PutFailure(ctx context.Context, f Failure) error {
	params, err := Canonical(f.Params)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT OR REPLACE INTO failures (key, kind, experiment, params, error, at)
		VALUES (?, ?, ?, ?, ?, ?)`, f.Key, f.Kind, f.Experiment, params, f.Error, f.At.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("store failure %s: %w", f.Key, err)
	}
	return nil
}

// Failures lists recorded failures.
func (s *Store) Failures(ctx context.Context) ([]Failure, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, kind, experiment, params, error, at FROM failures ORDER BY at`)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Failure
	for rows.Next() {
		var f Failure
		var params, at string
		if err := rows.Scan(&f.Key, &f.Kind, &f.Experiment, &params, &f.Error, &at); err != nil {
			return nil, err
		}
		json.Unmarshal([]byte(params), &f.Params)
		f.At, _ = time.Parse(time.RFC3339Nano, at)
		out = append(out, f)
	}
	return out, rows.Err()
}

// Has reports which of keys have results.
func (s *Store) Has(ctx context.Context, keys []string) (map[string]bool, error) {
	done := map[string]bool{}
	rows, err := s.db.QueryContext(ctx, `SELECT key FROM results`)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		if want[k] {
			done[k] = true
		}
	}
	return done, rows.Err()
}

// Get returns the result with key, or ok=false.
func (s *Store) Get(ctx context.Context, key string) (Result, bool, error) {
	rs, err := s.query(ctx, `WHERE key = ?`, key)
	if err != nil || len(rs) == 0 {
		return Result{}, false, err
	}
	return rs[0], true, nil
}

// Filter selects results. Empty fields match everything; Params match the
// canonical JSON value of a parameter as text (e.g. "gcn", "0.5", "true").
type Filter struct {
	Kind       string
	Experiment string
	Params     map[string]string
}

// Query returns the results matching f, ordered by kind and finish time.
func (s *Store) Query(ctx context.Context, f Filter) ([]Result, error) {
	var where []string
	var args []any
	if f.Kind != "" {
		where = append(where, "kind = ?")
		args = append(args, f.Kind)
	}
	if f.Experiment != "" {
		where = append(where, "experiment = ?")
		args = append(args, f.Experiment)
	}
	names := make([]string, 0, len(f.Params))
	for k := range f.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		// json_extract returns SQL values; compare through their text.
		v := f.Params[k]
		path := "$." + jsonPathKey(k)
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			// numbers compare as numbers: 1, 1.0 and 1e0 match
			where = append(where, "json_extract(params, ?) = ?")
			args = append(args, path, x)
			continue
		}
		switch v { // json_extract yields SQL integers for JSON booleans
		case "true":
			v = "1"
		case "false":
			v = "0"
		}
		where = append(where, "CAST(json_extract(params, ?) AS TEXT) = ?")
		args = append(args, path, v)
	}
	clause := ""
	if len(where) > 0 {
		clause = "WHERE " + strings.Join(where, " AND ")
	}
	return s.query(ctx, clause+" ORDER BY kind, finished_at, key", args...)
}

func jsonPathKey(k string) string { return `"` + strings.ReplaceAll(k, `"`, `\"`) + `"` }

func (s *Store) query(ctx context.Context, clause string, args ...any) ([]Result, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, kind, experiment, params, metrics, artifacts,
		started_at, finished_at, seconds, checksum FROM results `+clause, args...)
	if err != nil {
		return nil, fmt.Errorf("store query: %w", err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		var params, metrics, arts, st, fi, sum string
		if err := rows.Scan(&r.Key, &r.Kind, &r.Experiment, &params, &metrics, &arts, &st, &fi, &r.Seconds, &sum); err != nil {
			return nil, fmt.Errorf("store query: %w", err)
		}
		if checksum(r.Key, r.Kind, params, metrics, arts) != sum {
			return nil, fmt.Errorf("store %s: result %s is corrupt (checksum mismatch)", s.path, r.Key)
		}
		if err := json.Unmarshal([]byte(params), &r.Params); err != nil {
			return nil, fmt.Errorf("store result %s params: %w", r.Key, err)
		}
		if err := json.Unmarshal([]byte(metrics), &r.Metrics); err != nil {
			return nil, fmt.Errorf("store result %s metrics: %w", r.Key, err)
		}
		if err := json.Unmarshal([]byte(arts), &r.Artifacts); err != nil {
			return nil, fmt.Errorf("store result %s artifacts: %w", r.Key, err)
		}
		r.Started, _ = time.Parse(time.RFC3339Nano, st)
		r.Finished, _ = time.Parse(time.RFC3339Nano, fi)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Delete removes results matching f (artifacts stay; they may be shared).
func (s *Store) Delete(ctx context.Context, keys []string) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n := 0
	for _, k := range keys {
		res, err := tx.ExecContext(ctx, `DELETE FROM results WHERE key = ?`, k)
		if err != nil {
			return 0, err
		}
		m, _ := res.RowsAffected()
		n += int(m)
	}
	return n, tx.Commit()
}

// Check verifies every row's checksum and every artifact's content hash.
// It returns one line per problem found.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	var problems []string
	var ic string
	if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ic); err != nil {
		return nil, err
	}
	if ic != "ok" {
		problems = append(problems, "sqlite integrity_check: "+ic)
	}
	rs, err := s.query(ctx, "")
	if err != nil {
		return append(problems, err.Error()), nil
	}
	for _, r := range rs {
		for name, sha := range r.Artifacts {
			got, err := hashFile(s.ArtifactPath(sha))
			if err != nil {
				problems = append(problems, fmt.Sprintf("result %s artifact %s: %v", r.Key, name, err))
			} else if got != sha {
				problems = append(problems, fmt.Sprintf("result %s artifact %s: content hash %s", r.Key, name, got))
			}
		}
	}
	return problems, nil
}
