#!/usr/bin/python3
"""PyTorch baseline of one Bayesian GPLVM minibatch step (the same maths as gplvm-hpc's bayesian_gplvm).

The uncollapsed bound of docs/math/sparse_gplvm.md (section 3) with explicit q(u) = N(m_d, L_S L_S^T),
evaluated at N/B times the batch's statistics; EQ-ARD kernel (log-parametrised), its closed-form
Psi-statistics (docs/math/kernels.md) in log space, Psi2's B x M^2 exponent as one matrix product
of rank 2Q + 2 (--naive-psi2: by broadcasting, ~10x slower); Gaussian
latents q(x_n) = N(mu_n, diag s_n) from a mean encoder and a softplus variance encoder
D -> 512 -> 256 -> Q ReLU (PyTorch default init), or free latents (mean and log variance per row);
fp64; autograd backward; torch.optim.Adam on every parameter. Prints one JSON line with the median
ms/step.

usage: /usr/bin/python3 bench/pytorch_bayesian_gplvm.py [--batch 1024] [--inducing 100] [--dim 784]
       [--latent 2] [--steps 12] [--warmup 3] [--threads 1] [--free] [--naive-psi2]
       /usr/bin/python3 bench/pytorch_bayesian_gplvm.py --check FILE
--check: read the inputs, value and gradients that `bench_bayesian_gplvm_step --check-out FILE` wrote,
recompute the value and every gradient with this file's bound and autograd, print the relative
differences as JSON.
"""
import argparse
import json
import math
import statistics
import time

import numpy as np
import torch

NAIVE_PSI2 = False  # --naive-psi2

def encoder(d, q, softplus=False):
    layers = [torch.nn.Linear(d, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256), torch.nn.ReLU(),
              torch.nn.Linear(256, q)]
    if softplus:
        layers.append(torch.nn.Softplus())
    return torch.nn.Sequential(*layers)


def eq_ard(x1, x2, log_theta, log_l):
    s1, s2 = x1 / log_l.exp(), x2 / log_l.exp()
    sq = (s1 * s1).sum(1)[:, None] + (s2 * s2).sum(1)[None, :] - 2.0 * s1 @ s2.T
    return log_theta.exp() * torch.exp(-0.5 * sq.clamp_min(0.0))


def psi_statistics(mu, s, z, log_theta, log_l):
    """psi0 (scalar), psi1 (B x M), psi2 (M x M summed over the rows), each entry one exponent."""
    b, q_dim = mu.shape
    l2 = (2.0 * log_l).exp()
    psi0 = b * log_theta.exp()
    c = l2 + s                                                    # B x Q
    e1 = (log_theta - 0.5 * torch.log1p(s / l2).sum(1))[:, None]  # B x 1
    for q in range(q_dim):
        e1 = e1 - (mu[:, q, None] - z[None, :, q]) ** 2 / (2.0 * c[:, q, None])
    psi1 = e1.exp()
    c2 = l2 + 2.0 * s
    spread = -0.25 * (((z[:, None, :] - z[None, :, :]) ** 2) / l2).sum(-1)  # M x M
    log_pre2 = 2.0 * log_theta - 0.5 * torch.log1p(2.0 * s / l2).sum(1)    # B
    zbar = 0.5 * (z[:, None, :] + z[None, :, :])                            # M x M x Q
    if NAIVE_PSI2:  # broadcast: ~4 B x M x M temporaries per latent dimension
        e2 = log_pre2[:, None, None] + spread[None]
        for q in range(q_dim):
            e2 = e2 - (mu[:, q, None, None] - zbar[None, :, :, q]) ** 2 / c2[:, q, None, None]
        return psi0, psi1, e2.exp().sum(0)
    # -(mu - zbar)^2 / c2 expanded, so that the B x M^2 exponent is ONE product of rank 2Q + 2:
    #   e2[n, mm'] = [2 mu/c2, -1/c2, log_pre2 - sum_q mu^2/c2, 1]_n . [zbar, zbar^2, 1, spread]_mm'
    m = z.shape[0]
    u = torch.cat([2.0 * mu / c2, -1.0 / c2, (log_pre2 - (mu * mu / c2).sum(1))[:, None],
                   torch.ones(b, 1, dtype=mu.dtype)], 1)
    v = torch.cat([zbar.reshape(m * m, q_dim).T, (zbar * zbar).reshape(m * m, q_dim).T,
                   torch.ones(1, m * m, dtype=mu.dtype), spread.reshape(1, m * m)], 0)
    psi2 = (u @ v).exp().sum(0).reshape(m, m)
    return psi0, psi1, psi2


