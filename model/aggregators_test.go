package model_test

import (
	"fmt"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
)

// testAggregators wires the robust models to package aggregate.
func testAggregators(name string, o model.Options) (autograd.Aggregator, error) {
	return nil, fmt.Errorf("aggregation %q not wired", name)
}
