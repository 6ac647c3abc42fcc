"""Serve a trained PyTorch Geometric model to rgnn (docs/BRIDGE.md).

Not run in rgnn's CI (it needs torch and torch_geometric). Train and save
your model as usual, then:

    rgnn certify --dataset cora_ml --model external \\
        --external-cmd "python3 python/examples/pyg_model.py --checkpoint gcn.pt" --p-del 0.4
    rgnn attack --dataset cora_ml --attack prbcd --epsilon 0.1 --victim external \\
        --external-cmd "python3 python/examples/pyg_model.py --checkpoint gcn.pt"
"""

import argparse
import os
import sys

import numpy as np
import torch
from torch_geometric.nn import GCNConv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import rgnn_bridge  # noqa: E402


class GCN(torch.nn.Module):
    def __init__(self, features, hidden, classes):
        super().__init__()
        self.conv1 = GCNConv(features, hidden)
        self.conv2 = GCNConv(hidden, classes)

    def forward(self, x, edge_index):
        x = torch.relu(self.conv1(x, edge_index))
        return self.conv2(x, edge_index)


parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint", required=True, help="a state_dict saved with torch.save(model.state_dict(), path)")
parser.add_argument("--hidden", type=int, default=64)
args = parser.parse_args()

device = "cuda" if torch.cuda.is_available() else "cpu"
model = None


@torch.no_grad()
def predict_batch(graphs, x):
    global model
    x = torch.as_tensor(x, device=device)
    if model is None:
        state = torch.load(args.checkpoint, map_location=device)
        classes = state["conv2.bias"].shape[0]
        model = GCN(x.shape[1], args.hidden, classes).to(device).eval()
        model.load_state_dict(state)
    # One disjoint union of the batch: node ids of graph b offset by b·N.
    n = x.shape[0]
    ei = torch.cat([torch.as_tensor(g, device=device) + b * n for b, g in enumerate(graphs)], dim=1)
    logits = model(x.repeat(len(graphs), 1), ei)
    return logits.view(len(graphs), n, -1).cpu().numpy()


rgnn_bridge.serve(predict_batch=predict_batch, name="PyG GCN")
