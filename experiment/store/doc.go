// Package store keeps experiment results: an embedded SQLite database
// (modernc.org/sqlite, pure Go, WAL journal, one transaction per result)
// keyed by the canonical hash of a run's parameters, and a content-addressed
// artifact folder beside it (trained weights, perturbed graphs, smoothing
// votes), so later runs reuse what earlier ones produced.
//
// Crash safety: an artifact is written to a temporary file in the artifact
// folder, synced and renamed to its sha256 name before the result row that
// names it is committed, and every row carries a checksum of its content.
// Killing the process at any moment therefore loses at most the runs in
// flight: either a row is committed (and its artifacts are complete) or it
// does not exist; at worst an orphaned temporary or unreferenced artifact
// remains, which [Store.Check] reports and never reads as a result.
//
// The schema lives in schema.go as an ordered list of migrations; the
// database records the number applied (PRAGMA user_version).
package store
