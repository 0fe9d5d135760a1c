#!/usr/bin/python3
"""Table 1 of the wrapped GPLVM paper (Mallasto & Feragen, 2018) on the generated stand-ins, and
the calibration study of its Fig. 8 on the sphere curve.

For each data set (gplvm generate --kind sphere_curve | shapes | spd_tensors | spd_covariances)
and each repetition r: a random 80/20 split (NumPy generator seeded by r), then three models,
each an exact GPLVM (eq_ard kernel, PCA start, L-BFGS) with model.latent_dim = --q (--sphere-q on
the sphere curve: the paper's femur latent is 1-D, and Q = 2 = dim S^2 would let every held-out point
be reconstructed exactly, driving the noise to its floor):
  - WGPLVM: model.output_space = the data's manifold (Kendall; log-Euclidean for SPD), test rows
    encoded and reconstructed by Exp_mu of the tangent mean (gplvm evaluate);
  - GPLVM: model.output_space = "euclidean" on the ambient coordinates (flattened matrices; for
    shapes the pre-shapes aligned to the training set's full-Procrustes mean), data.center = true
    (and data.standardize = true for spd_covariances);
  - GPLVMProj: the same run, its predictions projected onto the manifold
    (gplvm evaluate --project-to);
  - on the sphere curve also "WGPLVM (linear basepoint)": model.basepoint = "linear", the basepoint
    m(x) = Exp_mu0(B0 A x) learnt with the latents (A from 0), held-out points encoded through the
    same predictive.
The reconstruction RMSE is per split, by the intrinsic distance (WGPLVM, GPLVMProj) and by the
Euclidean distance of the ambient coordinates (all three); the table gives mean ± SEM over the
repetitions. Calibration (sphere curve, every WGPLVM and GPLVMProj): 50 predictive samples per test point at its encoded
latent (gplvm predict --samples), the fraction f of samples nearer the predicted mean than the
true point (intrinsic distance), the histogram and CDF of f over all splits' test points (PNG),
and max |CDF(f) - f|.

Resumable: each step's output is kept under --out and skipped when present.
"""
import argparse
import json
import os
import subprocess
import sys

import h5py
import numpy as np

SETS = {  # kind -> (output space of WGPLVM, the projection's manifold)
    "sphere_curve": "sphere",
    "shapes": "kendall",
    "spd_tensors": "spd_log_euclidean",
    "spd_covariances": "spd_log_euclidean",
}
LINEAR = "WGPLVM (linear basepoint)"  # the sphere curve only
PAPER = {  # Table 1, intrinsic RMSE: GPLVMProj vs WGPLVM
    "sphere_curve": ("femur", "(9.22 ± 0.55)e-2", "(9.20 ± 0.53)e-2"),
    "shapes": ("diatoms", "(2.48 ± 0.25)e-2", "(2.39 ± 0.15)e-2"),
    "spd_tensors": ("diffusion tensors", "0.582 ± 0.025", "0.391 ± 0.035"),
    "spd_covariances": ("crypto-tensors", "21.91 ± 2.26", "3.04 ± 0.26"),
}


