// Package bridge runs a node classifier written outside rgnn — a PyTorch /
// PyG model, or anything else that reads stdin and writes stdout — as a
// child process, and talks to it with a small protocol (docs/BRIDGE.md):
// every message is one JSON header line followed by the arrays it lists,
// each a .npy array (numpy's np.lib.format, no pickle).
//
//	rgnn → model   hello    nodes, features, classes; arrays x_index [2, nnz], x_value [nnz]
//	model → rgnn   ready    optionally "fit": true, "name"
//	rgnn → model   predict  id, graphs B; edge_index [2, E], edge_ptr [B+1]
//	                        (+ x_index, x_value, x_ptr [B+1] when features differ per graph)
//	model → rgnn   logits   id; logits [B, N, C]   (or classes [B, N])
//	rgnn → model   fit      id; edge_index, labels [N], train, val (node ids)
//	model → rgnn   fitted   id
//	model → rgnn   error    id, message
//
// rgnn ends the session by closing the child's stdin; the child exits.
// A Client serialises requests (it is safe for concurrent use), bounds each
// by a timeout, passes the child's stderr through, and turns a crash, a
// timeout or a garbled reply into an error naming the command; the child is
// always reaped (Close, or the first failure). Model adapts a Client to
// model.Model (model.Outside) so rgnn's evaluation paths run it like a Go
// model.
package bridge
