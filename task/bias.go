package task

import (
	"context"
	"strings"

	"github.com/rgnn/rgnn/bias"
)

// Bias is the empirical bias curves of the location estimators (the
// paper's Figure 2) as an experiment run: bias.Config with an int seed.
type Bias struct {
	bias.Config
	// Seed seeds the samples and perturbations.
	Seed int `param:"seed" help:"random seed"`
}

// Defaults returns the spec with every parameter at its default.
func (Bias) Defaults() Bias { return Bias{Config: bias.Config{}.Defaults()} }

// Validate checks every parameter.
func (b Bias) Validate() error {
	if err := validSeed("seed", b.Seed); err != nil {
		return err
	}
	if err := b.Config.Validate(); err != nil {
		// bias's errors read "<param> <value>: <problem>".
		param, rest, _ := strings.Cut(err.Error(), " ")
		value, msg, ok := strings.Cut(rest, ": ")
		if !ok {
			value, msg = "", rest
		}
		return &FieldError{Param: strings.TrimSuffix(param, ":"), Value: value, Msg: msg}
	}
	return nil
}

// Run computes the curves.
func (b Bias) Run(ctx context.Context) (*bias.Result, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	c := b.Config
	c.Seed = uint64(b.Seed)
	return bias.Run(ctx, c)
}
