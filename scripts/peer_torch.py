#!/usr/bin/python3
"""The PyTorch side of scripts/peer-bench (start from ../shared/tools/peer_torch.py): the reference's own Soft Medoid (rgnn/means.py from
sigeisler/reliable_gnn_via_robust_aggregation, read from a fetched snapshot at run time, never
committed) and a GCN epoch in PyTorch on this CPU. Prints one JSON object with median ms.

usage: peer_torch.py REFERENCE_SRC_DIR DATASETS_DIR [--threads 1] [--reps 20] [--sparse]
REFERENCE_SRC_DIR holds the reference's rgnn/ folder (from a fetched snapshot of
sigeisler/reliable_gnn_via_robust_aggregation: git --git-dir=<snapshot> archive HEAD rgnn | tar -x).
Needs Debian's python3-torch python3-scipy python3-numpy python3-numba; run with /usr/bin/python3 and
OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=NUMBA_NUM_THREADS=1 for a one-thread comparison
(numpy's inverse ignores torch.set_num_threads). Time rgnn's Go benchmarks in the same minutes,
alternating rounds, and compare per round.
"""
import json, os, sys, time, statistics
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get('RGNN_PEER_STUBS') or os.path.join(here, '..', '..', 'shared', 'tools', 'peer_stubs'))
src, data = sys.argv[1], sys.argv[2]
threads = int(sys.argv[sys.argv.index('--threads') + 1]) if '--threads' in sys.argv else 2
reps = int(sys.argv[sys.argv.index('--reps') + 1]) if '--reps' in sys.argv else 20
sys.path.insert(0, src)
import numpy as np, scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
import torch
torch.set_num_threads(threads)
import importlib.util
spec = importlib.util.spec_from_file_location('ref_means', os.path.join(src, 'rgnn', 'means.py'))
means = importlib.util.module_from_spec(spec); spec.loader.exec_module(means)

def load(path):
    d = dict(np.load(path, allow_pickle=True))
    A = sp.csr_matrix((d['adj_matrix.data'], d['adj_matrix.indices'], d['adj_matrix.indptr']), shape=d['adj_matrix.shape'])
    X = sp.csr_matrix((d['attr_matrix.data'], d['attr_matrix.indices'], d['attr_matrix.indptr']), shape=d['attr_matrix.shape'])
    A.data[:] = 1; A = ((A + A.T) > 0).astype(np.float32); A.setdiag(0); A.eliminate_zeros()
    _, comp = connected_components(A); keep = np.sort(np.nonzero(comp == np.argmax(np.bincount(comp)))[0])
    return A[keep][:, keep].tocsr(), X[keep].tocsr().astype(np.float32), d['labels'][keep].astype(np.int64)

def ppr_topk(A, alpha=0.15, k=64):
    n = A.shape[0]; At = A.toarray().astype(np.float32) + np.eye(n, dtype=np.float32)
    dt = 1 / np.sqrt(At.sum(1)); Tm = dt[:, None] * At * dt[None, :]
    S = alpha * np.linalg.inv(np.eye(n, dtype=np.float32) - (1 - alpha) * Tm)
    idx = np.argpartition(-S, k - 1, axis=1)[:, :k]; rows = np.arange(n)[:, None]
    v = S[rows, idx]; v = v / v.sum(1, keepdims=True)
    out = sp.csr_matrix((v.ravel(), (np.repeat(np.arange(n), k), idx.ravel())), shape=(n, n))
    return out

def gcn_norm(W):
    W = W.tolil(); d = W.diagonal(); d[d == 0] = 1; W.setdiag(d); W = W.tocsr()
    deg = np.asarray(W.sum(0)).ravel(); dis = np.where(deg > 0, deg ** -0.5, 0)
    return sp.diags(dis) @ W @ sp.diags(dis)

def to_torch(M):
    M = M.tocoo(); return torch.sparse_coo_tensor(np.vstack((M.row, M.col)), M.data.astype(np.float32), M.shape).coalesce()

CPU = {}
def timeit(f, reps):
    f(); ts = []; c0 = time.process_time()
    for _ in range(reps):
        t = time.perf_counter(); f(); ts.append((time.perf_counter() - t) * 1e3)
    CPU['last'] = (time.process_time() - c0) * 1e3 / reps
    return statistics.median(ts)