def run(args, command, log):
    full = args.launcher.split() + [args.gplvm] + command if args.launcher else [args.gplvm] + command
    with open(log, "w") as out:
        code = subprocess.call(full, stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        sys.exit(f"failed ({code}): {' '.join(full)}; see {log}")
    with open(log) as f:
        return f.read()


def json_of(text):
    return json.loads([line for line in text.splitlines() if line.startswith("{")][-1])


def pre_shapes(rows):
    z = rows[:, 0::2] + 1j * rows[:, 1::2]
    z = z - z.mean(axis=1, keepdims=True)
    return z / np.linalg.norm(z, axis=1, keepdims=True)


def aligned_pre_shapes(rows, reference):
    z = pre_shapes(rows)
    c = (reference[None, :] * z.conj()).sum(axis=1)  # <ref, z>
    z = z * (c / np.abs(c))[:, None]
    out = np.empty((len(z), 2 * z.shape[1]))
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def write_split(path, y, space, labels):
    with h5py.File(path + ".tmp", "w") as f:
        d = f.create_dataset("Y", data=y)
        if space:
            d.attrs["output_space"] = space
        if labels is not None:
            f.create_dataset("labels", data=labels)
    os.replace(path + ".tmp", path)


def split(args, kind, rep, folder):
    """train/test files for WGPLVM (manifold layout) and GPLVM (ambient rows)."""
    data = os.path.join(args.out, kind, "data.h5")
    names = [os.path.join(folder, n) for n in ("train.h5", "test.h5", "train_euc.h5", "test_euc.h5")]
    if all(os.path.exists(n) for n in names):
        return names
    with h5py.File(data, "r") as f:
        y = f["Y"][...]
        space = f["Y"].attrs["output_space"]
        labels = f["labels"][...] if "labels" in f else None
    order = np.random.default_rng(rep).permutation(len(y))
    n_train = int(round(0.8 * len(y)))
    parts = (order[:n_train], order[n_train:])
    flat = y.reshape(len(y), -1)
    if kind == "shapes":  # the Euclidean baseline sees pre-shapes aligned to the training mean
        z = pre_shapes(flat[parts[0]])
        reference = np.linalg.eigh(z.T @ z.conj())[1][:, -1]
        flat = aligned_pre_shapes(flat, reference)
    for name, rows, values in zip(names, parts * 2, (y, y, flat, flat)):
        write_split(name, values[rows], space if values is y else None,
                    None if labels is None else labels[rows])
    return names


def latent_dim(args, kind):
    return args.sphere_q if kind == "sphere_curve" else args.q


def train(args, data, out, space, log, q, extra=()):
    if not os.path.exists(out):
        run(args, ["train", f"--data.path={data}", f"--output.path={out}",
                   f"--output.checkpoint_dir={out}.ck", "--model.kind=exact",
                   f"--model.output_space={space}", f"--model.latent_dim={q}", "--model.kernel=eq_ard",
                   "--model.init=pca", f"--exact.max_iterations={args.max_iterations}"] + list(extra), log)


def evaluate(args, run_file, test, extra, out_json, out_h5):
    if not os.path.exists(out_json):
        text = run(args, ["evaluate", "--run", run_file, "--test", test, "--output", out_h5, "--json"] + extra,
                   out_json + ".log")
        with open(out_json + ".tmp", "w") as f:
            json.dump(json_of(text), f)
        os.replace(out_json + ".tmp", out_json)
    with open(out_json) as f:
        return json.load(f)


def one_split(args, kind, rep):
    folder = os.path.join(args.out, kind, f"rep{rep}")
    os.makedirs(folder, exist_ok=True)
    train_m, test_m, train_e, test_e = split(args, kind, rep, folder)
    space = SETS[kind]
    w_run, e_run = os.path.join(folder, "wgplvm.h5"), os.path.join(folder, "gplvm.h5")
    train(args, train_m, w_run, space, w_run + ".log", latent_dim(args, kind))
    # The Euclidean GP gets a constant mean (data.center); on the covariances, whose entries span
    # five orders of magnitude, also unit-variance columns (data.standardize).
    euclidean = ["--data.center=true"] + (["--data.standardize=true"] if kind == "spd_covariances" else [])
    train(args, train_e, e_run, "euclidean", e_run + ".log", latent_dim(args, kind), euclidean)
    w = evaluate(args, w_run, test_m, [], os.path.join(folder, "wgplvm.json"), os.path.join(folder, "wgplvm_ev.h5"))
    # The projection's test rows are the points as stored (the pre-shapes for shapes: same shapes).
    e = evaluate(args, e_run, test_e, ["--project-to", space], os.path.join(folder, "gplvm.json"),
                 os.path.join(folder, "gplvm_ev.h5"))
    result = {"WGPLVM": (w["intrinsic_rmse"], w["euclidean_rmse"]),
              "GPLVMProj": (e["intrinsic_rmse"], e["euclidean_rmse"]),
              "GPLVM": (None, e["unprojected_euclidean_rmse"])}
    if kind == "sphere_curve":
        l_run = os.path.join(folder, "wgplvm_linear.h5")
        train(args, train_m, l_run, space, l_run + ".log", latent_dim(args, kind), ["--model.basepoint=linear"])
        l = evaluate(args, l_run, test_m, [], os.path.join(folder, "wgplvm_linear.json"),
                     os.path.join(folder, "wgplvm_linear_ev.h5"))
        result[LINEAR] = (l["intrinsic_rmse"], l["euclidean_rmse"])
    return result


def sphere_angle(a, b):
    return 2 * np.arctan2(np.linalg.norm(a - b, axis=-1), np.linalg.norm(a + b, axis=-1))


def calibration_fractions(args, rep):
    """f per test point for WGPLVM and GPLVMProj on the sphere curve."""
    folder = os.path.join(args.out, "sphere_curve", f"rep{rep}")
    out = {}
    for model, run_name, extra in (("WGPLVM", "wgplvm", []), (LINEAR, "wgplvm_linear", []),
                                   ("GPLVMProj", "gplvm", ["--project-to", "sphere"])):
        pred = os.path.join(folder, f"{run_name}_samples.h5")
        if not os.path.exists(pred):
            run(args, ["predict", "--run", os.path.join(folder, f"{run_name}.h5"), "--latents",
                       os.path.join(folder, f"{run_name}_ev.h5"), "--samples", str(args.samples), "--seed",
                       str(rep), "--output", pred] + extra, pred + ".log")
        with h5py.File(pred, "r") as f:
            mean = f["predictive/mean" if not extra else "predictive/projected_mean"][...]
            samples = f["predictive/samples"][...]  # N x S x 3
        with h5py.File(os.path.join(folder, "test.h5"), "r") as f:
            truth = f["Y"][...]
        d_true = sphere_angle(truth, mean)
        d_samples = sphere_angle(samples, mean[:, None, :])
        out[model] = (d_samples < d_true[:, None]).mean(axis=1)
    return out


def cells(results, sets, model, column):
    return " | ".join(mean_sem([r[model][column] for r in results[k]]) if model in results[k][0] else "—"
                      for k in sets)


def mean_sem(values):
    v = np.asarray(values, dtype=float)
    sem = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
    return f"{v.mean():.4g} ± {sem:.2g}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gplvm", default=os.path.join(os.path.dirname(__file__), "..", "build", "gplvm"))
    p.add_argument("--launcher", default="", help='e.g. "mpirun --oversubscribe -n 2"')
    p.add_argument("--out", default="wrapped_table1")
    p.add_argument("--sets", default=",".join(SETS))
    p.add_argument("--n", type=int, default=200, help="points generated per data set")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--q", type=int, default=2)
    p.add_argument("--sphere-q", type=int, default=1, help="latent dimension on the sphere curve")
    p.add_argument("--max-iterations", type=int, default=300)
    p.add_argument("--samples", type=int, default=50)
    p.add_argument("--table", default=None, help="markdown file (default <out>/table1.md)")
    args = p.parse_args()
    args.gplvm = os.path.abspath(args.gplvm)
    sets = args.sets.split(",")
    results = {}
    for kind in sets:
        os.makedirs(os.path.join(args.out, kind), exist_ok=True)
        data = os.path.join(args.out, kind, "data.h5")
        if not os.path.exists(data):
            run(args, ["generate", "--kind", kind, "--n", str(args.n), "--seed", "0", "--output", data], data + ".log")
        results[kind] = [one_split(args, kind, r) for r in range(args.reps)]
        print(f"{kind}: {args.reps} splits done", flush=True)
    lines = [f"n = {args.n} points per set, 80/20 splits, {args.reps} repetitions, Q = {args.q} "
             f"(sphere_curve: {args.sphere_q}), exact GPLVM "
             f"(eq_ard, PCA start, at most {args.max_iterations} L-BFGS iterations); mean ± SEM of the per-split RMSE.",
             "", "**Intrinsic distance**", "", "| Model | " + " | ".join(sets) + " |",
             "|---|" + "---|" * len(sets)]
    for model in ("GPLVMProj", "WGPLVM", LINEAR):
        lines.append(f"| {model} | " + cells(results, sets, model, 0) + " |")
    lines += ["", "**Euclidean distance**", "", "| Model | " + " | ".join(sets) + " |", "|---|" + "---|" * len(sets)]
    for model in ("GPLVM", "GPLVMProj", "WGPLVM", LINEAR):
        lines.append(f"| {model} | " + cells(results, sets, model, 1) + " |")
    lines += ["", "Relative intrinsic margin (1 − WGPLVM / GPLVMProj, means) here and in the paper's Table 1:", "",
              "| set | here | paper (stand-in for) |", "|---|---|---|"]
    for k in sets:
        w = np.mean([r["WGPLVM"][0] for r in results[k]])
        g = np.mean([r["GPLVMProj"][0] for r in results[k]])
        name, paper_g, paper_w = PAPER[k]
        lines.append(f"| {k} | {1 - w / g:+.3f} | {name}: WGPLVM {paper_w} vs GPLVMProj {paper_g} |")
        if LINEAR in results[k][0]:
            w = np.mean([r[LINEAR][0] for r in results[k]])
            lines.append(f"| {k}, linear basepoint | {1 - w / g:+.3f} | (not in the paper's table) |")
    if "sphere_curve" in sets:
        f = {"WGPLVM": [], LINEAR: [], "GPLVMProj": []}
        for r in range(args.reps):
            for model, values in calibration_fractions(args, r).items():
                f[model].append(values)
        lines += ["", f"**Calibration (sphere curve, {args.samples} samples per test point)**: "
                  "max |CDF(f) − f| over all test points", "", "| Model | max deviation | test points |", "|---|---|---|"]
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
        grid = np.linspace(0, 1, 501)
        for model, values in f.items():
            v = np.sort(np.concatenate(values))
            cdf = np.searchsorted(v, grid, side="right") / len(v)
            lines.append(f"| {model} | {np.abs(cdf - grid).max():.3f} | {len(v)} |")
            axes[0].hist(v, bins=10, range=(0, 1), alpha=0.5, label=model)
            axes[1].plot(grid, cdf, label=model)
        axes[1].plot([0, 1], [0, 1], "k--", lw=0.8)
        axes[0].set_xlabel("fraction of samples nearer the mean than the test point")
        axes[1].set_xlabel("f")
        axes[1].set_ylabel("CDF")
        axes[0].legend()
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "calibration_sphere_curve.png"), dpi=100)
    table = args.table or os.path.join(args.out, "table1.md")
    with open(table, "w") as out:
        out.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
