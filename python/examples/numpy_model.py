"""A numpy node classifier served to rgnn (docs/BRIDGE.md).

    logits = (A + I) · (X · W)

with integer weights W [F, C]: loaded from --weights W.npz (key "weight"),
or fitted on the training nodes as the class centroids of their features,
round(100 · mean), when rgnn sends a fit. On binary features every value
is an integer, so the logits are exact and a Go computation of the same
formula gives the same predictions bit for bit (rgnn's tests rely on it).

    rgnn certify --dataset cora_ml --binary-attr --model external \\
        --external-cmd "python3 python/examples/numpy_model.py" --p-del 0.4 --samples 1000
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import rgnn_bridge  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--weights", help="an .npz with an integer array 'weight' [features, classes]")
parser.add_argument("--crash-after", type=int, default=-1, help="(tests) exit with status 3 after this many predictions")
args = parser.parse_args()

W = None
if args.weights:
    W = np.load(args.weights)["weight"].astype(np.float64)
calls = 0
cache = (None, None, None)  # (x, W, X·W): the feature transform of the last features


def fit(edge_index, x, labels, train, val):
    global W
    classes = int(labels.max()) + 1
    W = np.zeros((x.shape[1], classes))
    for c in range(classes):
        nodes = train[labels[train] == c]
        if len(nodes):
            W[:, c] = np.round(100 * x[nodes].astype(np.float64).sum(0) / len(nodes))


def predict(edge_index, x):
    global calls, cache
    calls += 1
    if 0 <= args.crash_after < calls:
        sys.exit(3)
    if W is None:
        raise RuntimeError("no weights: give --weights or let rgnn fit the model")
    if cache[0] is x and cache[1] is W:  # the same features (edge smoothing): X·W once
        h = cache[2]
    else:
        h = x.astype(np.float64) @ W
        cache = (x, W, h)
    out = h.copy()  # the self loop
    np.add.at(out, edge_index[1], h[edge_index[0]])
    return out


rgnn_bridge.serve(predict, fit=fit, name="numpy (A+I)XW")
