package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

var knownList = regexp.MustCompile(`\(known: [^;)]*`)

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
	cases := []struct{ what, input string }{
		{"file", "eval --weights garbage.npz"},
		{"file", "eval --weights empty.npz"},
		{"file", "eval --model gdc --weights <RGCN weights>"},
		{"file", "eval --weights <GCN weights> --graph <GCN weights>"},
		{"file", "certify --votes garbage.npz --p-del 0.4"},
		{"file", "train --dataset garbage.npz"},
		{"file", "attack --attack nettack --targets targets.txt (a repeated id)"},
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
		{"experiment file", "fixd: {seed: 1}"},
		{"experiment file", "fixed: {kind: train, bogus: 1}"},
		{"experiment file", "fixed: {kind: trian}"},
		{"experiment file", "fixed: {kind: train\n(unclosed)"},
		{"experiment file", "fixed: {kind: train, seed: [1, 2]}"},
	}
	argsOf := func(in string) []string {
		repl := strings.NewReplacer("garbage.npz", notZip, "empty.npz", empty, "targets.txt", targets,
			"<RGCN weights>", rgcn, "<GCN weights>", w, " (a repeated id)", "")
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
