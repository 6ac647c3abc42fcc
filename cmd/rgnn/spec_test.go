package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// commandOf returns the subcommand name of a fresh root.
func commandOf(t *testing.T, name string) *cobra.Command {
	t.Helper()
	for _, c := range newRootCmd().Commands() {
		if c.Name() == name {
			return c
		}
	}
	t.Fatalf("no command %s", name)
	return nil
}

// The commands and the experiment kinds that run the same spec.
var sameSpec = []struct{ command, kind string }{
	{"train", "train"}, {"eval", "eval"}, {"certify", "certify"}, {"attack", "attack"}, {"unittest", "unittest"},
}

// TestFlagsMatchExperimentParams walks every parameter of every spec: the
// flag and the experiment parameter of the same field have one default,
// shown once, in the form a user types.
func TestFlagsMatchExperimentParams(t *testing.T) {
	kinds := experiment.DefaultKinds()
	for _, s := range sameSpec {
		k, _ := kinds.Lookup(s.kind)
		spec, err := k.Decode(store.Params{})
		if err != nil {
			t.Fatal(err)
		}
		c := commandOf(t, s.command)
		for _, f := range task.Fields(spec) {
			if f.Flag == "" || f.CLIOnly || s.command == "attack" && f.Param == "model" {
				continue // attack's victims are --victim
			}
			fl := c.Flags().Lookup(f.Flag)
			if fl == nil {
				t.Errorf("%s: parameter %s has no flag --%s", s.command, f.Param, f.Flag)
				continue
			}
			if fl.DefValue != f.String() {
				t.Errorf("%s --%s: default %q, experiment %s default %q", s.command, f.Flag, fl.DefValue, f.Param, f.String())
			}
			shown := fl.DefValue != "" && fl.DefValue != "0" && fl.DefValue != "false" // pflag prints "(default …)"
			if shown && strings.Contains(fl.Usage, "(default") || strings.Contains(fl.DefValue, "[") {
				t.Errorf("%s --%s: a second default in the help %q / %q", s.command, f.Flag, fl.Usage, fl.DefValue)
			}
		}
	}
	// Defaults print as typed: no Go formatting of lists or floats.
	if d := commandOf(t, "attack").Flags().Lookup("epsilon").DefValue; d != "0.1" {
		t.Errorf("--epsilon default %q", d)
	}
	if d := commandOf(t, "train").Flags().Lookup("split-seed").DefValue; d != "" {
		t.Errorf("--split-seed default %q, want none shown (it follows --seed)", d)
	}
}

// TestFlagsRejectLikeExperiments gives every command and its experiment
// kind the same bad values: both refuse them, naming the parameter (the
// experiment) and the flag (the CLI, a usage error).
func TestFlagsRejectLikeExperiments(t *testing.T) {
	kinds := experiment.DefaultKinds()
	cases := []struct {
		param string
		cli   string
		exp   any
	}{
		{"dataset", "", ""},
		{"temperature", "0", 0.0}, {"temperature", "-1", -1.0}, {"k", "0", 0}, {"hidden", "0", 0},
		{"normalization", "foo", "foo"}, {"ppr_eps", "-1", -1.0}, {"seed", "-1", -1},
		{"max_epochs", "0", 0}, {"patience", "0", 0}, {"lr", "0", 0.0}, {"weight_decay", "-0.5", -0.5},
		{"samples", "0", 0}, {"pre_samples", "0", 0}, {"alpha", "0.5", 0.5}, {"p_add", "1", 1.0},
		{"p_del", "-0.1", -0.1}, {"sample_ppr_eps", "-1", -1.0}, {"degree_bins", "0", 0},
		{"epsilon", "1.5", 1.5}, {"attack", "nope", "nope"}, {"loss", "hinge", "hinge"},
		{"attack_epochs", "-1", -1}, {"block_size", "-1", -1},
	}
	base := store.Params{"model": "sm_gdc", "p_del": 0.4, "attack": "prbcd"}
	baseFlags := map[string][]string{"train": {"--model", "sm_gdc"}, "eval": {"--model", "sm_gdc"},
		"certify": {"--model", "sm_gdc", "--p-del", "0.4", "--train"}, "attack": {"--victim", "sm_gdc", "--attack", "prbcd"},
		"unittest": {"--model", "sm_gdc", "--unit-test", "unit_test.npz"}}
	empty := t.TempDir()
	for _, s := range sameSpec {
		k, _ := kinds.Lookup(s.kind)
		spec, _ := k.Decode(store.Params{})
		flags := map[string]string{}
		for _, f := range task.Fields(spec) {
			if !f.CLIOnly && f.Flag != "" {
				flags[f.Param] = f.Flag
			}
		}
		for _, c := range cases {
			fl, ok := flags[c.param]
			if !ok {
				continue
			}
			p := store.Params{}
			for k, v := range base {
				p[k] = v
			}
			p[c.param] = c.exp
			_, err := k.Run(context.Background(), &experiment.Env{}, p)
			if err == nil || !strings.Contains(err.Error(), c.param) {
				t.Errorf("experiment %s with %s = %v: %v, want an error naming %s", s.kind, c.param, c.exp, err, c.param)
			}
			args := append([]string{s.command, "--data-dir", empty}, baseFlags[s.command]...)
			_, err = runRoot(t, append(args, "--"+fl, c.cli)...)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--"+fl) {
				t.Errorf("rgnn %s --%s %q: %v, want a usage error naming --%s", s.command, fl, c.cli, err, fl)
			}
		}
	}
}
