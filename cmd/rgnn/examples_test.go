package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exampleLines returns the command lines of c's Example text (continuation
// lines joined), split into words.
func exampleLines(c *cobra.Command) [][]string {
	var out [][]string
	cur := ""
	for _, l := range strings.Split(c.Example, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		cur += l
		if f := strings.Fields(cur); len(f) > 0 && f[0] == "rgnn" {
			out = append(out, f)
		}
		cur = ""
	}
	return out
}

// TestHelpExamplesParse parses every Example line of every command's help:
// its subcommand and flags exist and its values have the flag's type, and a
// file it names from the repository (experiments/…) exists. `rgnn run`
// examples with a shipped experiment file also expand it (--dry-run).
func TestHelpExamplesParse(t *testing.T) {
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, line := range exampleLines(c) {
			n++
			root := newRootCmd()
			cmd, args, err := root.Find(line[1:])
			if err != nil {
				t.Errorf("%q: %v", strings.Join(line, " "), err)
				continue
			}
			if err := cmd.ParseFlags(args); err != nil {
				t.Errorf("%q: %v", strings.Join(line, " "), err)
				continue
			}
			for _, a := range append(cmd.Flags().Args(), line...) {
				if strings.HasPrefix(a, "experiments/") {
					if _, err := os.Stat(filepath.Join("..", "..", a)); err != nil {
						t.Errorf("%q names %s, which is not in the repository", strings.Join(line, " "), a)
					}
				}
			}
			if cmd.Name() == "run" && len(cmd.Flags().Args()) == 1 && strings.HasPrefix(cmd.Flags().Args()[0], "experiments/") {
				if _, err := runRoot(t, "run", filepath.Join("..", "..", cmd.Flags().Args()[0]), "--dry-run",
					"--store", filepath.Join(t.TempDir(), "r.db")); err != nil {
					t.Errorf("%q --dry-run: %v", strings.Join(line, " "), err)
				}
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd())
	t.Logf("%d example lines", n)
	if n < 20 {
		t.Fatalf("only %d example lines found", n)
	}
}

// TestHelpSaysWhatAUserNeeds: commands a newcomer starts with show
// examples and the choices of their flags, and the README and
// `reproduce --help` give the same time for --quick.
func TestHelpSaysWhatAUserNeeds(t *testing.T) {
	for _, path := range [][]string{{"data", "info"}, {"data", "fetch"}, {"data", "generate"}, {"reproduce"}, {"run"}} {
		c, _, err := newRootCmd().Find(path)
		if err != nil || strings.TrimSpace(c.Example) == "" {
			t.Errorf("rgnn %s: no examples (%v)", strings.Join(path, " "), err)
		}
	}
	c, _, _ := newRootCmd().Find([]string{"reproduce"})
	if u := c.Flags().Lookup("dataset").Usage; !strings.Contains(u, "cora_ml") || !strings.Contains(u, "citeseer") {
		t.Errorf("reproduce --dataset does not list the datasets: %q", u)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Long, "2-4 minutes") || !strings.Contains(string(readme), "2–4 minutes") {
		t.Errorf("README and reproduce --help disagree on the time of --quick")
	}
}

// readmeLines returns the rgnn command lines of the code blocks of a
// Markdown file of the repository (`./rgnn …`, `rgnn …`, `go run ./cmd/rgnn
// …`; continuation lines joined, comments and environment assignments
// dropped), split into words with single quotes removed.
func readmeLines(t *testing.T, name string) [][]string {
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	inBlock, cur := false, ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			inBlock, cur = !inBlock, ""
			continue
		}
		if !inBlock {
			continue
		}
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		cur += l
		words := shellWords(cur)
		cur = ""
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:] // VAR=value prefixes
		}
		switch {
		case len(words) > 0 && (words[0] == "./rgnn" || words[0] == "rgnn"):
			out = append(out, append([]string{"rgnn"}, words[1:]...))
		case len(words) > 2 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/rgnn":
			out = append(out, append([]string{"rgnn"}, words[3:]...))
		}
	}
	return out
}

// shellWords splits a command line at spaces outside single quotes.
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	quoted, has := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, has = !quoted, true
		case r == ' ' && !quoted:
			if has {
				out = append(out, w.String())
				w.Reset()
				has = false
			}
		default:
			w.WriteRune(r)
			has = true
		}
	}
	if has {
		out = append(out, w.String())
	}
	return out
}

// TestReadmeCommandsParse: every rgnn command line of the README and of
// the guides in docs/ names a subcommand and flags that exist, with values
// of the flags' types, and the experiment files it names are in the
// repository; the README shows the main commands and every guide its own.
func TestReadmeCommandsParse(t *testing.T) {
	guides, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, g := range guides {
		files = append(files, filepath.Join("docs", filepath.Base(g)))
	}
	if len(files) < 6 {
		t.Fatalf("only %d documents with commands: %v", len(files), files)
	}
	for _, name := range files {
		lines := readmeLines(t, name)
		for _, line := range lines {
			cmd, args, err := newRootCmd().Find(line[1:])
			if err != nil {
				t.Errorf("%s: %q: %v", name, strings.Join(line, " "), err)
				continue
			}
			if err := cmd.ParseFlags(args); err != nil && !errors.Is(err, pflag.ErrHelp) {
				t.Errorf("%s: %q: %v", name, strings.Join(line, " "), err)
				continue
			}
			for _, a := range line {
				if strings.HasPrefix(a, "experiments/") {
					if _, err := os.Stat(filepath.Join("..", "..", a)); err != nil {
						t.Errorf("%s: %q names %s, which is not in the repository", name, strings.Join(line, " "), a)
					}
				}
			}
		}
		t.Logf("%s: %d command lines", name, len(lines))
		if want := map[bool]int{true: 12, false: 2}[name == "README.md"]; len(lines) < want {
			t.Errorf("%s: only %d command lines (want at least %d)", name, len(lines), want)
		}
	}
}
