package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rgnn/rgnn/task"
)

// specFlag is a flag bound to one field of a spec (package task): its
// parsing, its type and its default come from the field, so a parameter is
// declared once for the CLI and the experiment files.
type specFlag struct{ f task.Field }

func (v specFlag) String() string     { return v.f.String() }
func (v specFlag) Set(s string) error { return v.f.Set(s) }
func (v specFlag) Type() string       { return v.f.Type() }

// boolFlag is a specFlag of a bool field (--flag without a value is true).
type boolFlag struct{ specFlag }

func (boolFlag) IsBoolFlag() bool { return true }

// bind adds a flag for every field of spec (a pointer to a spec struct,
// holding its defaults) that has a flag name, except the names in skip.
// Help shows each default once, as a user types it.
func bind(c *cobra.Command, spec any, skip ...string) {
	for _, f := range task.Fields(spec) {
		if f.Flag == "" || slices.Contains(skip, f.Flag) {
			continue
		}
		var v pflag.Value = specFlag{f}
		if f.Type() == "bool" {
			v = boolFlag{specFlag{f}}
		}
		fl := c.Flags().VarPF(v, f.Flag, "", f.Help)
		if f.Type() == "bool" {
			fl.NoOptDefVal = "true"
		}
	}
}

// flagOf maps a spec parameter name to its flag ("split_seed" → "--split-seed").
func flagOf(spec any, param string) string {
	for _, f := range task.Fields(spec) {
		if f.Param == param || f.Flag == param || strings.ReplaceAll(f.Flag, "-", "_") == param {
			if f.Flag != "" {
				return "--" + f.Flag
			}
		}
	}
	return "--" + strings.ReplaceAll(param, "_", "-")
}

// specErr turns a bad parameter of spec into a usage error naming the flag
// (exit code 2); other errors pass through.
func specErr(spec any, err error) error {
	var fe *task.FieldError
	if errors.As(err, &fe) {
		flag := flagOf(spec, fe.Param)
		if fe.Value == nil {
			return usageError{err: fmt.Errorf("%s: %s", flag, fe.Msg), field: flag}
		}
		return usageError{err: fmt.Errorf("%s %s: %s", flag, quoteEmpty(task.Format(fe.Value)), fe.Msg), field: flag}
	}
	return err
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// checkGiven refuses a model flag (--temperature, --k, --normalization)
// given explicitly that none of models uses (task.Model.CheckGiven).
func checkGiven(c *cobra.Command, spec any, m task.Model, models ...string) error {
	err := m.CheckGiven(models, func(param string) bool {
		fl := c.Flags().Lookup(strings.ReplaceAll(param, "_", "-"))
		return fl != nil && fl.Changed
	})
	return specErr(spec, err)
}

// commaList splits a comma-separated flag value into its non-empty items.
func commaList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