def uncollapsed_bound(mu, s, y, z, log_theta, log_l, log_noise, q_mean, q_scale, scale, jitter=0.0):
    """U at scale x the batch's statistics (the value gplvm's SparseGplvmModel::evaluate_rows returns)."""
    b, d = y.shape
    m = z.shape[0]
    psi0, psi1, psi2 = psi_statistics(mu, s, z, log_theta, log_l)
    psi0, p, psi2 = scale * psi0, scale * (psi1.T @ y), scale * psi2
    n, data_norm = scale * b, scale * (y * y).sum()
    kl_x = scale * 0.5 * (mu * mu + s - s.log() - 1.0).sum()
    noise = log_noise.exp()
    beta = 1.0 / noise
    k = eq_ard(z, z, log_theta, log_l)
    if jitter:
        k = k + jitter * torch.eye(m, dtype=k.dtype)
    chol = torch.linalg.cholesky(k)
    solve = lambda rhs: torch.linalg.solve_triangular(chol, rhs, upper=False)
    c = solve(p)
    phi = solve(solve(psi2).T)
    mt = solve(q_mean)
    r = solve(q_scale)
    sigma = mt @ mt.T + d * (r @ r.T)
    cross = (c * mt).sum()
    quadratic = (phi * sigma).sum()
    residual = psi0 - torch.diagonal(phi).sum()
    log_ratio = torch.log(torch.diagonal(r)).sum()
    kl_u = 0.5 * (d * (r * r).sum() + (mt * mt).sum() - d * m) - d * log_ratio
    return (-0.5 * n * d * torch.log(2.0 * math.pi * noise) - 0.5 * beta * data_norm + beta * cross
            - 0.5 * beta * quadratic - 0.5 * beta * d * residual - kl_x - kl_u)


def lower_factor(strict, log_diag):
    """L_S in gplvm's coordinates: strict lower triangle free, diagonal as logarithms."""
    return torch.tril(strict, -1) + torch.diag(log_diag.exp())


