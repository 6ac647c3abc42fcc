// Command rgnn trains, attacks and certifies graph neural networks with
// robust aggregations (Soft Medoid and friends). Run `rgnn --help` for the
// subcommands; every subcommand has --help and --json.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/internal/memlimit"
)

// Exit codes: 0 success, 1 runtime failure (bad file, diverged training,
// ...), 2 usage error (unknown flag, impossible parameter).
const (
	exitFailure = 1
	exitUsage   = 2
)

// exitInterrupted is the exit code of a command stopped by SIGINT or
// SIGTERM (128 + SIGINT, as a shell reports it).
const exitInterrupted = 130

// usageError marks errors caused by how the command was called; Field, if
// set, is the flag at fault (--json failures report it).
type usageError struct {
	err   error
	field string
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit code 2).
func usagef(format string, args ...any) error {
	return usageError{err: fmt.Errorf(format, args...)}
}

// exitCode is the process's exit code for err (nil: 0).
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ue):
		return exitUsage
	}
	return exitFailure
}

// flagInError finds the flag a pflag parse error names ("invalid argument
// "abc" for "--lr" flag", "unknown flag: --bogus").
var flagInError = regexp.MustCompile(`(?:for "(--[a-z0-9-]+)"|unknown flag: (--[a-z0-9-]+)|flag needs an argument: (--[a-z0-9-]+))`)

// jsonError is what a failing command prints on stdout under --json.
type jsonError struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
	Field string `json:"field,omitempty"`
}

// errorField is the flag a failure names, if any.
func errorField(err error) string {
	var ue usageError
	if errors.As(err, &ue) {
		return ue.field
	}
	return ""
}

// execute runs the command line args and reports a failure: the error on
// stderr ("rgnn: ..."), and with --json also {"error", "code", "field"} on
// stdout, so a program reading the JSON sees the failure too. It returns
// the exit code.
func execute(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	c, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	code := exitCode(err)
	msg := err.Error()
	if code == exitInterrupted && !strings.Contains(msg, "interrupted") {
		msg = "interrupted: " + msg
	}
	fmt.Fprintln(stderr, "rgnn:", msg)
	if jsonWanted(c, args) {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(jsonError{Error: msg, Code: code, Field: errorField(err)})
	}
	return code
}

// jsonWanted reports whether --json was given to the command that ran (or
// appears among the arguments, when parsing the flags failed).
func jsonWanted(c *cobra.Command, args []string) bool {
	if c != nil {
		if f := c.Flags().Lookup("json"); f != nil && f.Changed {
			v, _ := c.Flags().GetBool("json")
			return v
		}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "rgnn",
		Short: "Reliable graph neural networks via robust aggregation",
		Long: `rgnn trains graph neural networks whose message passing uses robust
aggregations (the Soft Medoid of Geisler, Zügner and Günnemann, NeurIPS 2020,
and its baselines), attacks them with adversarial edits of the graph, certifies
them with randomized smoothing, and reproduces the paper's experiments.

Datasets are looked up in --data-dir, else $RGNN_DATA_DIR, else the user cache
directory, and downloaded (checksum verified) when missing.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("data-dir", "", "dataset directory (default $RGNN_DATA_DIR, else the user cache dir)")
	prof := &profiling{}
	prof.flags(root)
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return prof.start() }
	root.PersistentPostRunE = func(*cobra.Command, []string) error { return prof.stop() }
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		field := ""
		if m := flagInError.FindStringSubmatch(err.Error()); m != nil {
			field = m[1] + m[2] + m[3] // the one alternative that matched
		}
		return usageError{err: err, field: field}
	})
	root.AddCommand(subcommands()...)
	return root
}

func main() {
	memlimit.Set() // GOMEMLIMIT when the user sets none: 90% of the machine's memory
	if code := execute(os.Args[1:], os.Stdout, os.Stderr); code != 0 {
		os.Exit(code)
	}
}
