// Package experiment runs experiment grids and keeps their results.
//
// An experiment file (YAML, SEML-style: fixed and grid blocks, named
// sub-blocks per model; see [Experiment]) expands into runs. Each run has a
// task kind — train, eval, certify, attack, one file each (kind_*.go),
// registered in [DefaultKinds] — and is keyed by the canonical hash of its
// kind and parameters. [Execute] skips runs whose key is in the store
// (package experiment/store), runs the rest on a worker pool and commits
// each result in its own transaction, so it can be stopped and resumed at
// any point. Dependencies are resolved through the store, not run ids: a
// certify or attack run takes the weights of the train result with the same
// model and training parameters, training it first (once, even with
// concurrent workers) if it is missing.
//
// [Reproduction] is the embedded experiment behind `rgnn reproduce`
// (package reproduce runs it and writes its report).
package experiment
