package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/certify/certplot"
)

// certifyReport is the JSON output of `rgnn certify`.
type certifyReport struct {
	Dataset       string  `json:"dataset"`
	Votes         string  `json:"votes"`
	SplitSeed     int     `json:"split_seed"`
	PAdd          float64 `json:"p_add"`
	PDel          float64 `json:"p_del"`
	Alpha         float64 `json:"alpha"`
	NumSamples    int     `json:"n_samples"`
	NumPreSamples int     `json:"n_samples_pre,omitempty"`
	NTest         int     `json:"n_test"`
	NCorrect      int     `json:"n_correct"`
	// GridShape is [nodes, max_ra+2, max_rd+2] like the reference's grids.
	GridShape                 [3]int  `json:"grid_shape"`
	AccumulatedCertifications float64 `json:"accumulated_certifications"`
	SmoothedAccuracy          float64 `json:"smoothed_accuracy"`
	AvgRadiusAdd              float64 `json:"avg_radius_add"`
	AvgRadiusDel              float64 `json:"avg_radius_del"`
	AvgRadiusAddCorrect       float64 `json:"avg_radius_add_correct"`
	AvgRadiusDelCorrect       float64 `json:"avg_radius_del_correct"`
	// CertificationRatio[ra][rd] = R(ra, rd) over the test nodes.
	CertificationRatio [][]float64       `json:"certification_ratio"`
	DegreeBinning      string            `json:"degree_binning"`
	DegreeBins         []degreeBinReport `json:"degree_bins"`
	Plots              []string          `json:"plots,omitempty"`
}

type degreeBinReport struct {
	MinDegree                 int     `json:"min_degree"`
	MaxDegree                 int     `json:"max_degree"`
	NTest                     int     `json:"n_test"`
	SmoothedAccuracy          float64 `json:"smoothed_accuracy"`
	AccumulatedCertifications float64 `json:"accumulated_certifications"`
	AvgRadiusAdd              float64 `json:"avg_radius_add"`
	AvgRadiusDel              float64 `json:"avg_radius_del"`
}

