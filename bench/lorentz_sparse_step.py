#!/usr/bin/env python3
"""Step time of the sparse and Bayesian hGP-LVM against the Euclidean sparse and Bayesian GPLVM
(and, with --kinds, of free-latent SAS on the hyperboloid against free-latent Euclidean SAS).

Generates a noisy binary tree (gplvm generate --kind binary_tree), then trains each of four
configurations for a fixed number of minibatch steps, in turn, for several rounds (alternated, so
that a drifting machine affects each alike): sparse_gplvm and bayesian_gplvm, each on euclidean
(eq_ard) and on lorentz (hyperboloid_exp), with free latents and the same N, D, M and batch size.
Prints each configuration's median seconds per step (the training loop's wall time over its steps,
from train --json) and the ratios lorentz / euclidean.

usage: bench/lorentz_sparse_step.py [--gplvm build/gplvm] [--depth 7] [--per-node 20] [--inducing 50]
                                    [--batch 256] [--steps 100] [--rounds 5] [--psi-samples 10]
                                    [--ranks 1] [--out /tmp/lorentz_sparse_step]
                                    [--kinds sparse_gplvm,bayesian_gplvm[,sas,bayesian_sas]]
"""
import argparse
import json
import os
import statistics
import subprocess


def run(command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gplvm", default="build/gplvm")
    p.add_argument("--depth", type=int, default=7)
    p.add_argument("--per-node", type=int, default=20)
    p.add_argument("--inducing", type=int, default=50)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--psi-samples", type=int, default=10)
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--out", default="/tmp/lorentz_sparse_step")
    p.add_argument("--kinds", default="sparse_gplvm,bayesian_gplvm")
    a = p.parse_args()
    gplvm = os.path.abspath(a.gplvm)
    os.makedirs(a.out, exist_ok=True)
    data = os.path.join(a.out, "tree.h5")
    run([gplvm, "generate", "--kind", "binary_tree", "--depth", str(a.depth), "--per-node", str(a.per_node),
         "--seed", "0", "--output", data])
    kinds = a.kinds.split(",")
    common = [f"--data.path={data}", "--model.latents=free",
              f"--sas.batch_size={a.batch}", f"--train.max_steps={a.steps}",
              "--train.epochs=100000", "--train.tolerance=0", "--train.progress_seconds=1e9",
              "--model.noise_variance=0.1", "--train.learning_rate=0.01"]
    spaces = {
        "euclidean": ["--model.latent_space=euclidean", "--model.kernel=eq_ard", "--model.lengthscale=1"],
        "lorentz": ["--model.latent_space=lorentz", "--model.kernel=hyperboloid_exp", "--model.lengthscale=2",
                    "--model.free_latent_scale=0.5"],
    }
    # The start of Z differs (k-means centres on R^Q; a random subset of the points on the sheet), the
    # step's work does not. SAS kinds have no inducing inputs (their active set is sas.active_size).
    sparse_keys = {"euclidean": [f"--sparse.inducing={a.inducing}", "--sparse.inducing_init=kmeans"],
                   "lorentz": [f"--sparse.inducing={a.inducing}", "--sparse.inducing_init=random"]}
    configs = [(kind, space) for kind in kinds for space in spaces]
    launcher = ["mpirun", "--oversubscribe", "-n", str(a.ranks)] if a.ranks > 1 else []
    times = {c: [] for c in configs}
    for r in range(a.rounds):
        for kind, space in configs:
            extra = [f"--model.psi_samples={a.psi_samples}"] if (kind, space) == ("bayesian_gplvm", "lorentz") else []
            if kind in ("sparse_gplvm", "bayesian_gplvm"):
                extra += sparse_keys[space]
            out = os.path.join(a.out, f"{kind}_{space}.h5")
            summary = json.loads(run(launcher + [gplvm, "train", "--json", f"--model.kind={kind}",
                                                 f"--output.path={out}", "--force"] + common + spaces[space] + extra))
            times[(kind, space)].append(summary["wall_seconds"] / summary["steps"])
            print(f"round {r} {kind:15s} {space:9s} {1e3 * times[(kind, space)][-1]:.3f} ms/step", flush=True)
    n = a.per_node * (2 ** a.depth - 1)
    print(f"\nN = {n}, D = {2 ** a.depth - 1}, M = {a.inducing}, B = {a.batch}, L = {a.psi_samples}, "
          f"{a.ranks} rank(s), median of {a.rounds} alternated runs of {a.steps} steps")
    for kind in kinds:
        e = statistics.median(times[(kind, "euclidean")])
        h = statistics.median(times[(kind, "lorentz")])
        print(f"{kind:15s} euclidean {1e3 * e:.3f} ms  lorentz {1e3 * h:.3f} ms  ratio {h / e:.2f}")


if __name__ == "__main__":
    main()
