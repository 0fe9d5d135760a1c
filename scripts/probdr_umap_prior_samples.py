#!/usr/bin/python3
"""Prior samples of the ProbDR-UMAP generative model (docs/math/neighbour_embedding.md, §9).

The model that ProbDR (Ravuri et al.) attaches to UMAP's graph, with a 1-D latent so that each draw
can be plotted as a curve y(x):

    x_i ~ Uniform(-R, R)                                    i = 1..n   (R = --range, 3)
    A'_ij | x ~ Bernoulli(1 / (1 + a |x_i - x_j|^(2b)))    i < j only (a DAG), A' = 0 elsewhere
    A = A' + A'^T,  D = diag(A 1),  D^+ its pseudo-inverse (1/deg, 0 for an isolated vertex)
    L~ = I - D^(+1/2) A D^(+1/2)                           the normalised Laplacian, eigenvalues in [0, 2]
    y | L~ ~ N(0, exp(-t L~))                              the heat (diffusion) kernel of the graph

(a, b) = (2, 1) and t = 12.5 are the values of the paper's figure of these samples. Each of the
--samples draws has its own x, graph and y; plotted against x they look like draws from a smooth GP
prior, which is the point of the figure: a graph Laplacian built from latent positions approximates
the Laplace-Beltrami operator, and exp(-t L~) a heat kernel on the latent line.

usage: /usr/bin/python3 scripts/probdr_umap_prior_samples.py [--n 200] [--samples 5] [--t 12.5]
           [--a 2] [--b 1] [--range 3] [--seed 0] [--out prior.png] [--npz prior.npz]
"""
import argparse
import sys

import numpy as np


def sample_positions(n, rng, half_width=3.0):
    """n latent positions drawn uniformly on (-half_width, half_width)."""
    return rng.uniform(-half_width, half_width, size=n)


def edge_probabilities(x, a=2.0, b=1.0):
    """The n x n matrix 1 / (1 + a |x_i - x_j|^(2b)) of UMAP's latent kernel (1 on the diagonal)."""
    x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
    d2 = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    return 1.0 / (1.0 + a * d2 ** b)


def sample_directed_adjacency(x, rng, a=2.0, b=1.0):
    """A' with A'_ij ~ Bernoulli(w_ij) independently for i < j and zeros elsewhere (upper triangle)."""
    w = edge_probabilities(x, a, b)
    upper = np.triu(np.ones_like(w, dtype=bool), k=1)
    return (upper & (rng.random(w.shape) < w)).astype(np.float64)


def normalised_laplacian(directed):
    """L~ = I - D^(+1/2) (A' + A'^T) D^(+1/2), D^+ the pseudo-inverse of the degrees: an isolated
    vertex gets the row and column of the identity (eigenvalue 1), not a division by zero."""
    a = directed + directed.T
    degree = a.sum(axis=1)
    root = np.zeros_like(degree)
    positive = degree > 0
    root[positive] = 1.0 / np.sqrt(degree[positive])
    lap = np.eye(len(degree)) - root[:, None] * a * root[None, :]
    return 0.5 * (lap + lap.T)  # exactly symmetric


def heat_factor(laplacian, t):
    """(Q exp(-t Lambda / 2), Lambda) with L~ = Q Lambda Q^T: the factor F of exp(-t L~) = F F^T."""
    lam, q = np.linalg.eigh(laplacian)
    return q * np.exp(-0.5 * t * lam)[None, :], lam


def heat_covariance(laplacian, t):
    """exp(-t L~) by the eigendecomposition."""
    f, _ = heat_factor(laplacian, t)
    return f @ f.T


def sample_outputs(laplacian, t, rng, size=None):
    """Draws y ~ N(0, exp(-t L~)): one n-vector, or a (size, n) array of independent draws."""
    f, _ = heat_factor(laplacian, t)
    n = laplacian.shape[0]
    z = rng.standard_normal((n,) if size is None else (size, n))
    return f @ z if size is None else z @ f.T


def draw(n, t, a, b, rng, half_width=3.0):
    """One draw of the whole model: (x, A', L~, y)."""
    x = sample_positions(n, rng, half_width)
    directed = sample_directed_adjacency(x, rng, a, b)
    lap = normalised_laplacian(directed)
    return x, directed, lap, sample_outputs(lap, t, rng)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200, help="points per draw (default 200)")
    p.add_argument("--samples", type=int, default=5, help="independent draws of (x, graph, y) (default 5)")
    p.add_argument("--t", type=float, default=12.5, help="diffusion time of exp(-t L~) (default 12.5)")
    p.add_argument("--a", type=float, default=2.0, help="UMAP kernel's a (default 2)")
    p.add_argument("--b", type=float, default=1.0, help="UMAP kernel's b (default 1)")
    p.add_argument("--range", type=float, default=3.0, dest="half_width",
                   help="x ~ Uniform(-range, range) (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="prior.png", help="the figure (PNG; empty for none)")
    p.add_argument("--npz", default="", help="also save x, y, the adjacencies and degrees (n x samples) here")
    args = p.parse_args(argv)
    if args.n < 2 or args.samples < 1:
        sys.exit("--n must be at least 2 and --samples at least 1")
    if not (args.t >= 0 and args.a > 0 and args.b > 0 and args.half_width > 0):
        sys.exit("--t must be >= 0 and --a, --b, --range > 0")
    rng = np.random.default_rng(args.seed)
    xs, ys, adjacencies, isolated = [], [], [], []
    for _ in range(args.samples):
        x, directed, lap, y = draw(args.n, args.t, args.a, args.b, rng, args.half_width)
        xs.append(x)
        ys.append(y)
        adjacencies.append(directed.astype(np.uint8))
        isolated.append(int(np.sum((directed + directed.T).sum(axis=1) == 0)))
    xs, ys = np.array(xs), np.array(ys)
    degrees = np.array([(d + d.T).sum(axis=1) for d in adjacencies])
    print(f"{args.samples} draws of n = {args.n}: mean degree {degrees.mean():.1f}, isolated vertices "
          f"{sum(isolated)}, sample std of y {ys.std():.3f}")
    if args.npz:
        np.savez_compressed(args.npz, x=xs, y=ys, directed_adjacency=np.array(adjacencies), degree=degrees,
                            t=args.t, a=args.a, b=args.b)
        print(f"wrote {args.npz}")
    if args.out:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
        for s in range(args.samples):
            order = np.argsort(xs[s])
            ax.plot(xs[s][order], ys[s][order], "-", lw=1.0, alpha=0.85)
            ax.plot(xs[s][order], ys[s][order], ".", ms=2.5, color=ax.lines[-1].get_color())
        ax.set_xlabel("x (latent)")
        ax.set_ylabel("y")
        ax.set_title(f"ProbDR-UMAP prior samples: A'_ij ~ Bernoulli(1/(1+{args.a:g}|x_i-x_j|^{2 * args.b:g})), "
                     f"y ~ N(0, exp(-{args.t:g} L~))", fontsize=8)
        ax.set_xlim(-args.half_width, args.half_width)
        fig.tight_layout()
        fig.savefig(args.out)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
