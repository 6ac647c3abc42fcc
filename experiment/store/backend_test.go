package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// PostgresEnv names the PostgreSQL server the tests use (a URL, as printed
// by scripts/pg-up). Without it the PostgreSQL tests skip, or fail under
// CI=true.
const PostgresEnv = "RGNN_TEST_POSTGRES"

var schemaSeq atomic.Int64

// backend is a way to open fresh stores of one kind in a test.
type backend struct {
	name string
	// target returns a new, empty store location (a file, or a URL of a
	// fresh schema); the same location opened twice is the same store.
	target func(t *testing.T) string
	opts   func(t *testing.T) Options
}

// backends returns SQLite and, when $RGNN_TEST_POSTGRES is set, PostgreSQL.
func backends(t *testing.T) []backend {
	bs := []backend{{name: "sqlite",
		target: func(t *testing.T) string { return filepath.Join(t.TempDir(), "results.db") },
		opts:   func(t *testing.T) Options { return Options{} }}}
	base := os.Getenv(PostgresEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI=true: the PostgreSQL store tests must run (scripts/pg-up starts a server)", PostgresEnv)
		}
		t.Logf("PostgreSQL store tests skipped: set %s (scripts/pg-up starts a server)", PostgresEnv)
		return bs
	}
	art := t.TempDir()
	return append(bs, backend{name: "postgres",
		target: func(t *testing.T) string { return freshSchema(t, base) },
		opts:   func(t *testing.T) Options { return Options{Artifacts: art} }})
}

// freshSchema creates a schema for this test in the database at base and
// returns base with its search_path set to it; the schema is dropped when
// the test ends.
func freshSchema(t *testing.T, base string) string {
	t.Helper()
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), schemaSeq.Add(1))
	if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
		db.Close()
		t.Fatalf("%s: %v", PostgresEnv, err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + name + " CASCADE")
		db.Close()
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + name
}

// forEach runs f once per backend as a subtest.
func forEach(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

func (b backend) open(t *testing.T, target string) *Store {
	t.Helper()
	s, err := OpenWith(target, b.opts(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func bg() context.Context { return context.Background() }
