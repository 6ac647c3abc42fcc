package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Slurm is the `slurm:` block of an experiment file, in SEML's names:
//
//	seml:
//	  output_dir: logs            # where Slurm writes each task's output
//	slurm:
//	  experiments_per_job: 2      # runs each array task executes at once
//	  max_simultaneous_jobs: 4    # array tasks running at once (%N)
//	  array_size: 8               # array tasks (default: runs / experiments_per_job)
//	  sbatch_options:             # passed to sbatch as --NAME=VALUE
//	    mem: 8G
//	    cpus-per-task: 4
//	    time: 0-02:00
//	    partition: cpu
//
// Each array task runs `rgnn worker`, which claims runs from the store's
// queue until none is left, so tasks share the grid whatever its order.
// array_size is rgnn's own key (SEML submits one job per batch of runs).
type Slurm struct {
	ExperimentsPerJob   int               `yaml:"experiments_per_job" json:"experiments_per_job"`
	MaxSimultaneousJobs int               `yaml:"max_simultaneous_jobs" json:"max_simultaneous_jobs,omitempty"`
	ArraySize           int               `yaml:"array_size" json:"array_size,omitempty"`
	SbatchOptions       map[string]string `yaml:"sbatch_options" json:"sbatch_options,omitempty"`
	OutputDir           string            `yaml:"-" json:"output_dir"`
}

// ParseSlurm reads the slurm block (and seml's output_dir) of an experiment
// file. A file without one gives the defaults: one run per task, output in
// ./slurm-logs.
func ParseSlurm(src []byte) (Slurm, error) {
	var doc struct {
		Seml struct {
			OutputDir string `yaml:"output_dir"`
		} `yaml:"seml"`
		Slurm yaml.Node `yaml:"slurm"`
	}
	var s Slurm
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return s, fmt.Errorf("slurm block: %w", err)
	}
	if doc.Slurm.Kind != 0 {
		if doc.Slurm.Kind != yaml.MappingNode {
			return s, fmt.Errorf("line %d: slurm must be a mapping (experiments_per_job, sbatch_options, ...)", doc.Slurm.Line)
		}
		var raw struct {
			ExperimentsPerJob   int            `yaml:"experiments_per_job"`
			MaxSimultaneousJobs int            `yaml:"max_simultaneous_jobs"`
			ArraySize           int            `yaml:"array_size"`
			SbatchOptions       map[string]any `yaml:"sbatch_options"`
		}
		if err := doc.Slurm.Decode(&raw); err != nil {
			return s, fmt.Errorf("slurm block: %w", err)
		}
		s.ExperimentsPerJob, s.MaxSimultaneousJobs, s.ArraySize = raw.ExperimentsPerJob, raw.MaxSimultaneousJobs, raw.ArraySize
		if len(raw.SbatchOptions) > 0 {
			s.SbatchOptions = map[string]string{}
		}
		for k, v := range raw.SbatchOptions {
			switch k {
			case "array", "a", "output", "o", "error", "e":
				return s, fmt.Errorf("slurm.sbatch_options.%s: rgnn sets it (array_size, seml.output_dir)", k)
			}
			s.SbatchOptions[k] = fmt.Sprint(v)
		}
		if t, ok := s.SbatchOptions["time"]; ok {
			if _, err := SlurmDuration(t); err != nil {
				return s, fmt.Errorf("slurm.sbatch_options.time: %w", err)
			}
		}
	}
	if s.ExperimentsPerJob < 0 || s.MaxSimultaneousJobs < 0 || s.ArraySize < 0 {
		return s, fmt.Errorf("slurm: experiments_per_job, max_simultaneous_jobs and array_size must be ≥ 0")
	}
	s.ExperimentsPerJob = max(s.ExperimentsPerJob, 1)
	s.OutputDir = doc.Seml.OutputDir
	if s.OutputDir == "" {
		s.OutputDir = "slurm-logs"
	}
	return s, nil
}

// SlurmDuration parses Slurm's time formats: MM, MM:SS, HH:MM:SS, D-HH,
// D-HH:MM, D-HH:MM:SS.
func SlurmDuration(t string) (time.Duration, error) {
	days := 0
	rest := t
	if d, r, ok := strings.Cut(t, "-"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q: not a Slurm time (D-HH:MM:SS)", t)
		}
		days, rest = n, r
	}
	parts := strings.Split(rest, ":")
	var nums []int
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q: not a Slurm time (D-HH:MM:SS)", t)
		}
		nums = append(nums, n)
	}
	var h, m, sec int
	switch {
	case len(nums) > 3:
		return 0, fmt.Errorf("%q: not a Slurm time (D-HH:MM:SS)", t)
	case days > 0 || strings.Contains(t, "-"): // D-HH[:MM[:SS]]
		h = nums[0]
		if len(nums) > 1 {
			m = nums[1]
		}
		if len(nums) > 2 {
			sec = nums[2]
		}
	case len(nums) == 1:
		m = nums[0]
	case len(nums) == 2:
		m, sec = nums[0], nums[1]
	default:
		h, m, sec = nums[0], nums[1], nums[2]
	}
	return time.Duration(days)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(sec)*time.Second, nil
}

