// Package experiment runs the paper's experiments end to end and keeps
// their results: today the `reproduce` pipeline (train → evaluate → write a
// report); grids, the results store and resumable runs grow here.
package experiment
