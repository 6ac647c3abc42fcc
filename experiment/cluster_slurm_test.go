package experiment

import (
	"strings"
	"testing"
	"time"
)

func TestSlurmDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"30": 30 * time.Minute, "10:30": 10*time.Minute + 30*time.Second, "2:00:00": 2 * time.Hour,
		"1-12": 36 * time.Hour, "0-00:10": 10 * time.Minute, "1-00:00:05": 24*time.Hour + 5*time.Second,
	} {
		if got, err := SlurmDuration(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "1:2:3:4", "-5", "1-x"} {
		if _, err := SlurmDuration(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseSlurm(t *testing.T) {
	s, err := ParseSlurm([]byte("fixed: {kind: train}\n"))
	if err != nil || s.ExperimentsPerJob != 1 || s.OutputDir != "slurm-logs" {
		t.Fatal(s, err)
	}
	if s.Tasks(SlurmJob{Runs: 7}) != 7 {
		t.Fatal("one task per run by default")
	}
	s, err = ParseSlurm([]byte("slurm: {experiments_per_job: 3, sbatch_options: {time: '1:00:00', t: 2}}\n"))
	if err != nil || s.Tasks(SlurmJob{Runs: 7}) != 3 {
		t.Fatal(s, err)
	}
	sc, _ := s.Script(SlurmJob{Name: "x", Binary: "/bin/rgnn", Store: "postgres://u:p@h/db?sslmode=disable"})
	if !strings.Contains(sc, "#SBATCH -t 2\n") || !strings.Contains(sc, "'postgres://u:p@h/db?sslmode=disable'") ||
		!strings.Contains(sc, "--time-limit 57m0s") {
		t.Fatal(sc)
	}
	for _, bad := range []string{"slurm: [1]\n", "slurm: {sbatch_options: {output: x}}\n",
		"slurm: {sbatch_options: {time: soon}}\n", "slurm: {experiments_per_job: -1}\n"} {
		if _, err := ParseSlurm([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