func newCertifyCmd() *cobra.Command {
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

The votes file holds 'votes' and 'pre_votes' (int64 [nodes, classes]) as in
the reference's smoothing_votes/*.npz; files written by rgnn also record the
flip probabilities, which then need not be given. Labels and the test split
(20 train + 20 val per class, seeded by --split-seed) come from --dataset.

Without --votes the votes are sampled: --model with --weights (or --train)
runs on --samples perturbed graphs (plus --pre-samples for the top classes),
each with its full preprocessing; GDC models use the push approximation of
PPR (--ppr-eps, default 3e-4 here) since every sample needs a fresh diffusion.
--save-votes keeps them so the certificate can be recomputed.`,
		Example: `  rgnn certify --votes cora_ml_Vanilla_GCN_s0_del.npz --p-add 0 --p-del 0.4 --dataset cora_ml --split-seed 0
  rgnn certify --votes V.npz --p-add 0.001 --p-del 0.4 --split-seed 1 --json --plot figs/
  rgnn certify --dataset cora_ml --model sm_gdc --temperature 0.5 --weights W.npz --binary-attr \
      --p-add 0.001 --p-del 0.4 --samples 10000 --save-votes votes.npz --json`,
		Args: cobra.NoArgs,
		RunE: runCertify,
	}
	addProblemFlags(c)
	c.Flags().String("votes", "", "votes file (.npz with votes, pre_votes)")
	c.Flags().Float64("p-add", -1, "p₊, probability of adding an absent edge (default: from the votes file)")
	c.Flags().Float64("p-del", -1, "p₋, probability of deleting an edge (default: from the votes file)")
	c.Flags().Float64("alpha", 0.05, "significance level of the certificate")
	c.Flags().Int("degree-bins", 5, "number of equal-frequency degree bins")
	c.Flags().String("degree-edges", "", "fixed degree bin lower edges instead, e.g. 1,2,3,5,10")
	c.Flags().String("plot", "", "write certification-ratio and degree plots (PNG and SVG) to this directory")
	// The model-driven path: sample the votes.
	addModelFlags(c)
	c.Flags().String("weights", "", "weights of --model to sample votes from")
	c.Flags().Bool("train", false, "train --model first (reference protocol) instead of --weights")
	c.Flags().Int("samples", 10000, "n₁, samples for the votes")
	c.Flags().Int("pre-samples", 100, "n₀, samples for the pre-votes (top and runner-up class)")
	c.Flags().Int("seed", 0, "seed of the sampling (and of --train)")
	c.Flags().Int("workers", 0, "parallel samplers (default GOMAXPROCS)")
	c.Flags().String("save-votes", "", "save the sampled votes here (.npz)")
	addJSONFlag(c)
	return c
}

func runCertify(c *cobra.Command, _ []string) error {
	vpath, _ := c.Flags().GetString("votes")
	alpha, _ := c.Flags().GetFloat64("alpha")
	if !(alpha > 0 && alpha < 0.5) {
		return usagef("--alpha %v must lie in (0, 0.5)", alpha)
	}
	nbins, _ := c.Flags().GetInt("degree-bins")
	edgesFlag, _ := c.Flags().GetString("degree-edges")
	fixedEdges, err := parseEdges(edgesFlag)
	if err != nil {
		return err
	}
	if fixedEdges == nil && nbins < 1 {
		return usagef("--degree-bins must be at least 1")
	}

	seed, _ := c.Flags().GetInt("seed")
	p, err := loadProblem(c, seed)
	if err != nil {
		return err
	}
	var vf *certify.VoteFile
	if vpath != "" {
		if vf, err = certify.LoadVotes(vpath); err != nil {
			return err
		}
	} else {
		if vf, err = sampleVotes(c, p, seed); err != nil {
			return err
		}
		vpath, _ = c.Flags().GetString("save-votes")
		if vpath == "" {
			vpath = "(sampled)"
		}
	}
	pAdd, pDel, err := flipProbs(c, vf)
	if err != nil {
		return err
	}
	g := p.Graph
	if vf.Votes.Nodes != g.NumNodes() || vf.Votes.Classes != g.NumClasses {
		return fmt.Errorf("%s: votes for %d nodes × %d classes, but %s has %d nodes × %d classes",
			vpath, vf.Votes.Nodes, vf.Votes.Classes, g.Name, g.NumNodes(), g.NumClasses)
	}
	cert, err := certify.Compute(vf.Votes, vf.PreVotes, certify.Params{PPlus: pAdd, PMinus: pDel, Alpha: alpha,
		NumSamples: vf.NumSamples}, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", vpath, err)
	}
	m, err := cert.Metrics(g.Labels, p.Test)
	if err != nil {
		return err
	}
	degrees := make([]int, g.NumNodes())
	for i := range degrees {
		lo, hi := g.Adj.RowRange(i)
		degrees[i] = hi - lo
	}
	edges, binning := fixedEdges, "fixed lower edges "+edgesFlag
	if edges == nil {
		edges = certify.QuantileDegreeEdges(degrees, p.Test, nbins)
		binning = fmt.Sprintf("equal frequency, %d bins requested (ties merge bins)", nbins)
	}
	bins, err := cert.DegreeTable(g.Labels, p.Test, degrees, edges)
	if err != nil {
		return err
	}
	nra, nrd := cert.GridShape()
	rep := certifyReport{Dataset: g.Name, Votes: vpath, SplitSeed: p.SplitSeed, PAdd: pAdd, PDel: pDel, Alpha: alpha,
		NumSamples: cert.NumSamples, NumPreSamples: vf.NumPreSamples, NTest: m.Nodes, NCorrect: m.Correct,
		GridShape: [3]int{cert.Nodes, nra, nrd}, AccumulatedCertifications: m.AccumulatedCertifications,
		SmoothedAccuracy: m.SmoothedAccuracy, AvgRadiusAdd: m.AvgRadiusAdd, AvgRadiusDel: m.AvgRadiusDel,
		AvgRadiusAddCorrect: m.AvgRadiusAddCorrect, AvgRadiusDelCorrect: m.AvgRadiusDelCorrect,
		CertificationRatio: m.Ratio, DegreeBinning: binning}
	for _, b := range bins {
		rep.DegreeBins = append(rep.DegreeBins, degreeBinReport{MinDegree: b.MinDegree, MaxDegree: b.MaxDegree,
			NTest: b.Nodes, SmoothedAccuracy: b.SmoothedAccuracy, AccumulatedCertifications: b.AccumulatedCertifications,
			AvgRadiusAdd: b.AvgRadiusAdd, AvgRadiusDel: b.AvgRadiusDel})
	}
	if dir, _ := c.Flags().GetString("plot"); dir != "" {
		base := strings.TrimSuffix(filepath.Base(vpath), filepath.Ext(vpath))
		title := fmt.Sprintf("%s (p+ = %g, p- = %g)", base, pAdd, pDel)
		rp, err := certplot.RatioOverRadius(m, title)
		if err != nil {
			return err
		}
		paths, err := certplot.Save(rp, dir, base+"_cert_ratio")
		if err != nil {
			return err
		}
		dp, err := certplot.AccumulatedOverDegree(bins, title)
		if err != nil {
			return err
		}
		more, err := certplot.Save(dp, dir, base+"_accum_certs_degree")
		if err != nil {
			return err
		}
		rep.Plots = append(paths, more...)
	}
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	printCertify(c.OutOrStdout(), rep)
	return nil
}

// flipProbs resolves --p-add/--p-del against the probabilities recorded in
// the votes file.
func flipProbs(c *cobra.Command, vf *certify.VoteFile) (pAdd, pDel float64, err error) {
	pAdd, _ = c.Flags().GetFloat64("p-add")
	pDel, _ = c.Flags().GetFloat64("p-del")
	setAdd, setDel := c.Flags().Changed("p-add"), c.Flags().Changed("p-del")
	if vf.HasParams {
		if vf.Sample.PPlusAtt != 0 || vf.Sample.PMinusAtt != 0 {
			return 0, 0, fmt.Errorf("the votes were sampled with attribute noise (p₊ᵃᵗᵗ=%g, p₋ᵃᵗᵗ=%g); joint structure/attribute certificates are not supported",
				vf.Sample.PPlusAtt, vf.Sample.PMinusAtt)
		}
		if setAdd && pAdd != vf.Sample.PPlusAdj || setDel && pDel != vf.Sample.PMinusAdj {
			return 0, 0, usagef("--p-add %g / --p-del %g disagree with the votes file (sampled with p₊=%g, p₋=%g)",
				pAdd, pDel, vf.Sample.PPlusAdj, vf.Sample.PMinusAdj)
		}
		return vf.Sample.PPlusAdj, vf.Sample.PMinusAdj, nil
	}
	if !setAdd || !setDel {
		return 0, 0, usagef("the votes file does not record its flip probabilities: pass --p-add and --p-del")
	}
	if !(pAdd >= 0 && pAdd < 1) || !(pDel >= 0 && pDel < 1) || pAdd == 0 && pDel == 0 {
		return 0, 0, usagef("--p-add %g, --p-del %g: need probabilities in [0, 1), not both 0", pAdd, pDel)
	}
	return pAdd, pDel, nil
}

// parseEdges parses --degree-edges ("" → nil).
func parseEdges(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var edges []int
	for _, f := range strings.Split(s, ",") {
		var v int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &v); err != nil || v < 0 {
			return nil, usagef("--degree-edges %q: want ascending non-negative integers like 1,2,3,5,10", s)
		}
		if len(edges) > 0 && v <= edges[len(edges)-1] {
			return nil, usagef("--degree-edges %q: edges must ascend", s)
		}
		edges = append(edges, v)
	}
	return edges, nil
}

func printCertify(w io.Writer, r certifyReport) {
	fmt.Fprintf(w, "%s, %s (split seed %d): p₊=%g p₋=%g α=%g, n=%d samples, %d test nodes\n",
		r.Votes, r.Dataset, r.SplitSeed, r.PAdd, r.PDel, r.Alpha, r.NumSamples, r.NTest)
	fmt.Fprintf(w, "accumulated certifications  %.4f\n", r.AccumulatedCertifications)
	fmt.Fprintf(w, "smoothed accuracy           %.4f (%d/%d)\n", r.SmoothedAccuracy, r.NCorrect, r.NTest)
	fmt.Fprintf(w, "average radius  add %.4f  del %.4f  (over correct nodes: add %.4f  del %.4f)\n",
		r.AvgRadiusAdd, r.AvgRadiusDel, r.AvgRadiusAddCorrect, r.AvgRadiusDelCorrect)
	fmt.Fprintf(w, "certification ratio R(r_a, r_d), grid %v:\n", r.GridShape)
	fmt.Fprintf(w, "%8s", "r_a\\r_d")
	for rd := range r.CertificationRatio[0] {
		fmt.Fprintf(w, " %6d", rd)
	}
	fmt.Fprintln(w)
	for ra, row := range r.CertificationRatio {
		fmt.Fprintf(w, "%8d", ra)
		for _, v := range row {
			fmt.Fprintf(w, " %6.4f", v)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "by degree (%s):\n", r.DegreeBinning)
	fmt.Fprintf(w, "%10s %6s %9s %9s %8s %8s\n", "degree", "nodes", "accuracy", "accum", "r̄_add", "r̄_del")
	for _, b := range r.DegreeBins {
		deg := fmt.Sprint(b.MinDegree)
		if b.MaxDegree != b.MinDegree {
			deg = fmt.Sprintf("%d-%d", b.MinDegree, b.MaxDegree)
		}
		fmt.Fprintf(w, "%10s %6d %9.4f %9.4f %8.4f %8.4f\n", deg, b.NTest, b.SmoothedAccuracy,
			b.AccumulatedCertifications, b.AvgRadiusAdd, b.AvgRadiusDel)
	}
	for _, p := range r.Plots {
		fmt.Fprintf(w, "wrote %s\n", p)
	}
}