def check(path):
    raw = open(path, "rb").read()
    b, d, q, m = (int(v) for v in np.frombuffer(raw[:32], dtype="<i8"))
    vals = np.frombuffer(raw[32:], dtype="<f8")
    pos = 0

    def take(count, shape=None, order="C"):
        nonlocal pos
        a = vals[pos:pos + count].copy()
        pos += count
        if shape is not None:
            a = a.reshape(shape, order=order)
        return torch.tensor(a, dtype=torch.float64)

    scale = float(take(1)[0])
    z = take(m * q, (m, q), "F")
    hyper = take(1 + q)
    log_noise = take(1)[0]
    q_mean = take(m * d, (m, d), "F")
    q_scale = take(m * m, (m, m), "F")
    mu = take(b * q, (b, q))
    log_s = take(b * q, (b, q))
    y = take(b * d, (b, d))
    value = float(take(1)[0])
    grads = dict(z=take(m * q, (m, q), "F"), kernel=take(1 + q), log_noise=take(1), q_mean=take(m * d, (m, d), "F"),
                 q_scale=take(m * m, (m, m), "F"), mu=take(b * q, (b, q)), log_s=take(b * q, (b, q)))
    assert pos == vals.size, (pos, vals.size)

    leaves = dict(z=z, kernel=hyper, log_noise=log_noise.reshape(1), q_mean=q_mean,
                  strict=torch.tril(q_scale, -1), log_diag=torch.diagonal(q_scale).log(), mu=mu, log_s=log_s)
    for t in leaves.values():
        t.requires_grad_(True)
    u = uncollapsed_bound(leaves["mu"], leaves["log_s"].exp(), y, leaves["z"], leaves["kernel"][0],
                          leaves["kernel"][1:], leaves["log_noise"][0], leaves["q_mean"],
                          lower_factor(leaves["strict"], leaves["log_diag"]), scale)
    u.backward()
    torch_grads = {k: leaves[k].grad for k in ("z", "kernel", "log_noise", "q_mean", "mu", "log_s")}
    # gplvm's d L_S: strict lower triangle d/dL_S, diagonal d/dlog L_S(i, i).
    torch_grads["q_scale"] = torch.tril(leaves["strict"].grad, -1) + torch.diag(leaves["log_diag"].grad)
    out = {"B": b, "D": d, "Q": q, "M": m, "scale": scale, "value_gplvm": value, "value_torch": float(u),
           "value_rel_diff": abs(float(u) - value) / abs(value)}
    worst = 0.0
    for k, g in grads.items():
        rel = float((torch_grads[k] - g).norm() / max(float(g.norm()), 1e-300))
        out[f"grad_{k}_rel_diff"] = rel
        worst = max(worst, rel)
    out["grad_worst_rel_diff"] = worst
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--inducing", type=int, default=100)
    ap.add_argument("--dim", type=int, default=784)
    ap.add_argument("--latent", type=int, default=2)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--free", action="store_true")
    ap.add_argument("--check", default=None)
    ap.add_argument("--naive-psi2", action="store_true",
                    help="Psi2's exponent by broadcasting (B x M x M temporaries per latent dimension)")
    a = ap.parse_args()
    global NAIVE_PSI2
    NAIVE_PSI2 = a.naive_psi2
    torch.set_num_threads(a.threads)
    torch.set_default_dtype(torch.float64)
    if a.check:
        check(a.check)
        return
    torch.manual_seed(1)
    n_total, m, d, q = 8 * a.batch, a.inducing, a.dim, a.latent
    data = torch.rand(n_total, d)
    if a.free:
        free_mean = torch.nn.Parameter(torch.randn(n_total, q))
        free_log_var = torch.nn.Parameter(torch.full((n_total, q), math.log(0.05)))
        latents = lambda y, rows: (free_mean[rows], free_log_var[rows].exp())
        latent_params = [free_mean, free_log_var]
    else:
        mean_mlp, var_mlp = encoder(d, q), encoder(d, q, softplus=True)
        latents = lambda y, rows: (mean_mlp(y), var_mlp(y))
        latent_params = list(mean_mlp.parameters()) + list(var_mlp.parameters())
    z = torch.nn.Parameter(torch.randn(m, q))
    log_theta = torch.nn.Parameter(torch.zeros(()))
    log_l = torch.nn.Parameter(torch.zeros(q))
    log_noise = torch.nn.Parameter(torch.tensor(math.log(0.1)))
    q_mean = torch.nn.Parameter(torch.zeros(m, d))
    strict = torch.nn.Parameter(torch.zeros(m, m))
    log_diag = torch.nn.Parameter(torch.zeros(m))
    params = latent_params + [z, log_theta, log_l, log_noise, q_mean, strict, log_diag]
    opt = torch.optim.Adam(params, lr=1e-3)
    scale = n_total / a.batch
    times = []
    for step in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        rows = torch.randperm(n_total)[:a.batch]
        y = data[rows]
        mu, s = latents(y, rows)
        # Jitter only so that random inducing inputs factorise; it changes no cost.
        loss = -uncollapsed_bound(mu, s, y, z, log_theta, log_l, log_noise, q_mean, lower_factor(strict, log_diag),
                                  scale, jitter=1e-6)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step >= a.warmup:
            times.append(time.perf_counter() - t0)
    print(json.dumps({"impl": "pytorch", "model": "bayesian_gplvm", "torch": torch.__version__, "threads": a.threads,
                      "batch": a.batch, "inducing": m, "dim": d, "latent": q, "free": a.free, "naive_psi2": a.naive_psi2,
                      "ms_per_step": 1e3 * statistics.median(times)}))


if __name__ == "__main__":
    main()
