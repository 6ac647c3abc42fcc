package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
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

// newProgress returns a progress printer on stderr (nil when quiet): one
// updating line per stage with a bar, the count and an ETA, at most every
// 300 ms.
func newProgress(quiet bool) func(stage string, done, total int) {
	if quiet {
		return nil
	}
	var last, stageStart time.Time
	cur := ""
	return func(stage string, done, total int) {
		now := time.Now()
		if stage != cur {
			cur, stageStart, last = stage, now, time.Time{}
		}
		if done < total && now.Sub(last) < 300*time.Millisecond {
			return
		}
		last = now
		const width = 30
		frac := float64(done) / float64(max(total, 1))
		el := now.Sub(stageStart)
		eta := "?"
		if frac > 0 {
			eta = (time.Duration(float64(el)/frac) - el).Round(time.Second).String()
		}
		k := int(width * frac)
		fmt.Fprintf(progressWriter(), "\r\033[K%-14s [%s%s] %d/%d  eta %s", stage, strings.Repeat("=", k),
			strings.Repeat(" ", width-k), done, total, eta)
	}
}
