// Command rgnn trains, attacks and certifies graph neural networks with
// robust aggregations (Soft Medoid and friends). Run `rgnn --help` for the
// subcommands; every subcommand has --help and --json.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/internal/memlimit"
)

// Exit codes: 0 success, 1 runtime failure (bad file, diverged training,
// ...), 2 usage error (unknown flag, impossible parameter).
const (
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks errors caused by how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit code 2).
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(subcommands()...)
	return root
}

func main() {
	memlimit.Set() // GOMEMLIMIT when the user sets none: 90% of the machine's memory
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "rgnn:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(exitUsage)
		}
		os.Exit(exitFailure)
	}
}
