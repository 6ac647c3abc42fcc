// Package experiments holds the shipped experiment files (the paper's
// evaluation as grids, plus try-outs), embedded so that `rgnn reproduce
// --paper` runs the very files a user reads and runs with `rgnn run`.
package experiments

import (
	"embed"
)

//go:embed *.yaml
var files embed.FS

// Read returns the source of a shipped experiment file, e.g. "nettack.yaml".
func Read(name string) ([]byte, error) { return files.ReadFile(name) }

// Paper lists the files that make up the paper's evaluation, in the order
// `rgnn reproduce --paper` runs them (cheap ones first): the runtime table,
// the bias curves, Figure 1, the certificates, the temperature sweep, the
// global attacks, Nettack and Metattack.
func Paper() []string {
	return []string{"runtime.yaml", "bias.yaml", "figure1.yaml", "certification.yaml", "temperature.yaml",
		"global_attacks.yaml", "nettack.yaml", "metattack.yaml"}
}
