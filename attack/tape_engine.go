package attack

import (
	"fmt"

	"github.com/rgnn/rgnn/model"
)

// NewTapeEngine would differentiate a model through its own preprocessing
// with the autograd tape (adaptive attacks on the robust models). Not
// implemented yet: only the gcn engine exists.
func NewTapeEngine(m model.Model, _ *Problem) (Engine, error) {
	return nil, fmt.Errorf("attack: adaptive gradients through %s are not implemented yet (only gcn)", m.Name())
}
