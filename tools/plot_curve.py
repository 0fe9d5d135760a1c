"""The training curve of a run file (/train/curve: step, epoch, objective, wall seconds), as curve.png.

Two kinds of curve, drawn differently:
  - minibatch training (Adam steps): noisy batch objectives, drawn raw and as a centred running mean,
    against the step (with epoch boundaries) and against wall time;
  - full-batch training (exact, full-batch sparse kinds, ProbDR): one deterministic value per iteration
    that climbs by orders of magnitude in the first iterations and then creeps, unreadable on one
    linear axis. Drawn against the iteration with the y axis from the value a tenth of the way in, and
    as the gap to the best value on a log scale, which shows the convergence rate.
A run that did not converge says so under the title: the run file's `converged` attribute is 1 when the
stopping rule ended minibatch training and 0 when its budget (train.epochs, train.max_steps) or a signal
did. Full-batch runs record no such verdict (their `converged` is always 0), so none is drawn for them.
"""

import numpy as np

FULL_BATCH_FROM = 0.1  # the linear panel's y axis starts at the value this far into the iterations
TOML_SECTION_KEY = ("sparse", "training")


def full_batch(attributes, config_text):
    """Whether the run was trained full batch: its model kind, and sparse.training for the sparse kinds."""
    model = attributes.get("model")
    if model in ("exact", "probdr"):
        return True
    if model not in ("sparse_gplvm", "bayesian_gplvm") or not config_text:
        return False
    import tomllib

    try:
        section, key = TOML_SECTION_KEY
        return tomllib.loads(config_text).get(section, {}).get(key) == "full_batch"
    except tomllib.TOMLDecodeError:
        return False


def unconverged_note(attributes, is_full_batch):
    """The warning for a minibatch run the stopping rule did not end, else None."""
    converged = attributes.get("converged")
    if is_full_batch or converged is None or int(converged) != 0 or not attributes.get("model"):
        return None
    steps = attributes.get("steps")
    return (f"not converged: training stopped at its budget{f' ({int(steps)} steps)' if steps is not None else ''} "
            "before the stopping rule ended it")


def smooth(values, window):
    """Centred running mean with the window shrinking at the ends (no lag, no edge droop)."""
    n = values.shape[0]
    if n == 0 or window <= 1:
        return values.copy()
    half = window // 2
    csum = np.concatenate(([0.0], np.cumsum(values)))
    idx = np.arange(n)
    lo, hi = np.maximum(idx - half, 0), np.minimum(idx + half + 1, n)
    return (csum[hi] - csum[lo]) / (hi - lo)


def finite_rows(curve):
    keep = np.isfinite(curve["objective"]) & np.isfinite(curve["step"]) & np.isfinite(curve["wall_time"])
    return {name: values[keep] for name, values in curve.items()}


def plot_curve(plt, curve, path, title, window=0, log_y=False, is_full_batch=False, note=None):
    """curve.png: the minibatch or the full-batch drawing; `note` (e.g. that the run did not converge) under
    the title."""
    curve = finite_rows(curve)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), dpi=130)
    if curve["step"].size == 0:
        for ax in axes:
            ax.text(0.5, 0.5, "no training steps recorded", ha="center", va="center", transform=ax.transAxes)
    elif is_full_batch:
        draw_full_batch(axes, curve)
    else:
        draw_minibatch(axes, curve, window, log_y)
    fig.suptitle(title if not note else f"{title}\n{note}", fontsize=10, color="black" if not note else "firebrick")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def draw_minibatch(axes, curve, window, log_y):
    step, objective = curve["step"], curve["objective"]
    w = window if window else max(1, step.size // 50)
    smoothed = smooth(objective, w)
    for ax, xs, xlabel in ((axes[0], step, "step"), (axes[1], curve["wall_time"], "wall time (s)")):
        ax.plot(xs, objective, color="0.6", linewidth=0.6, alpha=0.6, label="per step", rasterized=True)
        ax.plot(xs, smoothed, color="C0", linewidth=1.6, label=f"running mean ({w} steps)")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("objective")
        if log_y:
            ax.set_yscale("symlog" if np.any(objective <= 0) else "log")
        ax.grid(alpha=0.3)
    mark_epochs(axes[0], step, curve["epoch"])
    axes[0].legend(fontsize=8)


def full_batch_ylim(objective):
    """(start, (low, high)): the y range of the linear panel, from the value `start` iterations in to the best."""
    start = int(FULL_BATCH_FROM * (objective.size - 1))
    low, high = float(np.min(objective[start:])), float(np.max(objective))
    margin = 0.05 * (high - low) or 1.0
    return start, (low - margin, high + margin)


def draw_full_batch(axes, curve):
    iteration, objective = curve["step"], curve["objective"]
    axes[0].plot(iteration, objective, color="C0", linewidth=1.2, marker="." if objective.size < 60 else None)
    start, ylim = full_batch_ylim(objective)
    axes[0].set_ylim(*ylim)
    if start > 0:
        axes[0].set_title(f"y axis from iteration {int(iteration[start])} on (iteration {int(iteration[0])}: "
                          f"{objective[0]:.4g})", fontsize=8)
    axes[0].set_ylabel("objective")
    gap = np.max(objective) - objective
    shown = gap > 0  # the best iterate itself has no gap to draw on a log scale
    axes[1].semilogy(iteration[shown], gap[shown], color="C1", linewidth=1.2)
    axes[1].set_ylabel("best objective - objective")
    for ax in axes:
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)


def mark_epochs(ax, step, epoch):
    """Faint vertical lines where a new epoch starts, when there are few enough to see."""
    starts = step[1:][np.diff(epoch) != 0]
    if 0 < starts.size <= 30:
        for i, s in enumerate(starts):
            ax.axvline(s, color="0.8", linewidth=0.8, linestyle=":", zorder=0, label="new epoch" if i == 0 else None)
