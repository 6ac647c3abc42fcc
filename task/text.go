package task

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rgnn/rgnn/attack/protocol"
)

// WriteGlobal prints a global attack's result as text: the attacked model,
// the victims' clean accuracy, and per budget the flips and accuracies (and
// the saved file).
func WriteGlobal(w io.Writer, res *GlobalResult, files []string) {
	switch res.Mode {
	case "poisoning":
		fmt.Fprintf(w, "poisoning %s attack on %s (seed %d; victims trained from scratch on each graph)\n",
			res.Attack, res.Dataset, res.Seed)
	case "model-free":
		fmt.Fprintf(w, "model-free %s attack on %s (seed %d)\n", res.Attack, res.Dataset, res.Seed)
	default:
		fmt.Fprintf(w, "%s %s attack on %s (seed %d, loss %s, attacked model %s: clean accuracy %.4f)\n",
			res.Mode, res.Attack, res.Dataset, res.Seed, res.Loss, res.AttackedModel, res.AttackedClean)
	}
	for _, v := range res.Clean {
		fmt.Fprintf(w, "  clean      %-16s %.4f%s\n", v.Name, v.Accuracy, nanNote(v))
	}
	for i, b := range res.Budgets {
		if res.Mode == "poisoning" || res.Mode == "model-free" {
			fmt.Fprintf(w, "  ε=%-5g %4d flips (+%d −%d) in %.1fs\n", b.Epsilon, b.NumFlips, b.Added, b.Removed, b.Seconds)
		} else {
			fmt.Fprintf(w, "  ε=%-5g %4d flips (+%d −%d) in %.1fs, attacked model %.4f\n", b.Epsilon, b.NumFlips,
				b.Added, b.Removed, b.Seconds, b.AttackedAccuracy)
		}
		for _, v := range b.Victims {
			fmt.Fprintf(w, "             %-16s %.4f%s\n", v.Name, v.Accuracy, nanNote(v))
		}
		if i < len(files) {
			fmt.Fprintf(w, "             saved %s\n", files[i])
		}
	}
}

// nanNote is the text note of a victim whose logits were NaN as the
// reference's are (protocol.VictimResult.NaN), "" otherwise.
func nanNote(v protocol.VictimResult) string {
	if v.NaN == "" {
		return ""
	}
	return " (NaN logits: " + v.NaN + ")"
}

// WriteTargeted prints a targeted attack's result as text: per target and
// budget each victim's flips and margins, and per victim the summary.
func WriteTargeted(w io.Writer, res *TargetedResult, files []string, out string) {
	feats := res.Perturb != "" && res.Perturb != "structure"
	perturbNote := ""
	if res.Perturb != "" {
		perturbNote = ", perturb " + res.Perturb
	}
	fmt.Fprintf(w, "%s %s targeted attack on %s (seed %d, loss %s, attacked model %s, budget %s%s, %d targets %s)\n",
		res.Mode, res.Attack, res.Dataset, res.Seed, lossOrNone(res.Loss), res.AttackedModel, res.Budget, perturbNote, len(res.Targets), res.Selection)
	flipsHead := "flips"
	if feats {
		flipsHead = "flips  feat"
	}
	relaxed := false // a column for the local engine's margin (PPRGo victims)
	for _, r := range res.Rows {
		for _, v := range r.Victims {
			relaxed = relaxed || v.RelaxedMargin != nil
		}
	}
	relaxedHead := ""
	if relaxed {
		relaxedHead = fmt.Sprintf(" %8s", "relaxed")
	}
	fmt.Fprintf(w, "  %-7s %-7s %4s %6s %6s  %-16s %6s %8s %8s%s %s\n", "target", "group", "deg", "eps", "budget", "victim",
		flipsHead, "clean", "margin", relaxedHead, "correct")
	for _, r := range res.Rows {
		for i, v := range r.Victims {
			head := fmt.Sprintf("  %-7d %-7s %4d %6s %6d", r.Target, r.Group, r.Degree, epsLabel(r.Epsilon), r.Budget)
			if i > 0 {
				head = fmt.Sprintf("  %-7s %-7s %4s %6s %6s", "", "", "", "", "")
			}
			fl := fmt.Sprintf("%2d+%-2d", v.Added, v.Removed)
			if feats {
				fl += fmt.Sprintf(" %5d", len(v.FeatureFlips))
			}
			rel := ""
			switch {
			case v.RelaxedMargin != nil:
				rel = fmt.Sprintf(" %+8.3f", *v.RelaxedMargin)
			case relaxed:
				rel = fmt.Sprintf(" %8s", "-")
			}
			fmt.Fprintf(w, "%s  %-16s %s %+8.3f %+8.3f%s %v\n", head, v.Name, fl, v.CleanMargin, v.Margin, rel, v.Correct)
		}
	}
	if relaxed {
		fmt.Fprintf(w, "(PPRGo victims: margin with the target's PPR row pushed on the perturbed graph; relaxed = under the local engine's update of that row, which ignores the flips' effect on the other endpoints' rows)\n")
	}
	fmt.Fprintf(w, "summary (margin = P(y) − max P(c) at the target; failure rate = targets still correct):\n")
	for _, s := range res.Summary {
		fmt.Fprintf(w, "  %-16s eps %-5s %3d targets: clean margin %+.3f (acc %.3f) → margin %+.3f ± %.3f, failure rate %.3f, %.3f s/target\n",
			s.Victim, epsLabel(s.Epsilon), s.Targets, s.CleanMargin, s.CleanAccuracy, s.MeanMargin, s.MarginSE, s.FailureRate, s.SecondsPerTarget)
	}
	if feats {
		for _, s := range res.Summary {
			fmt.Fprintf(w, "  %-16s eps %-5s per target %.2f edge + %.2f feature flips\n", s.Victim, epsLabel(s.Epsilon), s.MeanEdgeFlips, s.MeanFeatureFlips)
		}
	}
	if res.Skipped > 0 {
		fmt.Fprintf(w, "  (%d target/ε pairs with budget round(ε·degree) = 0 skipped)\n", res.Skipped)
	}
	if len(files) > 0 {
		fmt.Fprintf(w, "saved %d perturbed graphs in %s\n", len(files), out)
	}
}

func epsLabel(e float64) string {
	if e == 0 {
		return "-"
	}
	return strconv.FormatFloat(e, 'g', -1, 64)
}

func lossOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Noise names the smoothing distribution: "edges p₊=… p₋=…" or
// "attributes p₊=… p₋=…" (radii then count attribute flips).
func (r *CertifyResult) Noise() string {
	if r.PAddAtt != 0 || r.PDelAtt != 0 {
		return fmt.Sprintf("attributes p₊=%g p₋=%g", r.PAddAtt, r.PDelAtt)
	}
	return fmt.Sprintf("edges p₊=%g p₋=%g", r.PAdd, r.PDel)
}

// WriteText prints the certificate as text (and the plots written).
func (r *CertifyResult) WriteText(w io.Writer, plots []string) {
	fmt.Fprintf(w, "%s, %s (split seed %d): %s α=%g, n=%d samples, %d test nodes\n",
		r.Votes, r.Dataset, r.SplitSeed, r.Noise(), r.Alpha, r.NumSamples, r.NTest)
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
	for _, p := range plots {
		fmt.Fprintf(w, "wrote %s\n", p)
	}
}