A, X, y = load(os.path.join(data, 'cora_ml.npz'))
n = A.shape[0]
res = {'torch': torch.__version__, 'threads': threads, 'n': n}
t = time.perf_counter(); c0 = time.process_time(); S = gcn_norm(ppr_topk(A)); res['gdc_exact_preprocessing_ms'] = (time.perf_counter() - t) * 1e3; res['gdc_exact_preprocessing_cpu'] = (time.process_time() - c0) * 1e3
As = to_torch(S)
res['softmedoid_input_nnz_per_row'] = float(S.nnz) / n
uspec = importlib.util.spec_from_file_location('ref_utils', os.path.join(src, 'rgnn', 'utils.py'))
rutils = importlib.util.module_from_spec(uspec); uspec.loader.exec_module(rutils)
Ad = torch.from_numpy(A.toarray().astype(np.float32))
def ref_ppr(): rutils.get_ppr_matrix(Ad.clone(), alpha=0.15, k=64, normalize_adjacency_matrix=True)
res['gdc_ref_get_ppr_matrix_ms'] = timeit(ref_ppr, 1); res['gdc_ref_get_ppr_matrix_ms_cpu_mean'] = CPU['last']
g = torch.Generator().manual_seed(0)
H = torch.randn(n, 64, generator=g, requires_grad=True)
res['softmedoid_k64_d64_fwd_ms'] = timeit(lambda: means.soft_weighted_medoid_k_neighborhood(As, H, k=64, temperature=0.5), reps); res['softmedoid_k64_d64_fwd_ms_cpu_mean'] = CPU['last']
def fb():
    out = means.soft_weighted_medoid_k_neighborhood(As, H, k=64, temperature=0.5); out.sum().backward()
res['softmedoid_k64_d64_fwdbwd_ms'] = timeit(fb, reps); res['softmedoid_k64_d64_fwdbwd_ms_cpu_mean'] = CPU['last']
# sparse path (numba top-k) as used for graphs with n >= 5000
if '--sparse' in sys.argv: res['softmedoid_sparse_path_fwdbwd_ms'] = timeit(lambda: means.soft_weighted_medoid_k_neighborhood(As, H, k=64, temperature=0.5, threshold_for_dense_if_cpu=0).sum().backward(), max(3, reps // 4)); res['softmedoid_sparse_path_fwdbwd_ms_cpu_mean'] = CPU['last']
# one training epoch of a 2-layer GCN (sparse X, sparse normalized A), Adam
Xt = to_torch(X); An = to_torch(gcn_norm(A)); yt = torch.from_numpy(y)
W1 = torch.nn.Parameter(torch.randn(X.shape[1], 64) * 0.01); W2 = torch.nn.Parameter(torch.randn(64, int(y.max()) + 1) * 0.01)
opt = torch.optim.Adam([W1, W2], lr=0.01, weight_decay=1e-3)
idx = torch.arange(140)
def gcn_epoch():
    opt.zero_grad(); h = torch.relu(torch.sparse.mm(An, torch.sparse.mm(Xt, W1)))
    h = torch.nn.functional.dropout(h, 0.5, True); o = torch.sparse.mm(An, h @ W2)
    torch.nn.functional.cross_entropy(o[idx], yt[idx]).backward(); opt.step()
res['gcn_epoch_ms'] = timeit(gcn_epoch, reps * 5); res['gcn_epoch_ms_cpu_mean'] = CPU['last']
# one training epoch of SM GDC (T=0.5) with the reference aggregation
V1 = torch.nn.Parameter(torch.randn(X.shape[1], 64) * 0.01); V2 = torch.nn.Parameter(torch.randn(64, int(y.max()) + 1) * 0.01)
opt2 = torch.optim.Adam([V1, V2], lr=0.01, weight_decay=1e-3)
def sm_epoch():
    opt2.zero_grad(); h = torch.relu(means.soft_weighted_medoid_k_neighborhood(As, torch.sparse.mm(Xt, V1), k=64, temperature=0.5))
    h = torch.nn.functional.dropout(h, 0.5, True)
    o = means.soft_weighted_medoid_k_neighborhood(As, h @ V2, k=64, temperature=0.5)
    torch.nn.functional.cross_entropy(o[idx], yt[idx]).backward(); opt2.step()
res['sm_gdc_epoch_ms'] = timeit(sm_epoch, reps); res['sm_gdc_epoch_ms_cpu_mean'] = CPU['last']
print(json.dumps(res))
