package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/task"
)

// TestSameMessageEverywhere: a bad value gives the same message from the
// CLI, from an experiment file (rgnn run --dry-run) and from the Go API
// (the spec's Validate), because the range is checked in one place.
func TestSameMessageEverywhere(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		kind, param, value string
		spec               func() any
		base               map[string]string // other parameters (experiment form)
	}{
		{"train", "temperature", "0", func() any { return ptr(task.Train{}.Defaults()) }, map[string]string{"model": "sm_gdc"}},
		{"train", "k", "0", func() any { return ptr(task.Train{}.Defaults()) }, map[string]string{"model": "sm_gdc"}},
		{"certify", "p_del", "1", func() any { return ptr(task.Certify{}.Defaults()) }, map[string]string{"model": "gcn"}},
		{"certify", "alpha", "0.7", func() any { return ptr(task.Certify{}.Defaults()) }, map[string]string{"model": "gcn", "p_del": "0.4"}},
		{"attack", "epsilon", "-1", func() any { return ptr(task.Attack{}.Defaults()) }, map[string]string{"model": "gcn"}},
	}
	for _, c := range cases {
		t.Run(c.param+"="+c.value, func(t *testing.T) {
			// The Go API.
			spec := c.spec()
			set := func(param, v string) {
				for _, f := range task.Fields(spec) {
					if f.Param == param {
						if err := f.Set(v); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			for p, v := range c.base {
				set(p, v)
			}
			set(c.param, c.value)
			var fe *task.FieldError
			if err := spec.(interface{ Validate() error }).Validate(); !errors.As(err, &fe) || fe.Param != c.param {
				t.Fatalf("Validate: %v, want a FieldError of %s", err, c.param)
			}
			api := fe.Error() // "<param> <value>: <message>"

			// The CLI: the same message under the flag's name.
			args := []string{c.kind, "--data-dir", dir}
			for p, v := range c.base {
				if p == "model" && c.kind == "attack" {
					p = "victim"
				}
				args = append(args, "--"+strings.ReplaceAll(p, "_", "-"), v)
			}
			if c.kind == "certify" {
				args = append(args, "--train")
			}
			args = append(args, "--"+strings.ReplaceAll(c.param, "_", "-"), c.value)
			_, err := runRoot(t, args...)
			var ue usageError
			if want := "--" + strings.ReplaceAll(c.param, "_", "-") + " " + task.Format(fe.Value) + ": " + fe.Msg; !errors.As(err, &ue) || err.Error() != want {
				t.Errorf("rgnn %s: %v, want the usage error %q", strings.Join(args, " "), err, want)
			}

			// An experiment file, checked by --dry-run.
			yaml := "name: x\nfixed:\n  kind: " + c.kind + "\n"
			for p, v := range c.base {
				yaml += "  " + p + ": " + v + "\n"
			}
			yaml += "  " + c.param + ": " + c.value + "\n"
			file := filepath.Join(t.TempDir(), "x.yaml")
			if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = runRoot(t, "run", file, "--dry-run", "--store", filepath.Join(t.TempDir(), "s.db"))
			if err == nil || !strings.HasSuffix(err.Error(), ": "+api) {
				t.Errorf("rgnn run --dry-run of\n%s: %v, want it to end in %q", yaml, err, api)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
