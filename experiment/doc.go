// Package experiment runs experiment grids and keeps their results.
//
// An experiment file (YAML, SEML-style: fixed and grid blocks, named
// sub-blocks per model; see [Experiment]) is parsed by [Parse] or
// [ParseFile] — a mistake is a [*FileError] with its line — and expands
// into runs ([Experiment.Expand]; [Experiment.Set] replaces a parameter
// everywhere, as `rgnn run --set` does). Each run has a task kind —
// train, eval, certify, perturb, attack, targeted, bias, messages,
// registered in [DefaultKinds] — whose parameters are the fields of a
// typed spec of package task: the run's values are decoded into the spec
// ([Kind.Decode]), defaulted and validated there, and the spec is what
// runs. A run is keyed by the hash of its kind and canonical parameters
// (testdata/keys.golden pins the key of every shipped run).
//
// [Execute] skips runs whose key is in the store (package
// experiment/store), enqueues the rest in the store's queue and runs them
// on a worker pool; each worker claims a run under a lease renewed by a
// heartbeat and commits its result in its own transaction, so a grid can
// be stopped and resumed at any point, and several processes ([Execute] of
// the same file, [Work] for `rgnn worker`, Slurm array tasks from
// [Slurm.Script]) share one grid through the queue. [ExecuteAll] runs
// several files as one grid. Dependencies are resolved through the store
// ([Env.Require], [Env.Trained]): a certify or attack run takes the weights
// of the train run with the same parameters, training it first (once, even
// with concurrent workers) if it is missing, and an artifact the store
// lacks is recomputed and checked against its recorded hash.
//
// Long runs share and keep their work: a certify run claims the queued
// certify runs that draw the same samples and runs them as one group
// (task.SampleGroup); certify runs checkpoint their votes and incremental
// perturbations (FGSM, Metattack) their flips under <artifacts>/partial, and
// a perturb run continues from the stored run of the largest smaller
// budget. [NewStatus] reports a grid's state (`rgnn run --status`), with a
// time left summed from the stored times of runs like those still to do;
// [NewPlan] lists its runs (`--dry-run`).
//
// The embedded experiments of `rgnn reproduce` — the quick or full
// reproduction ([Reproduction]) and the paper's shipped files on one
// dataset ([PaperReproduction]) — are read here; package reproduce runs
// them and renders their report.
//
// The files by job: file*.go the experiment file (parsing, checks with
// lines, --set, the shipped files); kind*.go the task kinds; run*.go the
// local runner (the environment a run sees, certify groups, checkpoints,
// continued perturbations); cluster*.go what several processes share
// (claims and leases, Slurm array scripts); status*.go --status, --dry-run
// and the time left.
package experiment
