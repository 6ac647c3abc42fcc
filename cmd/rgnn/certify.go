package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/certify/certplot"
	"github.com/rgnn/rgnn/internal/outfile"
	"github.com/rgnn/rgnn/task"
)

// certifyReport is the JSON output of `rgnn certify`.
type certifyReport struct {
	*task.CertifyResult
	Plots []string `json:"plots,omitempty"`
}

// certifyIO are the certify command's inputs and outputs besides the spec.
type certifyIO struct {
	Votes       string `param:"votes" help:"votes file (.npz with votes, pre_votes and optionally the sampling parameters, e.g. from np.savez): certify these instead of sampling"`
	Weights     string `param:"weights" help:"weights of --model to sample votes from"`
	Train       bool   `param:"train" help:"train --model first (reference protocol) instead of --weights"`
	Workers     int    `param:"workers" help:"parallel samplers (default GOMAXPROCS; the votes do not depend on it)"`
	SaveVotes   string `param:"save_votes" help:"save the sampled votes here (.npz)"`
	DegreeEdges string `param:"degree_edges" help:"fixed degree bin lower edges instead of equal-frequency bins, e.g. 1,2,3,5,10"`
	Plot        string `param:"plot" help:"write certification-ratio and degree plots (PNG and SVG) to this directory"`
	Checkpoints string `param:"checkpoints" help:"folder for checkpoints of the sampled votes (every 250 samples or 10 s; the same command resumes from them; default rgnn/certify in the user cache dir, none: no checkpoints)"`
}

func newCertifyCmd() *cobra.Command {
	spec := task.Certify{}.Defaults()
	var io certifyIO
	c := &cobra.Command{
		Use:   "certify",
		Short: "Randomized-smoothing certificates for edge additions and deletions",
		Long: `Compute sparse randomized-smoothing certificates (Bojchevski et al. 2020) of a
smoothed classifier from its votes: for every test node, whether its smoothed
prediction is correct and provably robust to any r_a edge additions and r_d
deletions, over the grid of radii. Reports the accumulated certifications
(sum of the certification ratio R(r_a, r_d) over the grid minus R(0, 0)), the
smoothed accuracy, the average certifiable radii, the ratio grid and the same
per node-degree bin (degrees of the clean graph).

With --votes the votes come from a file holding 'votes' and 'pre_votes' (integer
[nodes, classes]) as in the reference's smoothing_votes/*.npz, or as np.savez
writes them from any model, with the sampling parameters under sparse
smoothing's names (pf_plus_adj, pf_minus_adj, pf_plus_att, pf_minus_att,
n_samples, n_samples_pre, seed; any may be missing). Files written by rgnn
record them all. Parameters the file records need not be given; given ones
must agree with it (--p-add, --p-del, --p-add-att, --p-del-att, --samples,
--pre-samples, --seed), else the votes are refused. Labels and the test split
(the file's split, or 20 train + 20 val per class seeded by --split-seed) come
from --dataset.

Without --votes the votes are sampled: --model with --weights (or --train)
runs on --samples perturbed graphs (plus --pre-samples for the top classes),
each with its full preprocessing (--model external --external-cmd CMD: your
own model's process predicts them, --external-batch graphs per request, with
the same samples and seeds; docs/BRIDGE.md); GDC models diffuse every sample with the
push approximation of PPR (--sample-ppr-eps) since every sample needs a fresh
diffusion. --save-votes keeps them so the certificate can be recomputed. The
same certificate is an experiment run of kind certify with the same
parameters (rgnn run), bit for bit.`,
		Example: `  rgnn certify --votes cora_ml_Vanilla_GCN_s0_del.npz --p-add 0 --p-del 0.4 --dataset cora_ml --split-seed 0
  rgnn certify --votes V.npz --p-add 0.001 --p-del 0.4 --split-seed 1 --json --plot figs/
  rgnn certify --dataset cora_ml --model sm_gdc --temperature 0.5 --weights W.npz --binary-attr \
      --p-add 0.001 --p-del 0.4 --samples 10000 --save-votes votes.npz --json
  rgnn certify --dataset cora_ml --binary-attr --model external --external-cmd "python3 my_model.py" \
      --p-del 0.4 --samples 10000 --save-votes votes.npz`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runCertify(c, &spec, &io) },
	}
	bind(c, &spec)
	bind(c, &io)
	addJSONFlag(c)
	return c
}

