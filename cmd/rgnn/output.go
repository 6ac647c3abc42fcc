package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// addJSONFlag adds the --json flag every subcommand has.
func addJSONFlag(c *cobra.Command) {
	c.Flags().Bool("json", false, "print machine-readable JSON on stdout instead of text")
}

// wantJSON reports whether --json was given.
func wantJSON(c *cobra.Command) bool {
	v, _ := c.Flags().GetBool("json")
	return v
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// progressWriter is where progress goes: stderr, so stdout stays clean for
// --json consumers.
func progressWriter() io.Writer { return os.Stderr }

// dataDir returns the --data-dir flag (empty: use the default lookup).
func dataDir(c *cobra.Command) string {
	v, _ := c.Flags().GetString("data-dir")
	return v
}

// stderrTerminal reports whether stderr is a terminal. Progress then
// updates one line in place; otherwise (a log file, a pipe) it is written
// as plain lines, without carriage returns or escape codes.
func stderrTerminal() bool {
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	_, err := unix.IoctlGetTermios(int(os.Stderr.Fd()), unix.TCGETS)
	return err == nil
}

// clearLine erases an updating progress line on a terminal (nothing
// otherwise).
func clearLine() {
	if stderrTerminal() {
		fmt.Fprint(progressWriter(), "\r\033[K")
	}
}

// lineWriter writes whole lines to stderr, after erasing a progress line
// on a terminal.
type lineWriter struct{}

func (lineWriter) Write(p []byte) (int, error) {
	clearLine()
	return progressWriter().Write(p)
}

// plainEvery is how often plain-line progress prints a line.
const plainEvery = 10 * time.Second

// newProgress returns a progress printer on stderr (nil when quiet): on a
// terminal one updating line per stage with a bar, the count and an ETA,
// at most every 300 ms; otherwise a plain line when a stage starts, every
// 10 s and when it ends.
func newProgress(quiet bool) func(stage string, done, total int) {
	if quiet {
		return nil
	}
	return progressTo(progressWriter(), stderrTerminal())
}

// progressTo is newProgress writing to w, updating a line in place (tty)
// or in plain lines.
func progressTo(w io.Writer, tty bool) func(stage string, done, total int) {
	var last, stageStart time.Time
	cur := ""
	return func(stage string, done, total int) {
		now := time.Now()
		started := stage != cur
		if started {
			cur, stageStart, last = stage, now, time.Time{}
		}
		every := 300 * time.Millisecond
		if !tty {
			every = plainEvery
		}
		if !started && done < total && now.Sub(last) < every {
			return
		}
		last = now
		frac := float64(done) / float64(max(total, 1))
		el := now.Sub(stageStart)
		eta := "?"
		if frac > 0 {
			eta = (time.Duration(float64(el)/frac) - el).Round(time.Second).String()
		}
		if !tty {
			fmt.Fprintf(w, "%s %d/%d  elapsed %s  eta %s\n", stage, done, total, el.Round(time.Second), eta)
			return
		}
		const width = 30
		k := int(width * frac)
		fmt.Fprintf(w, "\r\033[K%-14s [%s%s] %d/%d  eta %s", stage, strings.Repeat("=", k),
			strings.Repeat(" ", width-k), done, total, eta)
	}
}
