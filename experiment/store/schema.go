package store

// migration is one step of the schema, in each backend's dialect.
type migration struct{ sqlite, postgres string }

// migrations are applied in order; the database records how many ran
// (SQLite: PRAGMA user_version; PostgreSQL: the schema_version table).
// Append new migrations; never edit a released one (beyond IF NOT EXISTS,
// which changes no schema). Every migration runs in one transaction that
// holds the database's write lock (SQLite) or an advisory lock
// (PostgreSQL), so concurrent first opens of a store apply it once.
var migrations = []migration{
	// 1: results, failures.
	{sqlite: `CREATE TABLE IF NOT EXISTS results (
		key         TEXT PRIMARY KEY,      -- canonical hash of kind + params
		kind        TEXT NOT NULL,         -- task kind: train, eval, certify, attack, ...
		experiment  TEXT NOT NULL,         -- name of the experiment file that produced it
		params      TEXT NOT NULL,         -- canonical JSON of the parameters
		metrics     TEXT NOT NULL,         -- JSON object of measured values
		artifacts   TEXT NOT NULL,         -- JSON object name -> sha256 of the artifact file
		started_at  TEXT NOT NULL,         -- RFC 3339, UTC
		finished_at TEXT NOT NULL,
		seconds     REAL NOT NULL,
		checksum    TEXT NOT NULL          -- sha256 over key, kind, params, metrics, artifacts
	);
	CREATE INDEX IF NOT EXISTS results_kind ON results(kind);
	CREATE INDEX IF NOT EXISTS results_experiment ON results(experiment);
	CREATE TABLE IF NOT EXISTS failures (
		key        TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		experiment TEXT NOT NULL,
		params     TEXT NOT NULL,
		error      TEXT NOT NULL,
		at         TEXT NOT NULL
	);`,
		// The same tables; JSON stays TEXT so checksums read the bytes written.
		postgres: `CREATE TABLE IF NOT EXISTS results (
		key         TEXT PRIMARY KEY,
		kind        TEXT NOT NULL,
		experiment  TEXT NOT NULL,
		params      TEXT NOT NULL,
		metrics     TEXT NOT NULL,
		artifacts   TEXT NOT NULL,
		started_at  TEXT NOT NULL,
		finished_at TEXT NOT NULL,
		seconds     DOUBLE PRECISION NOT NULL,
		checksum    TEXT NOT NULL
	);
	CREATE INDEX IF NOT EXISTS results_kind ON results(kind);
	CREATE INDEX IF NOT EXISTS results_experiment ON results(experiment);
	CREATE TABLE IF NOT EXISTS failures (
		key        TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		experiment TEXT NOT NULL,
		params     TEXT NOT NULL,
		error      TEXT NOT NULL,
		at         TEXT NOT NULL
	);`},
	// 2: settings (the artifact folder of a shared store) and the run queue
	// with its leases.
	{sqlite: `CREATE TABLE IF NOT EXISTS settings (
		name  TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);
	CREATE TABLE IF NOT EXISTS queue (
		key         TEXT PRIMARY KEY,      -- result key of the run
		kind        TEXT NOT NULL,
		experiment  TEXT NOT NULL,
		params      TEXT NOT NULL,         -- canonical JSON
		priority    INTEGER NOT NULL,      -- lower is claimed first (training before its users)
		seq         INTEGER NOT NULL,      -- position in its grid
		enqueued_at TEXT NOT NULL,
		state       TEXT NOT NULL,         -- queued, claimed, done, failed
		worker      TEXT NOT NULL DEFAULT '',
		lease_until INTEGER NOT NULL DEFAULT 0, -- unix milliseconds (database clock)
		attempts    INTEGER NOT NULL DEFAULT 0,
		error       TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX IF NOT EXISTS queue_claim ON queue(state, priority, enqueued_at, seq);`,
		postgres: `CREATE TABLE IF NOT EXISTS settings (
		name  TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);
	CREATE TABLE IF NOT EXISTS queue (
		key         TEXT PRIMARY KEY,
		kind        TEXT NOT NULL,
		experiment  TEXT NOT NULL,
		params      TEXT NOT NULL,
		priority    INTEGER NOT NULL,
		seq         BIGINT NOT NULL,
		enqueued_at TEXT NOT NULL,
		state       TEXT NOT NULL,
		worker      TEXT NOT NULL DEFAULT '',
		lease_until BIGINT NOT NULL DEFAULT 0,
		attempts    INTEGER NOT NULL DEFAULT 0,
		error       TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX IF NOT EXISTS queue_claim ON queue(state, priority, enqueued_at, seq);`},
}
