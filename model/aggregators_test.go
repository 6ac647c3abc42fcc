package model_test

import (
	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
)

// testAggregators wires the robust models to package aggregate.
func testAggregators(name string, o model.Options) (autograd.Aggregator, error) {
	return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
}
