package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
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
