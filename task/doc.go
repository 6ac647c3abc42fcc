// Package task holds rgnn's pipelines, once: a typed spec per task and the
// Run that executes it, which every front end — the rgnn command, the
// experiment kinds, the worker, the Go API — calls instead of wiring the
// libraries itself.
//
// The specs are [Train], [Eval], [Certify], [Perturb] (a transfer
// perturbation, computed once on a surrogate), [Attack] (victims evaluated
// on a perturbation, or attacked themselves), [Targeted] (a targeted attack
// at a model's own targets), [Bias] and [Messages]. They are structs of
// typed fields built from shared parts ([Data], [Model], [Fit], [GraphFile],
// [AttackParams]), each field tagged with its parameter name, flag name and
// one help text. A spec's Defaults() is the only place its defaults live and
// its Validate() the only place its values are checked; a bad value is a
// [*FieldError] naming the parameter and the value. Where a model parameter
// applies is declared once, by its field's uses:"Fact" tag naming a
// model.Spec.Uses fact, and [Applies] is the rule every layer asks: a
// parameter the model does not use (the temperature of a GCN) is neither
// validated nor given to the model nor part of a run's identity.
// [Attack.Applies] says which parameters an attack takes. Defaults are the
// constants of the libraries (aggregate.DefaultTemperature, graph.DefaultK,
// certify.DefaultSamples); ranges are checked here, once.
//
// [Fields] lists a spec's parameters by reflection over the tags; the CLI
// makes one flag of each field and experiment files set them by name, so
// both front ends share defaults, help and errors. Fields tagged cli:"only"
// (file paths, the split seed, mini-batch size) are flags without an
// experiment parameter; key:"omitdefault" leaves a parameter added later out
// of a run's key while it is at its default, so stored runs keep their keys.
//
// Every Run takes its spec and a *data.Problem (the one input type: graph,
// features, labels, split; [Loader] loads each dataset once and hands out
// problems that share it) and returns a typed result whose Metrics() is the
// store's form. [Hooks] carry progress, training epochs and the checkpoints
// that keep long work resumable (a certificate's votes so far, an
// incremental attack's flips). [SampleGroup] classifies the same sampled
// graphs with several models, each graph drawn and diffused once, with the
// votes each model would get alone. [Models] is the model registry with the
// robust models wired to package aggregate — the one place the two meet.
package task
