package store

// migrations are applied in order; PRAGMA user_version records how many ran.
// Append new migrations; never edit a released one.
var migrations = []string{
	// 1: results, failures.
	`CREATE TABLE results (
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
	CREATE INDEX results_kind ON results(kind);
	CREATE INDEX results_experiment ON results(experiment);
	CREATE TABLE failures (
		key        TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		experiment TEXT NOT NULL,
		params     TEXT NOT NULL,
		error      TEXT NOT NULL,
		at         TEXT NOT NULL
	);`,
}
