#!/usr/bin/python3
"""PyTorch baseline of one SAS / Bayesian SAS training step (the same maths as gplvm-hpc).

The objective of docs/math/sas.md: active term sum_d log N(Y_A[:, d] | 0, K_AA + s2 I)
plus (N - A)/(B - A) times the remainder predictive log-likelihoods with D outputs sharing c_n;
Bayesian: one reparameterised sample and KL x N/B. EQ-ARD kernel, log-parametrised; encoder
D -> 512 -> 256 -> Q ReLU (PyTorch default init); autograd; torch.optim.Adam. Prints one JSON line
with the median ms/step.

usage: /usr/bin/python3 bench/pytorch_sas.py [--batch 1024] [--active 200] [--dim 784] [--latent 2]
       [--steps 20] [--warmup 3] [--dtype float64|float32] [--threads 1] [--bayesian] [--free] [--keep-denormals]

--free: free latents (an N x Q parameter; Bayesian: mean and log variance) instead of encoders.
"""
import argparse
import json
import math
import statistics
import time

import torch


def encoder(d, q, softplus=False):
    layers = [torch.nn.Linear(d, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256), torch.nn.ReLU(),
              torch.nn.Linear(256, q)]
    if softplus:
        layers.append(torch.nn.Softplus())
    return torch.nn.Sequential(*layers)


def eq_ard(x1, x2, log_variance, log_lengthscale):
    s1, s2 = x1 / log_lengthscale.exp(), x2 / log_lengthscale.exp()
    sq = (s1 * s1).sum(1)[:, None] + (s2 * s2).sum(1)[None, :] - 2.0 * s1 @ s2.T
    return log_variance.exp() * torch.exp(-0.5 * sq.clamp_min(0.0))


def sas_objective(x, y, a, n_total, log_variance, log_lengthscale, log_noise):
    b, d = y.shape
    xa, xr, ya, yr = x[:a], x[a:], y[:a], y[a:]
    noise = log_noise.exp()
    k_aa = eq_ard(xa, xa, log_variance, log_lengthscale) + noise * torch.eye(a, dtype=y.dtype)
    chol = torch.linalg.cholesky(k_aa)
    half = torch.linalg.solve_triangular(chol, ya, upper=False)
    active = -0.5 * a * d * math.log(2 * math.pi) - d * torch.log(torch.diagonal(chol)).sum() - 0.5 * (half * half).sum()
    k_ar = eq_ard(xa, xr, log_variance, log_lengthscale)
    w = torch.linalg.solve_triangular(chol, k_ar, upper=False)
    alpha = torch.cholesky_solve(ya, chol)
    mean = k_ar.T @ alpha
    c = log_variance.exp() + noise - (w * w).sum(0)
    resid = ((yr - mean) ** 2).sum(1)
    remainder = (-0.5 * d * torch.log(2 * math.pi * c) - 0.5 * resid / c).sum()
    return active + (n_total - a) / (b - a) * remainder


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--active", type=int, default=200)
    ap.add_argument("--dim", type=int, default=784)
    ap.add_argument("--latent", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bayesian", action="store_true")
    ap.add_argument("--free", action="store_true")
    ap.add_argument("--keep-denormals", action="store_true",
                    help="float32: keep IEEE subnormals (default: flushed, as the C++ fp32 step does)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    # The baseline flushes subnormals in float32 as the C++ step does (FTZ/DAZ; on Intel cores
    # each subnormal operand costs a microcode assist): each side gets its best setting.
    flush = a.dtype == "float32" and not a.keep_denormals
    torch.set_flush_denormal(flush)
    dtype = getattr(torch, a.dtype)
    torch.set_default_dtype(dtype)
    torch.manual_seed(1)
    n_total = 8 * a.batch
    data = torch.rand(n_total, a.dim, dtype=dtype)
    if a.free:
        free_mean = torch.nn.Parameter(torch.randn(n_total, a.latent, dtype=dtype))
        free_log_var = torch.nn.Parameter(torch.full((n_total, a.latent), math.log(0.05), dtype=dtype))
        mean_net = lambda y, rows: free_mean[rows]
        var_net = (lambda y, rows: free_log_var[rows].exp()) if a.bayesian else None
        latent_params = [free_mean] + ([free_log_var] if a.bayesian else [])
    else:
        mean_mlp = encoder(a.dim, a.latent)
        var_mlp = encoder(a.dim, a.latent, softplus=True) if a.bayesian else None
        mean_net = lambda y, rows: mean_mlp(y)
        var_net = (lambda y, rows: var_mlp(y)) if a.bayesian else None
        latent_params = list(mean_mlp.parameters()) + (list(var_mlp.parameters()) if a.bayesian else [])
    log_variance = torch.tensor(math.log(0.5), requires_grad=True)
    log_lengthscale = torch.full((a.latent,), math.log(0.1), requires_grad=True)
    log_noise = torch.tensor(math.log(0.5), requires_grad=True)
    params = latent_params + [log_variance, log_lengthscale, log_noise]
    opt = torch.optim.Adam(params, lr=1e-3)
    times = []
    for step in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        rows = torch.randperm(n_total)[:a.batch]
        y = data[rows]
        mu = mean_net(y, rows)
        if var_net is not None:
            var = var_net(y, rows)
            x = mu + var.sqrt() * torch.randn_like(mu)
            kl = -0.5 * (1 + var.log() - mu * mu - var).sum()
        else:
            x, kl = mu, torch.zeros(())
        loss = -(sas_objective(x, y, a.active, n_total, log_variance, log_lengthscale, log_noise)
                 - n_total / a.batch * kl)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step >= a.warmup:
            times.append(time.perf_counter() - t0)
    print(json.dumps({"impl": "pytorch", "torch": torch.__version__, "dtype": a.dtype, "threads": a.threads,
                      "batch": a.batch, "active": a.active, "dim": a.dim, "bayesian": a.bayesian, "free": a.free,
                      "flush_denormals": flush, "ms_per_step": 1e3 * statistics.median(times)}))


if __name__ == "__main__":
    main()
