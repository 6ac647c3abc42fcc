package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/benchmark"
	"github.com/rgnn/rgnn/task"
)

// scaleFlags are the options of `rgnn bench --scale`.
type scaleFlags struct {
	on     bool
	sizes  string
	stages string
	stage  string // hidden: run one stage (JSON ScaleJob) and print its row
	spec   benchmark.ScaleSpec
}

const scaleHelp = `
Scale (--scale): for each of --sizes, a graph of the --scale-preset's shape
(products: ogbn-products' mean degree, features and classes; arxiv: ogbn-arXiv's)
scaled to that many nodes is generated into --scale-dir (kept, so reruns reuse
it), then each stage runs in a child process of its own and prints one row:
generate (when the file is new), convert (first load: parse, write the binary
cache; when the cache is new), load (from the cache), ppr (top-k PPR of every
node, k = 64, eps = 1e-4, α = 0.15), and training epochs (--scale-epochs) of
gcn (full batch), sm_gdc (Soft Median GDC, full batch, up to 200,000 nodes),
pprgo and sm_pprgo (PPRGo and Soft Median PPRGo in mini-batches of
--scale-batch-size training nodes, on the ppr stage's matrix), prbcd (global
PR-BCD epochs against the GCN, up to 200,000 nodes), prbcd_sm_gdc (adaptive
PR-BCD epochs against a Soft Median GDC trained for --scale-epochs, through its
top-k push PPR, up to 200,000 nodes) and local_prbcd (a PPRGo
trained for --scale-epochs, then local PR-BCD on 5 test targets of degree ≥ 2,
budget round(0.5·degree), 500 + 100 epochs, block 10,000, through the local
PPRGo engine; seconds per target). A row gives
seconds and CPU seconds (for training stages per epoch, over the epochs after
the first, which also pays one-off costs), the peak RSS of the
child process (it includes loading the graph) and, for training stages, the test
accuracy after the epochs on up to 10,000 test nodes next to chance (the largest
class's share). The header names the command line, the machine and the load
average; long stages show a progress bar with an ETA on stderr.`

// addScaleFlags declares the scale flags on the bench command.
func addScaleFlags(c *cobra.Command, s *scaleFlags) {
	s.spec = benchmark.ScaleSpec{}.Defaults()
	f := c.Flags()
	f.BoolVar(&s.on, "scale", false, "run the scale benchmark (graphs of --sizes nodes) instead of the epoch table")
	f.StringVar(&s.sizes, "sizes", "10000,100000,1000000,2449029", "--scale: comma-separated node counts")
	f.StringVar(&s.spec.Preset, "scale-preset", s.spec.Preset, "--scale: shape of the generated graphs (products or arxiv)")
	f.StringVar(&s.spec.Dir, "scale-dir", s.spec.Dir, "--scale: directory keeping the generated graphs, caches and PPR matrices")
	f.IntVar(&s.spec.Epochs, "scale-epochs", s.spec.Epochs, "--scale: training epochs per training stage (timed: those after the first)")
	f.IntVar(&s.spec.BatchSize, "scale-batch-size", s.spec.BatchSize, "--scale: mini-batch of the PPRGo stages (training nodes)")
	f.Float64Var(&s.spec.EngineEps, "scale-engine-eps", 0, "--scale: push error of the prbcd_sm_gdc stage's attack forward passes (0: the model's 1e-4; as rgnn attack --engine-ppr-eps)")
	f.StringVar(&s.stages, "scale-stages", "", "--scale: comma-separated stages to run ("+strings.Join(benchmark.ScaleStages, ", ")+
		"; default all), plus those whose files they need and --scale-dir lacks")
	f.StringVar(&s.stage, "scale-stage", "", "run one stage of --scale (internal)")
	_ = f.MarkHidden("scale-stage")
}

// runScale runs `rgnn bench --scale` (or, with --scale-stage, one stage).
func runScale(c *cobra.Command, s *scaleFlags, seed int, quiet bool) error {
	ctx, stop := interruptible(c)
	defer stop()
	if s.stage != "" {
		var job benchmark.ScaleJob
		if err := json.Unmarshal([]byte(s.stage), &job); err != nil {
			return usagef("--scale-stage: %v", err)
		}
		row, err := benchmark.RunScaleJob(ctx, job, task.Models(), benchmark.ScaleHooks{Progress: newProgress(quiet)})
		if !quiet {
			fmt.Fprintln(progressWriter())
		}
		if err != nil {
			return err
		}
		return json.NewEncoder(c.OutOrStdout()).Encode(row)
	}
	sizes, err := benchmark.ParseSizes(s.sizes)
	if err != nil {
		return usageError{err: err}
	}
	spec := s.spec
	spec.Sizes, spec.Seed = sizes, uint64(seed)
	if s.stages != "" {
		for _, st := range strings.Split(s.stages, ",") {
			spec.Stages = append(spec.Stages, strings.TrimSpace(st))
		}
	}
	if err := spec.Validate(); err != nil {
		return scaleParamErr(err)
	}
	rep := benchmark.NewScaleReport(spec, strings.Join(os.Args, " "))
	if !quiet {
		rep.WriteHeader(progressWriter())
	}
	rows, err := spec.Run(ctx, childStage(quiet), func(row benchmark.ScaleRow) {
		if !quiet {
			// The whole row, so that an interrupted run still shows it.
			b, _ := json.Marshal(row)
			fmt.Fprintf(progressWriter(), "row %s\n", b)
		}
	})
	rep.Rows = rows
	rep.Finish()
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	return rep.WriteTable(c.OutOrStdout())
}

// childStage runs each stage as `rgnn bench --scale-stage JOB` in a child
// process (this executable), so that each row's peak RSS is that stage's;
// the child's progress goes to our stderr, its row comes on its stdout.
func childStage(quiet bool) benchmark.StageRunner {
	return func(ctx context.Context, job benchmark.ScaleJob) (benchmark.ScaleRow, error) {
		var row benchmark.ScaleRow
		exe, err := os.Executable()
		if err != nil {
			return row, err
		}
		b, err := json.Marshal(job)
		if err != nil {
			return row, err
		}
		args := []string{"bench", "--scale-stage", string(b)}
		if quiet {
			args = append(args, "--quiet")
		}
		cmd := exec.CommandContext(ctx, exe, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			return row, fmt.Errorf("child process: %w", err)
		}
		if err := json.Unmarshal(out.Bytes(), &row); err != nil {
			return row, fmt.Errorf("child process output %q: %w", out.String(), err)
		}
		return row, nil
	}
}

// scaleParamErr is a usage error naming the --scale flag of the ScaleSpec
// field an error starts with ("epochs 0: must be ≥ 1" → "--scale-epochs 0:
// must be ≥ 1").
func scaleParamErr(err error) error {
	flags := map[string]string{"preset": "scale-preset", "dir": "scale-dir", "epochs": "scale-epochs",
		"batch": "scale-batch-size", "stages": "scale-stages", "sizes": "sizes", "engine_eps": "scale-engine-eps"}
	msg := err.Error()
	i := strings.IndexAny(msg+" ", " :")
	if f, ok := flags[msg[:i]]; ok {
		rest := msg[i:]
		if msg[:i] == "batch" {
			rest = strings.TrimPrefix(rest, " size")
		}
		return usagef("--%s%s", f, rest)
	}
	return usagef("%s", msg)
}
