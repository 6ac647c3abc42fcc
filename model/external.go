package model

import "errors"

// externalSpecs registers the external model: a node classifier running in
// a process of the user's (package bridge), named by a command.
func externalSpecs() []Spec {
	return []Spec{{Name: "external", Label: "External model", Order: 1000, External: true,
		Description: "a model outside rgnn (PyTorch, PyG, ...) run as a process: --external-cmd (docs/BRIDGE.md)",
		Uses:        Uses{External: true},
		New: func(int, int, Options) (Model, error) {
			return nil, errors.New("the external model runs as a process: start it with its command (task.Model.ExternalCmd, --external-cmd)")
		}}}
}
