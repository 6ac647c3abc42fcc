"""Serve a node classifier to rgnn over stdin/stdout (docs/BRIDGE.md).

rgnn runs your script as a child process (``--model external --external-cmd
"python3 my_model.py"``) and sends it graphs; this module answers with your
model's logits. Only numpy is needed::

    import rgnn_bridge

    def predict(edge_index, x):
        # edge_index: int64 [2, E], both directions of every edge, nodes 0..N-1
        # x: float32 [N, F] node features
        return logits  # [N, C] (any float array), or int classes [N]

    rgnn_bridge.serve(predict)

Optionally ``fit(edge_index, x, labels, train, val)`` trains the model when
rgnn would train one (``rgnn eval``/``certify`` without weights, poisoning,
the robustness unit test); without it the model must come trained.
``predict_batch(graphs, x)`` (a list of edge_index arrays) replaces the loop
over a batch of sampled graphs. Print to stderr: stdout carries the
protocol (this module redirects ``print`` to stderr while it serves).
"""

import json
import sys
import traceback

import numpy as np

VERSION = 1


class _Stream:
    """A pipe as a plain object with read/write/readline: numpy then reads
    and writes through it instead of the file descriptor behind Python's
    buffer (np.fromfile on a buffered pipe loses the buffered bytes)."""

    def __init__(self, f):
        self._f = f

    def read(self, n=-1):
        return self._f.read(n)

    def readline(self):
        return self._f.readline()

    def write(self, b):
        return self._f.write(b)

    def flush(self):
        self._f.flush()


def _read_header(stream):
    line = stream.readline()
    if not line:
        return None
    return json.loads(line)


def _read_arrays(stream, header):
    return {name: np.lib.format.read_array(stream, allow_pickle=False) for name in header.get("arrays", [])}


def _send(stream, header, arrays=()):
    header = dict(header)
    header["arrays"] = [name for name, _ in arrays]
    stream.write((json.dumps(header) + "\n").encode())
    for _, a in arrays:
        np.lib.format.write_array(stream, np.ascontiguousarray(a), allow_pickle=False)
    stream.flush()


def _dense(index, value, nodes, features):
    x = np.zeros((nodes, features), dtype=np.float32)
    x[index[0], index[1]] = value
    return x


def serve(predict=None, fit=None, predict_batch=None, name=None, dense_features=True):
    """Answer rgnn's requests until it closes stdin.

    predict(edge_index, x) -> logits [N, C] or classes [N]
    fit(edge_index, x, labels, train, val) -> None (optional)
    predict_batch(list_of_edge_index, x_or_list) -> array [B, N, C] or [B, N]
    dense_features=False passes features as (index [2, nnz], value [nnz],
    shape) instead of a dense array.
    """
    if predict is None and predict_batch is None:
        raise ValueError("serve needs predict or predict_batch")
    inp, out = _Stream(sys.stdin.buffer), _Stream(sys.stdout.buffer)
    sys.stdout = sys.stderr  # the protocol owns stdout
    hello = _read_header(inp)
    if hello is None:
        return
    arrays = _read_arrays(inp, hello)
    if hello.get("type") != "hello" or hello.get("version") != VERSION:
        _send(out, {"type": "error", "message": "expected a version %d hello, got %r" % (VERSION, hello)})
        return
    nodes, features = hello["nodes"], hello["features"]

    def features_of(index, value):
        if dense_features:
            return _dense(index, value, nodes, features)
        return index, value, (nodes, features)

    base = features_of(arrays["x_index"], arrays["x_value"])
    ready = {"type": "ready", "version": VERSION, "fit": fit is not None}
    if name:
        ready["name"] = name
    _send(out, ready)
    while True:
        header = _read_header(inp)
        if header is None:
            return
        arrays = _read_arrays(inp, header)
        rid = header.get("id", 0)
        try:
            if header["type"] == "predict":
                ei, ptr = arrays["edge_index"], arrays["edge_ptr"]
                graphs = [ei[:, ptr[b]:ptr[b + 1]] for b in range(len(ptr) - 1)]
                xs = [base] * len(graphs)
                if "x_ptr" in arrays:
                    xi, xv, xp = arrays["x_index"], arrays["x_value"], arrays["x_ptr"]
                    xs = [features_of(xi[:, xp[b]:xp[b + 1]], xv[xp[b]:xp[b + 1]]) for b in range(len(graphs))]
                if predict_batch is not None:
                    res = np.asarray(predict_batch(graphs, xs[0] if "x_ptr" not in arrays else xs))
                else:
                    res = np.stack([np.asarray(predict(g, x)) for g, x in zip(graphs, xs)])
                if res.dtype.kind == "f":
                    _send(out, {"type": "logits", "id": rid}, [("logits", res.astype(np.float32))])
                else:
                    _send(out, {"type": "classes", "id": rid}, [("classes", res.astype(np.int64))])
            elif header["type"] == "fit":
                x = base
                if "x_index" in arrays:
                    x = features_of(arrays["x_index"], arrays["x_value"])
                fit(arrays["edge_index"], x, arrays["labels"], arrays["train"], arrays["val"])
                _send(out, {"type": "fitted", "id": rid})
            else:
                _send(out, {"type": "error", "id": rid, "message": "unknown request %r" % header["type"]})
        except Exception:
            traceback.print_exc(file=sys.stderr)
            _send(out, {"type": "error", "id": rid, "message": traceback.format_exc(limit=3)})
