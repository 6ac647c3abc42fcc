package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

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

var _ = fmt.Sprintf
