package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
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

// Store is an open results database with its artifact folder: an SQLite
// file or a PostgreSQL database (see [Open]).
type Store struct {
	db   *sql.DB
	pg   bool   // PostgreSQL, else SQLite
	path string // the SQLite file, or the PostgreSQL URL without its password
	art  string
}

// Options configure [OpenWith].
type Options struct {
	// Artifacts is the content-addressed artifact folder. Empty: the folder
	// named in the store, else (SQLite only) "artifacts" beside the database
	// file. A folder given here is named in the store if it names none yet,
	// so every later process (on any node) finds it; a PostgreSQL store
	// needs one given once, on a path every node sees.
	Artifacts string
	// Existing opens only a store that exists (read-only commands: a
	// missing SQLite file, or a PostgreSQL database without rgnn's tables,
	// is an *[NotFoundError], and nothing is created).
	Existing bool
}

// NotFoundError is a store that [OpenWith] with Options.Existing did not
// find.
type NotFoundError struct {
	Path string // the SQLite file, or the PostgreSQL URL without its password
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("store %s does not exist", e.Path)
}

// IsURL reports whether target names a PostgreSQL database
// (postgres:// or postgresql://) rather than an SQLite file.
func IsURL(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// CheckTarget refuses a target that is neither an SQLite path nor a
// postgres:// URL: another URL scheme (mysql://..., which would otherwise
// become a folder "mysql:" and an SQLite file in it).
func CheckTarget(target string) error {
	if target == "" {
		return errors.New("store: empty path")
	}
	if IsURL(target) {
		return nil
	}
	if scheme, _, ok := strings.Cut(target, "://"); ok && scheme != "" && !strings.ContainsAny(scheme, `/\`) {
		return fmt.Errorf("store %s: unknown URL scheme %s:// (a store is an SQLite file path or a postgres:// URL)",
			redactAny(target), scheme)
	}
	return nil
}

// redactAny hides the password of any URL with a user part.
func redactAny(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.User == nil {
		return target
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Open opens (creating if needed) the store at target and applies pending
// migrations: a path is an SQLite database file (its artifacts in the
// folder "artifacts" beside it unless the store names another); a
// postgres:// or postgresql:// URL is a PostgreSQL database (pgx), whose
// artifact folder must be named in the store (see [OpenWith]).
func Open(target string) (*Store, error) { return OpenWith(target, Options{}) }

// OpenWith is [Open] with options.
func OpenWith(target string, o Options) (*Store, error) {
	if err := CheckTarget(target); err != nil {
		return nil, err
	}
	var s *Store
	var err error
	if IsURL(target) {
		s, err = openPostgres(target, o.Existing)
	} else {
		s, err = openSQLite(target, o.Existing)
	}
	if err != nil {
		return nil, err
	}
	if err := s.setArtifacts(o.Artifacts, o.Existing); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	return s, nil
}

func openSQLite(path string, existing bool) (*Store, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return nil, fmt.Errorf("store %s: not a regular file (an SQLite store is a file rgnn creates)", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("store %s: %w", path, err)
	case err != nil && existing:
		return nil, &NotFoundError{Path: path}
	case err != nil:
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("store %s: %w", path, err)
		}
	}
	// Opening a fresh file switches it to WAL and migrates it; processes
	// doing that at once can meet in a lock upgrade that SQLite reports as
	// SQLITE_BUSY at once instead of waiting (a deadlock between a reader
	// and a writer): then the open is tried again, for up to a minute.
	start := time.Now()
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		s, err := trySQLite(path)
		if err == nil || !isBusy(err) || time.Since(start) > time.Minute {
			return s, err
		}
		time.Sleep(wait + time.Duration(time.Now().UnixNano()%int64(wait)))
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	return strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked")
}

func trySQLite(path string) (*Store, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(30000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	// Transactions take the write lock when they begin, so two processes
	// claiming runs wait for each other instead of failing with SQLITE_BUSY.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	// One connection: writes are rare and serialising them in the process
	// avoids SQLITE_BUSY between our own goroutines.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if err := s.migrate(len(migrations)); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, explainOpen(path, err))
	}
	return s, nil
}

// explainOpen adds the reason SQLite does not give ("unable to open
// database file (14)") when the store's folder does not let us create the
// file or its journal: a probe file created in the folder names it
// (permission denied, read-only file system, ...).
func explainOpen(path string, err error) error {
	if !strings.Contains(err.Error(), "unable to open") && !strings.Contains(err.Error(), "readonly") &&
		!strings.Contains(err.Error(), "read-only") {
		return err
	}
	dir := filepath.Dir(path)
	f, perr := os.CreateTemp(dir, ".rgnn-probe-*")
	if perr == nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	var pe *fs.PathError
	if errors.As(perr, &pe) {
		perr = pe.Err
	}
	return fmt.Errorf("cannot write in the folder %s (%v): an SQLite store needs to create its file and its "+
		"journal (-wal, -shm) there; choose a writable folder with --store (%w)", dir, perr, err)
}

func openPostgres(target string, existing bool) (*Store, error) {
	shown := redact(target)
	db, err := sql.Open("pgx", target)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", shown, err)
	}
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	s := &Store{db: db, pg: true, path: shown}
	if existing {
		var found bool
		err := db.QueryRow(`SELECT to_regclass('schema_version') IS NOT NULL`).Scan(&found)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("store %s: %w", shown, err)
		}
		if !found {
			db.Close()
			return nil, &NotFoundError{Path: shown}
		}
	}
	if err := s.migrate(len(migrations)); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", shown, err)
	}
	return s, nil
}

// redact hides the password of a URL (in its user part or its query).
func redact(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// setArtifacts decides the artifact folder (see Options.Artifacts); a
// store opened read-only (existing) does not create it.
func (s *Store) setArtifacts(dir string, existing bool) error {
	var named string
	err := s.db.QueryRow(s.rebind(`SELECT value FROM settings WHERE name = ?`), "artifacts").Scan(&named)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	switch {
	case dir != "":
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		dir = abs
		if named == "" {
			if _, err := s.db.Exec(s.rebind(`INSERT INTO settings (name, value) VALUES (?, ?)
				ON CONFLICT (name) DO NOTHING`), "artifacts", dir); err != nil {
				return err
			}
		}
	case named != "":
		dir = named
	case s.pg:
		return errors.New("a PostgreSQL store needs an artifact folder on a path every node sees: give it once with --artifacts DIR (or $RGNN_ARTIFACTS); the store then names it")
	default:
		dir = filepath.Join(filepath.Dir(s.path), "artifacts")
	}
	s.art = dir
	if existing {
		return nil
	}
	return os.MkdirAll(dir, 0o755)
}

// rebind turns the ? placeholders of q into PostgreSQL's $1, $2, ... (none
// of our statements has a ? in a literal).
func (s *Store) rebind(q string) string {
	if !s.pg {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// nowMS is the SQL expression of the database's clock in unix
// milliseconds: leases are timed by the one clock every worker shares.
func (s *Store) nowMS() string {
	if s.pg {
		return `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)`
	}
	return `CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)`
}

// Version is the schema version of the open database.
func (s *Store) Version() (int, error) { return s.version(s.db) }

type queryer interface {
	QueryRow(query string, args ...any) *sql.Row
}

func (s *Store) version(q queryer) (int, error) {
	var v int
	if !s.pg {
		err := q.QueryRow("PRAGMA user_version").Scan(&v)
		return v, err
	}
	err := q.QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// migrate applies the migrations up to number upto. SQLite: in one
// transaction that takes the write lock when it begins (_txlock=immediate,
// waiting up to the busy timeout), reading the schema version
// (PRAGMA user_version, in the file's header) inside it — so processes
// that open a fresh store at once migrate it once, one after the other,
// and the later ones find it done.
func (s *Store) migrate(upto int) error {
	if s.pg {
		return s.migratePostgres(upto)
	}
	v, err := s.version(s.db)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this rgnn (%d)", v, len(migrations))
	}
	if v >= upto {
		return nil
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if v, err = s.version(tx); err != nil { // again, under the write lock
		return err
	}
	for i := v; i < upto; i++ {
		if _, err := tx.Exec(migrations[i].sqlite); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if v < upto {
		if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", upto)); err != nil {
			return fmt.Errorf("migration %d: %w", upto, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration to version %d: %w", upto, err)
	}
	return nil
}

// migratePostgres applies the pending migrations in one transaction under
// an advisory lock, so workers starting together migrate once.
func (s *Store) migratePostgres(upto int) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT pg_advisory_xact_lock(7236071)`); err != nil {
		return err
	}
	if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	v, err := s.version(tx)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this rgnn (%d)", v, len(migrations))
	}
	if v >= upto {
		return nil
	}
	for i := v; i < upto; i++ {
		if _, err := tx.Exec(migrations[i].postgres); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if _, err := tx.Exec(`DELETE FROM schema_version`); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO schema_version (version) VALUES ($1)`, upto); err != nil {
		return err
	}
	return tx.Commit()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file, or the PostgreSQL URL without its password.
func (s *Store) Path() string { return s.path }

// Postgres reports whether the store is a PostgreSQL database.
func (s *Store) Postgres() bool { return s.pg }

// Dir is the folder the store's files sit in: the SQLite file's folder, or
// for PostgreSQL the artifact folder's parent.
func (s *Store) Dir() string {
	if s.pg {
		return filepath.Dir(s.art)
	}
	return filepath.Dir(s.path)
}

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
// exists (then it reports false: a result is written once). Every artifact
// it names must already be in the artifact folder. A stale failure of the
// same key is removed and its queue entry, if any, is marked done.
func (s *Store) Put(ctx context.Context, r Result) (bool, error) {
	return s.put(ctx, r, true)
}

// PutWithoutArtifacts is Put for a result imported without its artifact
// files (ReadResults): the artifacts it names need not be in the folder.
// A run that needs one recomputes it (the experiment runner checks the
// recomputed file against the recorded hash); Check lists them as absent.
func (s *Store) PutWithoutArtifacts(ctx context.Context, r Result) (bool, error) {
	return s.put(ctx, r, false)
}

func (s *Store) put(ctx context.Context, r Result, requireArtifacts bool) (bool, error) {
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
		if !validSHA(sha) {
			return false, fmt.Errorf("result %s: artifact %s: %q is not a sha256", r.Key, name, sha)
		}
		if _, err := os.Stat(s.ArtifactPath(sha)); err != nil && requireArtifacts {
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
	res, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO results
		(key, kind, experiment, params, metrics, artifacts, started_at, finished_at, seconds, checksum)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`),
		r.Key, r.Kind, r.Experiment, params, string(mb), string(ab),
		r.Started.UTC().Format(time.RFC3339Nano), r.Finished.UTC().Format(time.RFC3339Nano), r.Seconds, sum)
	if err != nil {
		return false, fmt.Errorf("store result %s: %w", r.Key, err)
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, s.rebind(`DELETE FROM failures WHERE key = ?`), r.Key); err != nil {
		return false, fmt.Errorf("store result %s: %w", r.Key, err)
	}
	if _, err := tx.ExecContext(ctx, s.rebind(`UPDATE queue SET state = 'done', worker = '', lease_until = 0, error = ''
		WHERE key = ?`), r.Key); err != nil {
		return false, fmt.Errorf("store result %s: %w", r.Key, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store result %s: %w", r.Key, err)
	}
	return n == 1, nil
}

