package experiment

import (
	"embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiments"
)

//go:embed reproduce/*.yaml
var reproduceFS embed.FS

var datasetName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ReproduceSource returns the embedded experiment file of `rgnn reproduce`
// (quick or full) for a dataset.
func ReproduceSource(dataset string, quick bool) (string, error) {
	if !datasetName.MatchString(dataset) {
		return "", fmt.Errorf("reproduce: invalid dataset name %q", dataset)
	}
	file := "reproduce/full.yaml"
	if quick {
		file = "reproduce/quick.yaml"
	}
	b, err := reproduceFS.ReadFile(file)
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(string(b), "${dataset}", dataset), nil
}

// Reproduction returns the parsed experiment of `rgnn reproduce`: GCN, GDC
// and Soft Medoid GDC (T = 0.5) trained, attacked (FGSM, PR-BCD at
// ε = 0.1, 0.25) and certified. It runs through Execute like any
// experiment, so it is cached and resumable.
func Reproduction(dataset string, quick bool) (*Experiment, error) {
	src, err := ReproduceSource(dataset, quick)
	if err != nil {
		return nil, err
	}
	return Parse([]byte(src))
}

// PaperReproduction returns the experiments of `rgnn reproduce --paper`:
// the shipped files of the paper's evaluation on dataset
// (experiments.PaperFiles), each with its dataset set to dataset. They run one after the other into one
// store, cached and resumable like any experiment.
func PaperReproduction(dataset string) ([]*Experiment, error) {
	if !datasetName.MatchString(dataset) {
		return nil, fmt.Errorf("reproduce: invalid dataset name %q", dataset)
	}
	var out []*Experiment
	for _, name := range experiments.PaperFiles(dataset) {
		src, err := experiments.Read(name)
		if err != nil {
			return nil, err
		}
		e, err := Parse(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := e.Set("dataset", dataset); err != nil {
			return nil, err
		}
		if info, err := data.Lookup(dataset); err == nil && info.PaperK > 0 {
			if err := e.Set("k", info.PaperK); err != nil { // PubMed: k = 32, as the paper
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// PaperSource is the text of PaperReproduction: the files, each under a
// comment naming it.
func PaperSource(dataset string) (string, error) {
	if !datasetName.MatchString(dataset) {
		return "", fmt.Errorf("reproduce: invalid dataset name %q", dataset)
	}
	var b strings.Builder
	for _, name := range experiments.PaperFiles(dataset) {
		src, err := experiments.Read(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "# ---- experiments/%s, run with dataset = %s\n%s\n", name, dataset, src)
	}
	return b.String(), nil
}

// ReproduceNotes describe how the quick run differs from the paper's
// protocol; `rgnn reproduce --quick` prints them.
func ReproduceNotes(quick bool) []string {
	if !quick {
		return []string{"full protocol: seeds 0, 1, 5; reference training; 10,000 + 100 smoothing samples; certificates on binary attributes"}
	}
	return []string{
		"quick mode: 1 seed (0) instead of 3; at most 100 training epochs (reference: 3000, patience 300)",
		"quick mode: 150 + 20 smoothing samples instead of 10,000 + 100, so the certified radii are much smaller than the paper's; Add-only certificates are skipped (they need ≳ 5,000 samples)",
		"quick mode: certificates on the given (TF-IDF) attributes, not binarised",
		"quick mode: PR-BCD with 50 epochs (10 fine-tuning) and a block of 1e5 pairs instead of 500 and 1e6",
	}
}
