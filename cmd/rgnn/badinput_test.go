package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
)

var (
	knownList   = regexp.MustCompile(`\(known: [^;)]*`)
	memoryLimit = regexp.MustCompile(`more than the [0-9.]+ [GT]iB of memory`)
)

// TestBadInputsTable runs the bad inputs of TESTING.md ("Bad inputs") —
// files, flags and experiment files — and checks that each ends in the
// error recorded there: a usage error (exit 2) or a runtime error (exit
// 1), never a crash. RGNN_UPDATE_GOLDEN=1 rewrites the table from the run.
func TestBadInputsTable(t *testing.T) {
	dir := fixture.DataDir(t)
	tmp := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notZip := write("garbage.npz", "not a zip")
	empty := write("empty.npz", "")
	targets := write("targets.txt", "1 2 1\n")
	w := fixture.Reference(t, "pretrained/cora_ml_Vanilla_GCN_s0_bin0.npz")
	rgcn := fixture.Reference(t, "pretrained/cora_ml_RGCN_s0_bin0.npz")
	// Weights saved by rgnn train record their model.
	gcnSaved := filepath.Join(tmp, "gcn_saved.npz")
	if _, err := runRoot(t, "train", "--data-dir", dir, "--max-epochs", "1", "--quiet", "--out", gcnSaved); err != nil {
		t.Fatal(err)
	}
	// Dataset files with bad input (cora_ml's layout, 4 nodes).
	dataset := func(name string, adjData []float32, attrData []float32, labels []int64) string {
		ptr := []int64{0, 1, 3, 5, 6}
		ind := []int32{1, 0, 2, 1, 3, 2} // the path 0-1-2-3
		if adjData == nil {
			ptr, ind = []int64{0, 0, 0, 0, 0}, nil
		}
		es := []npz.Entry{npz.F32("adj_matrix.data", []int{len(adjData)}, adjData), npz.I32("adj_matrix.indices", []int{len(ind)}, ind),
			npz.I64("adj_matrix.indptr", []int{5}, ptr), npz.I64("adj_matrix.shape", []int{2}, []int64{4, 4}),
			npz.F32("attr_matrix.data", []int{4}, attrData), npz.I32("attr_matrix.indices", []int{4}, []int32{0, 1, 0, 1}),
			npz.I64("attr_matrix.indptr", []int{5}, []int64{0, 1, 2, 3, 4}), npz.I64("attr_matrix.shape", []int{2}, []int64{4, 2}),
			npz.I64("labels", []int{4}, labels)}
		b, err := npz.Encode(es...)
		if err != nil {
			t.Fatal(err)
		}
		return write(name, string(b))
	}
	ones, feats, labels := []float32{1, 1, 1, 1, 1, 1}, []float32{1, 1, 1, 1}, []int64{0, 1, 2, 1}
	nan := float32(math.NaN())
	negW := dataset("negative_weight.npz", []float32{1, 1, 1, -1, 1, 1}, feats, labels)
	nanF := dataset("nan_features.npz", ones, []float32{1, 1, nan, 1}, labels)
	label9 := dataset("label9.npz", ones, feats, []int64{0, 1, 2, 9})
	edgeless := dataset("edgeless.npz", nil, feats, labels)
	exp := write("smoke.yaml", "fixed: {kind: train, dataset: cora_ml, max_epochs: 5}\ngrid: {seed: [0, 1]}\n")
	cases := []struct{ what, input string }{
		{"file", "eval --weights garbage.npz"},
		{"file", "eval --weights empty.npz"},
		{"file", "eval --model gdc --weights <RGCN weights>"},
		{"file", "eval --weights <GCN weights> --graph <GCN weights>"},
		{"file", "certify --votes garbage.npz --p-del 0.4"},
		{"file", "train --dataset garbage.npz"},
		{"file", "attack --attack nettack --targets targets.txt (a repeated id)"},
		{"file", "eval --model sm_gcn --weights <gcn weights saved by rgnn train>"},
		{"file", "train --dataset negative_weight.npz"},
		{"file", "train --dataset nan_features.npz"},
		{"file", "train --dataset label9.npz (labels 0, 1, 2, 9)"},
		{"file", "train --dataset edgeless.npz"},
		{"flag", "train --model nope"},
		{"flag", "train --dataset nope"},
		{"flag", "train --model sm_gdc --temperature 0"},
		{"flag", "train --model sm_gcn --k 0"},
		{"flag", "train --max-epochs 0"},
		{"flag", "train --split-seed -1"},
		{"flag", "train --lr abc"},
		{"flag", "attack --victim gcn,nope"},
		{"flag", "attack --epsilon 1.5"},
		{"flag", "attack --attack pgd --variant approx"},
		{"flag", "attack --attack dice --budget degree+2"},
		{"flag", "attack --attack nettack --budget degree-1 --targets auto"},
		{"flag", "certify --train --p-add 0 --p-del 0"},
		{"flag", "certify --train --alpha 0.7 --p-del 0.4"},
		{"flag", "certify --train --p-del 0.4 --samples 1e12"},
		{"flag", "certify --train --p-del 0.4 --workers -3"},
		{"flag", "train --model gcn --temperature 0.5"},
		{"flag", "train --hidden 100000000"},
		{"flag", "train --lr abc --json"},
		{"flag", "run smoke.yaml --dry-run --set bogus=1"},
		{"flag", "run smoke.yaml --dry-run --set seed=-3"},
		{"flag", "results --store typo.db"},
		{"flag", "results --store mysql://x@y/z"},
		{"flag", "reproduce --dataset nope --quick"},
		{"experiment file", "fixd: {seed: 1}"},
		{"experiment file", "fixed: {kind: train, bogus: 1}"},
		{"experiment file", "fixed: {kind: trian}"},
		{"experiment file", "fixed: {kind: train\n(unclosed)"},
		{"experiment file", "fixed: {kind: train, seed: [1, 2]}"},
		{"experiment file", "fixed: {kind: train, seed: -3}"},
		{"experiment file", "fixed: {kind: certify, p_add: 0, p_del: 0}"},
		{"experiment file", "grid: {kind: [certify], p_del: [0.4], samples: [100, 1e12]}"},
	}
	argsOf := func(in string) []string {
		repl := strings.NewReplacer("garbage.npz", notZip, "empty.npz", empty, "targets.txt", targets,
			"<RGCN weights>", rgcn, "<GCN weights>", w, " (a repeated id)", "",
			"<gcn weights saved by rgnn train>", gcnSaved, "negative_weight.npz", negW, "nan_features.npz", nanF,
			"label9.npz (labels 0, 1, 2, 9)", label9, "edgeless.npz", edgeless, "smoke.yaml", exp,
			"typo.db", filepath.Join(tmp, "typo.db"))
		return strings.Fields(repl.Replace(in))
	}
	var rows []string
	for _, c := range cases {
		var args []string
		if c.what == "experiment file" {
			args = []string{"run", write("exp.yaml", c.input), "--dry-run", "--store", filepath.Join(tmp, "r.db")}
		} else {
			args = argsOf(c.input)
		}
		_, err := runRoot(t, append(args, "--data-dir", dir)...)
		if err == nil {
			t.Errorf("%s %q: accepted", c.what, c.input)
			continue
		}
		exit := "1 (runtime)"
		var ue usageError
		if errors.As(err, &ue) {
			exit = "2 (usage)"
		}
		msg := strings.NewReplacer(tmp, "$TMP", dir, "$DATA", filepath.Dir(w), "$REF", "\n", " ", "|", "\\|").
			Replace(err.Error())
		// Registry listings change with every new model or dataset.
		msg = knownList.ReplaceAllString(msg, "(known: …")
		// The memory a process may use is the machine's.
		msg = memoryLimit.ReplaceAllString(msg, "more than the … of memory")
		if len(msg) > 160 {
			msg = msg[:157] + "…"
		}
		rows = append(rows, "| "+c.what+" | `"+strings.ReplaceAll(strings.ReplaceAll(c.input, "\n", "⏎"), "|", "\\|")+
			"` | "+exit+" | "+msg+" |")
	}
	table := "| input | given | exit | error |\n|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	path := filepath.Join("..", "..", "TESTING.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- bad inputs: begin -->\n", "<!-- bad inputs: end -->"
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("TESTING.md has no bad-inputs table between %q and %q", begin, end)
	}
	if got := doc[i+len(begin) : j]; got != table {
		if os.Getenv("RGNN_UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+table+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("TESTING.md's bad-inputs table differs from this run (RGNN_UPDATE_GOLDEN=1 go test ./cmd/rgnn -run TestBadInputsTable rewrites it):\n%s", table)
	}
}
