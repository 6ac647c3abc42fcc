package main

import "github.com/spf13/cobra"

// subcommands lists every subcommand; each lives in its own file.
// Add one line here per new command.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		newTrainCmd(),
		newEvalCmd(),
		newDataCmd(),
		newReproduceCmd(),
		newCertifyCmd(),
		newRunCmd(),
		newResultsCmd(),
		newReportCmd(),
		newBenchCmd(),
		newBiasCmd(),
		newMessagesCmd(),
		newAttackCmd(),
		newUnitTestCmd(),
		newWorkerCmd(),
		newServeCmd(),
	}
}
