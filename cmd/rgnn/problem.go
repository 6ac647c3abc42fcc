package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/task"
)

// loadProblem loads the dataset of d (--dataset, --binary-attr) with the
// split of splitSeed; spec names the flags in errors.
func loadProblem(c *cobra.Command, spec any, d task.Data, splitSeed int) (*data.Problem, error) {
	l := &task.Loader{Dir: dataDir(c), Progress: progressWriter(), Report: progressWriter()}
	p, err := l.Problem(c.Context(), d, splitSeed)
	return p, specErr(spec, err)
}

// interruptible returns a context cancelled by Ctrl-C or SIGTERM (long work
// stops cleanly; a resumable run keeps what it finished).
func interruptible(c *cobra.Command) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM) // Execute sets the context
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the process at once
	}()
	return ctx, stop
}

// epochPrinter prints training progress on stderr (nothing when quiet): on
// a terminal one updating line at most twice a second, which done clears;
// otherwise a plain line every 10 s.
func epochPrinter(quiet bool) (h task.Hooks, done func()) {
	if quiet {
		return task.Hooks{}, func() {}
	}
	tty := stderrTerminal()
	every := 500 * time.Millisecond
	if !tty {
		every = plainEvery
	}
	last := time.Now()
	return task.Hooks{Epoch: func(stage string, epoch int, tl, vl float64) {
			if time.Since(last) > every {
				if tty {
					fmt.Fprintf(progressWriter(), "\repoch %4d  train loss %.4f  val loss %.4f", epoch, tl, vl)
				} else {
					fmt.Fprintf(progressWriter(), "%s: epoch %d  train loss %.4f  val loss %.4f\n", stage, epoch, tl, vl)
				}
				last = time.Now()
			}
		}, Notice: func(msg string) { fmt.Fprintln(lineWriter{}, msg) }},
		clearLine
}