func runCertify(c *cobra.Command, spec *task.Certify, io *certifyIO) error {
	if io.SaveVotes == outfile.Stdout && wantJSON(c) {
		return usageError{err: fmt.Errorf("--save-votes -: stdout carries the --json report; give a file"), field: "--save-votes"}
	}
	edges, err := task.ParseDegreeEdges(io.DegreeEdges)
	if err != nil {
		return specErr(io, err)
	}
	if io.Votes == "" {
		if spec.Model.External() {
			if io.Weights != "" {
				return usagef("--weights: model %s keeps its weights in its own process", spec.Model.Model)
			}
		} else if (io.Weights == "") == !io.Train {
			return usagef("give --votes, or --model with exactly one of --weights and --train")
		}
		if err := spec.Validate(); err != nil {
			return specErr(spec, err)
		}
		if err := checkGiven(c, spec, spec.Model, spec.Model.Model); err != nil {
			return err
		}
		if err := task.ValidWorkers(io.Workers); err != nil {
			return specErr(io, err)
		}
	}
	p, err := loadProblem(c, spec, spec.Data, spec.Train.EffectiveSplitSeed())
	if err != nil {
		return err
	}
	var res *task.CertifyResult
	if io.Votes != "" {
		if io.Weights != "" || io.Train {
			return usagef("give --votes, or --weights/--train to sample votes, not both")
		}
		vf, err := certify.LoadVotes(io.Votes)
		if err != nil {
			return err
		}
		given := func(param string) bool { return c.Flags().Changed(strings.TrimPrefix(flagOf(spec, param), "--")) }
		if err := spec.ParamsFromVotes(vf, given); err != nil {
			return specErr(spec, err)
		}
		if res, err = spec.FromVotes(p, vf, io.Votes, edges); err != nil {
			return specErr(spec, err)
		}
	} else {
		if res, err = sampleCertificate(c, spec, io, p, edges); err != nil {
			return err
		}
	}
	rep := certifyReport{CertifyResult: res}
	if io.Plot != "" {
		base := strings.TrimSuffix(filepath.Base(res.Votes), filepath.Ext(res.Votes))
		if base == "(sampled)" {
			base = "sampled"
		}
		what, plus, minus := "edges", res.PAdd, res.PDel
		if res.PAddAtt != 0 || res.PDelAtt != 0 {
			what, plus, minus = "attributes", res.PAddAtt, res.PDelAtt
		}
		title := fmt.Sprintf("%s (%s p+ = %g, p- = %g)", base, what, plus, minus)
		if rep.Plots, err = certplot.SaveAll(res.Stats, res.Bins, io.Plot, base, title); err != nil {
			return err
		}
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	w := c.OutOrStdout()
	if io.SaveVotes == outfile.Stdout {
		w = c.ErrOrStderr() // stdout carries the votes
	}
	rep.WriteText(w, rep.Plots)
	return nil
}

// sampleCertificate samples the votes of --model (its --weights, or trained
// here with --train) and certifies them.
func sampleCertificate(c *cobra.Command, spec *task.Certify, io *certifyIO, p *task.Problem, edges []int) (*task.CertifyResult, error) {
	ctx, stop := interruptible(c)
	defer stop()
	if io.Train {
		fmt.Fprintf(progressWriter(), "training %s (seed %d)...\n", spec.Model.Model, spec.Seed)
	}
	t, err := spec.Train.LoadOrTrain(ctx, p, io.Weights, task.Hooks{})
	if err != nil {
		return nil, specErr(spec, err)
	}
	defer t.Close()
	cp, err := newVoteCheckpoint(io.Checkpoints, spec, io.Weights, p)
	if err != nil {
		return nil, err
	}
	h := cp.hooks(task.Hooks{Progress: newProgress(false)}, p, spec.Samples)
	vf, err := spec.Sample(ctx, p, t, io.Workers, h)
	clearLine()
	cp.finish(err)
	if err != nil {
		return nil, specErr(spec, err)
	}
	source := "(sampled)"
	if io.SaveVotes != "" {
		if err := vf.Save(io.SaveVotes); err != nil {
			return nil, err
		}
		fmt.Fprintf(progressWriter(), "votes saved to %s\n", io.SaveVotes)
		source = io.SaveVotes
	}
	res, err := spec.FromVotes(p, vf, source, edges)
	return res, specErr(spec, err)
}