// PutFailure records (or replaces) a failed run, and marks its queue
// entry, if any, failed with the error: it is claimed again only after
// [Store.RetryFailed].
func (s *Store) PutFailure(ctx context.Context, f Failure) error {
	params, err := Canonical(f.Params)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store failure %s: %w", f.Key, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, s.rebind(`INSERT INTO failures (key, kind, experiment, params, error, at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET kind = excluded.kind,
		experiment = excluded.experiment, params = excluded.params, error = excluded.error, at = excluded.at`),
		f.Key, f.Kind, f.Experiment, params, f.Error, f.At.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("store failure %s: %w", f.Key, err)
	}
	if _, err := tx.ExecContext(ctx, s.rebind(`UPDATE queue SET state = 'failed', worker = '', lease_until = 0, error = ?
		WHERE key = ? AND state <> 'done'`), f.Error, f.Key); err != nil {
		return fmt.Errorf("store failure %s: %w", f.Key, err)
	}
	if err := tx.Commit(); err != nil {
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
	rs, err := s.query(ctx, s.rebind(`WHERE key = ?`), key)
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
	clause, args := s.filterWhere(f)
	return s.query(ctx, s.rebind(clause+" ORDER BY kind, finished_at, key"), args...)
}

// filterWhere is f as a WHERE clause (empty when f is) over the columns
// kind, experiment and params, which the results and the queue share.
func (s *Store) filterWhere(f Filter) (string, []any) {
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
			if s.pg {
				where = append(where, pgNumberMatch)
				args = append(args, k, k, x, k, x)
				continue
			}
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
		if s.pg {
			where = append(where, pgTextMatch)
			args = append(args, k, k, k, v)
			continue
		}
		where = append(where, "CAST(json_extract(params, ?) AS TEXT) = ?")
		args = append(args, path, v)
	}
	clause := ""
	if len(where) > 0 {
		clause = "WHERE " + strings.Join(where, " AND ")
	}
	return clause, args
}

// The same filter in PostgreSQL's JSON functions: a JSON number matches a
// numeric value equal to it, a boolean matches true/false or 1/0, anything
// else matches its text.
const (
	pgNumberMatch = `(CASE jsonb_typeof(params::jsonb -> CAST(? AS TEXT))
		WHEN 'number' THEN CAST(params::jsonb ->> CAST(? AS TEXT) AS DOUBLE PRECISION) = CAST(? AS DOUBLE PRECISION)
		WHEN 'boolean' THEN (CASE WHEN params::jsonb ->> CAST(? AS TEXT) = 'true' THEN 1.0 ELSE 0.0 END) = CAST(? AS DOUBLE PRECISION)
		ELSE false END)`
	pgTextMatch = `(CASE jsonb_typeof(params::jsonb -> CAST(? AS TEXT))
		WHEN 'boolean' THEN (CASE WHEN params::jsonb ->> CAST(? AS TEXT) = 'true' THEN '1' ELSE '0' END)
		ELSE params::jsonb ->> CAST(? AS TEXT) END) = CAST(? AS TEXT)`
)

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
		res, err := tx.ExecContext(ctx, s.rebind(`DELETE FROM results WHERE key = ?`), k)
		if err != nil {
			return 0, err
		}
		m, _ := res.RowsAffected()
		n += int(m)
	}
	return n, tx.Commit()
}

// Check verifies every row's checksum and the content hash of every artifact
// in the folder (one absent is not a problem: CheckAll). It returns one line
// per problem found.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	problems, _, err := s.CheckAll(ctx)
	return problems, err
}

// CheckAll is Check that also counts the artifacts results name but the
// folder does not hold (results imported without them, PutWithoutArtifacts,
// or a folder cleared): not problems, since a run of the experiment runner
// that needs one recomputes it and checks it against the recorded hash. A
// file whose content does not match its hash is a problem.
func (s *Store) CheckAll(ctx context.Context) (problems []string, absent int, err error) {
	if !s.pg { // PostgreSQL has no integrity_check; the row checksums below cover the content
		var ic string
		if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ic); err != nil {
			return nil, 0, err
		}
		if ic != "ok" {
			problems = append(problems, "sqlite integrity_check: "+ic)
		}
	}
	rs, err := s.query(ctx, "")
	if err != nil {
		return append(problems, err.Error()), 0, nil
	}
	for _, r := range rs {
		for name, sha := range r.Artifacts {
			got, err := hashFile(s.ArtifactPath(sha))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				absent++
			case err != nil:
				problems = append(problems, fmt.Sprintf("result %s artifact %s: %v", r.Key, name, err))
			case got != sha:
				problems = append(problems, fmt.Sprintf("result %s artifact %s: content hash %s", r.Key, name, got))
			}
		}
	}
	return problems, absent, nil
}
