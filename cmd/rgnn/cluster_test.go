package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/rgnn/rgnn/internal/fixture"
)

const clusterGrid = `name: cl
fixed: {dataset: citeseer, model: gcn, max_epochs: 2}
grid: {seed: [0, 1], kind: [train, eval]}
seml: {output_dir: logs}
slurm:
  experiments_per_job: 2
  max_simultaneous_jobs: 3
  sbatch_options: {mem: 2G, cpus-per-task: 2, time: "0-01:00:00", partition: cpu}
`

// TestRunSlurmStatusAndTransfer: --slurm --dry-run prints the array
// script; --status shows the grid; run, export, import and compare move
// results between stores without duplicates.
func TestRunSlurmStatusAndTransfer(t *testing.T) {
	dir := fixture.DataDir(t)
	tmp := t.TempDir()
	exp := filepath.Join(tmp, "cl.yaml")
	os.WriteFile(exp, []byte(clusterGrid), 0o644)
	a, b := filepath.Join(tmp, "a.db"), filepath.Join(tmp, "b", "b.db")
	wd, _ := os.Getwd()
	out, err := runRoot(t, "run", exp, "--store", a, "--data-dir", dir, "--slurm", "--dry-run")
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{"#SBATCH --array=0-1%3\n", "#SBATCH --mem=2G\n", "#SBATCH --cpus-per-task=2\n",
		"#SBATCH --partition=cpu\n", "#SBATCH --output=" + filepath.Join(wd, "logs") + "/cl-%A_%a.out\n",
		" worker --store " + a, "--workers 2 --time-limit 57m0s", "export RGNN_DATA_DIR=" + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("script lacks %q:\n%s", want, out)
		}
	}
	out, err = runRoot(t, "run", exp, "--store", a, "--status")
	if err != nil || !strings.Contains(out, "0 done, 4 not queued") {
		t.Fatalf("status before: %v\n%s", err, out)
	}
	if out, err := runRoot(t, "run", exp, "--store", a, "--data-dir", dir, "--status-every", "0"); err != nil {
		t.Fatal(err, out)
	}
	out, err = runRoot(t, "run", "--status", "--store", a)
	if err != nil || !strings.Contains(out, ": 4 done\n") {
		t.Fatalf("status after: %v\n%s", err, out)
	}
	for range 2 {
		if out, err := runRoot(t, "results", "export", b, "--store", a, "--kind", "train"); err != nil {
			t.Fatal(err, out)
		}
	}
	out, err = runRoot(t, "results", "import", a, "--store", b)
	if err != nil || !strings.Contains(out, "2 results copied, 2 already there") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err = runRoot(t, "results", "compare", a, "--store", b)
	if err != nil || !strings.Contains(out, "the same 4 results") {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	if out, err := runRoot(t, "results", "--check", "--store", b); err != nil {
		t.Fatal(err, out)
	}
}

// TestPostgresStoreFromTheCLI: with $RGNN_TEST_POSTGRES (scripts/pg-up),
// run, results, --check, --status, report and compare work on a PostgreSQL
// store, whose artifact folder is named in it on first use.
func TestPostgresStoreFromTheCLI(t *testing.T) {
	base := os.Getenv("RGNN_TEST_POSTGRES")
	if base == "" {
		t.Skip("set RGNN_TEST_POSTGRES (scripts/pg-up starts a server); the store package's tests require it under CI=true")
	}
	dir := fixture.DataDir(t)
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("cli_%d", os.Getpid())
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP SCHEMA " + schema + " CASCADE"); db.Close() })
	url := base + "&search_path=" + schema
	if !strings.Contains(base, "?") {
		url = base + "?search_path=" + schema
	}
	tmp := t.TempDir()
	exp := filepath.Join(tmp, "cl.yaml")
	os.WriteFile(exp, []byte(clusterGrid), 0o644)
	if out, err := runRoot(t, "run", exp, "--store", url, "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "--artifacts") {
		t.Fatalf("a PostgreSQL store without an artifact folder: %v\n%s", err, out)
	}
	art := filepath.Join(tmp, "shared", "artifacts")
	if out, err := runRoot(t, "run", exp, "--store", url, "--artifacts", art, "--data-dir", dir, "--status-every", "0"); err != nil {
		t.Fatal(err, out)
	}
	for _, args := range [][]string{{"results", "--check"}, {"run", "--status"}, {"results", "--where", "seed=1"},
		{"report", "--out", filepath.Join(tmp, "report")}} {
		out, err := runRoot(t, append(args, "--store", url)...) // the store names its artifact folder now
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if args[0] == "run" && !strings.Contains(out, ": 4 done\n") {
			t.Fatalf("status: %s", out)
		}
	}
	local := filepath.Join(tmp, "local.db")
	if out, err := runRoot(t, "run", exp, "--store", local, "--data-dir", dir, "--status-every", "0"); err != nil {
		t.Fatal(err, out)
	}
	if out, err := runRoot(t, "results", "compare", local, "--store", url); err != nil || !strings.Contains(out, "the same 4 results") {
		t.Fatalf("compare: %v\n%s", err, out)
	}
}