// SlurmJob is what the array script runs.
type SlurmJob struct {
	Name      string // job name (the experiment's)
	Runs      int    // runs left to do (sizes the array by default)
	Binary    string // absolute path of the rgnn binary the nodes run
	Store     string // the store every task claims from
	Artifacts string // the shared artifact folder
	DataDir   string // datasets ($RGNN_DATA_DIR on the nodes; empty: unset)
	Lease     time.Duration
	Extra     []string // more worker flags
}

// Tasks is the array size for j.
func (s Slurm) Tasks(j SlurmJob) int {
	if s.ArraySize > 0 {
		return s.ArraySize
	}
	return max(1, (j.Runs+s.ExperimentsPerJob-1)/s.ExperimentsPerJob)
}

// Script is the sbatch array script for j. Output paths are absolute (a
// relative one would resolve against the task's working directory).
func (s Slurm) Script(j SlurmJob) (string, error) {
	out, err := filepath.Abs(s.OutputDir)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	b.WriteString("#!/bin/bash\n")
	name := "rgnn-" + j.Name
	if v, ok := s.SbatchOptions["job-name"]; ok {
		name = v
	}
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", name)
	array := fmt.Sprintf("0-%d", s.Tasks(j)-1)
	if s.MaxSimultaneousJobs > 0 {
		array += fmt.Sprintf("%%%d", s.MaxSimultaneousJobs)
	}
	fmt.Fprintf(&b, "#SBATCH --array=%s\n", array)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(out, j.Name+"-%A_%a.out"))
	names := make([]string, 0, len(s.SbatchOptions))
	for k := range s.SbatchOptions {
		if k != "job-name" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if len(k) == 1 {
			fmt.Fprintf(&b, "#SBATCH -%s %s\n", k, s.SbatchOptions[k])
		} else {
			fmt.Fprintf(&b, "#SBATCH --%s=%s\n", k, s.SbatchOptions[k])
		}
	}
	b.WriteString("\n# Each task claims runs from the store's queue until none is left (rgnn worker);\n")
	b.WriteString("# a task that dies loses its leases and its runs go back to the queue.\n")
	b.WriteString("set -eu\n")
	if j.DataDir != "" {
		fmt.Fprintf(&b, "export RGNN_DATA_DIR=%s\n", shellQuote(j.DataDir))
	}
	args := []string{shellQuote(j.Binary), "worker", "--store", shellQuote(j.Store)}
	if j.Artifacts != "" {
		args = append(args, "--artifacts", shellQuote(j.Artifacts))
	}
	args = append(args, "--workers", strconv.Itoa(s.ExperimentsPerJob))
	if t, ok := s.SbatchOptions["time"]; ok {
		d, _ := SlurmDuration(t)
		// Stop before Slurm's limit: claims stop earlier still (by the
		// longest run seen), and what is in flight at this limit goes back
		// to the queue.
		margin := min(max(d/20, 30*time.Second), 5*time.Minute)
		if d > 2*margin {
			args = append(args, "--time-limit", (d - margin).String())
		}
	}
	if j.Lease > 0 {
		args = append(args, "--lease", j.Lease.String())
	}
	for _, a := range j.Extra {
		args = append(args, shellQuote(a))
	}
	fmt.Fprintf(&b, "exec %s\n", strings.Join(args, " "))
	return b.String(), nil
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SubmitSlurm writes script into the output folder and submits it with
// sbatch; it returns the job id.
func SubmitSlurm(ctx context.Context, s Slurm, name, script string) (string, error) {
	out, err := filepath.Abs(s.OutputDir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("slurm output folder: %w", err)
	}
	path := filepath.Join(out, fmt.Sprintf("%s-%s.sbatch", name, time.Now().UTC().Format("20060102T150405")))
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", fmt.Errorf("slurm script: %w", err)
	}
	cmd := exec.CommandContext(ctx, "sbatch", "--parsable", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	o, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %w: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(o)), ";")
	if id == "" {
		return "", fmt.Errorf("sbatch %s printed no job id", path)
	}
	return id, nil
}
