// Package serve is rgnn's online server (`rgnn serve`): a trained model
// answering predictions over HTTP/JSON while the graph changes, with
// background randomized-smoothing certificates and alerts for the
// predictions an adversary's recent edits could flip.
//
// It sits above package task, whose specs and pipelines it runs (the model
// and its weights as task.Eval loads them, the certificates as
// task.Certify samples them), and below the front end (cmd/rgnn binds the
// flags of task.Serve and Options and calls Run).
//
// Durability: every accepted update is appended to a write-ahead log in
// the state folder (CRC-checked records, fsync before the acknowledgement)
// and replayed on start; a record torn by a crash was never acknowledged
// and is cut off. A graph version is the number of updates applied; the
// predictions of version N reflect the first N updates.
//
// Updates reach the logits incrementally where the model allows: the PPRGo
// models recompute the push-PPR rows an edit reaches (graph.DynamicPPR) and
// the logits of those rows only; GDC models with a push PPR recompute the
// rows, then the layers — with a robust aggregation lazily: a version is
// served before its layers run, each prediction computing its own nodes,
// and the whole table follows once updates pause; every other model (exact GDC included) recomputes
// everything in the background, while the last consistent version is
// served. Either way the served logits equal a full computation on the
// same graph.
//
// Limits: request bodies (413 beyond), header/read/write timeouts,
// requests in flight (503 with Retry-After beyond), bounded waits for a
// version; an optional bearer token on every endpoint but /v1/health; a
// Prometheus registry of its own at /metrics. The API is docs/openapi.yaml.
package serve
