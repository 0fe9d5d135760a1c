#!/usr/bin/python3
"""Cost model of one data-parallel SAS step: FLOPs, bytes and time per rank, from 1 to 1,024 ranks.

A step of B batch rows, A active rows, data dimension D, latent dimension Q, encoder D->512->256->Q,
on P ranks (docs/scaling.md, "Cost model"):
  - FLOPs by phase: the encoder's GEMMs (B/P rows per rank), the Cholesky of K_AA (every rank), the
    active set's whitening, syrk and the combine's two A x A x A solves (split by columns), the
    remainder (B/P rows per rank);
  - the step's collectives, each with its kind and length, from which follow the bytes each rank
    contributes (what `gplvm train --json` reports) and their time in the alpha-beta model;
  - time = compute (FLOPs over per-phase rates, a per-row term for the work that is not FLOPs,
    divided by the machine's efficiency with P busy cores) + the collectives' time.

Collective time, for n bytes on P = M nodes x R ranks per node, as a hierarchical algorithm does it
(within the node over shared memory, then across nodes, each level bandwidth-optimal):
  allgather(v)    sum over levels L of  lat_L(α_L) + (L-1)/L n β_L
  reduce-scatter  sum over levels      lat_L(α_L) + (L-1)/L n (β_L + γ)
  allreduce       reduce-scatter + allgather
with lat_L = ceil(log2 L) α_L (recursive doubling / halving, Bruck) or (L-1) α_L (the ring, which
Open MPI's default rules pick for large messages), γ the per-byte cost of the reduction's sum.
α, β, γ of shared memory are fitted to bench_collectives on this machine (docs/collectives-zen5-2.csv);
the network's are parameters (a typical InfiniBand HDR cluster by default).

  /usr/bin/python3 scripts/cost_model.py validate       # the model against every measured row
  /usr/bin/python3 scripts/cost_model.py project        # strong and weak scaling to 1,024 ranks
  /usr/bin/python3 scripts/cost_model.py calibration    # the fitted shared-memory and per-row parameters
"""
import argparse
import csv
import math
import os
import statistics
from dataclasses import dataclass, replace

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIDDEN = (512, 256)
Q = 2


def encoder_widths(d, q=Q, hidden=HIDDEN):
    return [d, *hidden, q]


def encoder_params(d, q=Q, hidden=HIDDEN):
    w = encoder_widths(d, q, hidden)
    return sum(w[i] * w[i + 1] + w[i + 1] for i in range(len(w) - 1))


def step_flops(b, a, d, q, p, hidden=HIDDEN):
    """FLOPs of one step on one rank, by phase (N appears nowhere: that is the point)."""
    w = encoder_widths(d, q, hidden)
    # Forward, weight gradient and (above the first layer) input gradient, on this rank's B/P rows.
    encoder = sum(2.0 * b * w[i] * w[i + 1] * (2 if i == 0 else 3) for i in range(len(w) - 1)) / p
    return {
        "encoder": encoder,
        "cholesky": a ** 3 / 3.0,  # every rank factorises K_AA
        # Whitening Y_A, its syrk and the combine's two A x A x A solves, split by columns.
        "active": (2.0 * a * a * d + 2.0 * a ** 3) / p,
        "remainder": (b - a) * (4.0 * a * d + 4.0 * a * a) / p,  # W^T beta, beta Z^T; two solves, P W^T
    }


@dataclass(frozen=True)
class Code:
    """What the measured build did that changes its bytes: rows for balanced batch shares moved by an
    alltoallv (since 9657d17), and sharded Adam (since 65f0093), whose gradient-norm gather adds 8
    bytes a step and whose moments are gathered once at the end of a run."""
    balanced_batch: bool = True
    sharded_adam: bool = True


CURRENT = Code()
BEFORE_SHARDING = Code(balanced_batch=False, sharded_adam=False)  # 583e9dc, docs/scaling.csv


def surplus_rows(rows, p):
    """Expected rows one rank sends to even out its share: rows fall on ranks uniformly (binomial),
    a rank above its share sends the surplus, E max(0, X - mean) = sd / sqrt(2 pi)."""
    return math.sqrt(rows * (1.0 / p) * (1.0 - 1.0 / p) / (2.0 * math.pi)) if p > 1 else 0.0


def step_collectives(b, a, d, q, p, hidden=HIDDEN, code=CURRENT):
    """(name, kind, elements of 8 bytes over all ranks) of every collective of one step."""
    h = q + 1  # eq_ard: variance and Q lengthscales
    out = [
        ("active rows", "allgather", a * (1 + q + d)),
        ("whitened data", "allgather", a * d),
        ("step partials", "allreduce", a * a + a * q + h + 3),  # + value, noise, KL
        ("V = L^-T W", "allgather", a * a),
        ("combine partials", "allreduce", a * q + h + 1),
        ("encoder gradient", "reduce_scatter" if code.sharded_adam else "allreduce", encoder_params(d, q, hidden)),
        ("stop poll", "allreduce", 1),
    ]
    if code.sharded_adam:
        out += [("updated weights", "allgather", encoder_params(d, q, hidden)), ("gradient norm", "allgather", p)]
    if code.balanced_batch:  # the active and the remainder rows are balanced separately
        out.append(("batch rows", "alltoallv", d * p * (surplus_rows(a, p) + surplus_rows(b - a, p))))
    return out


def contributed_bytes(kind, elements, p):
    """Bytes one rank puts into a collective, as Communicator counts them."""
    if p == 1:
        return 0.0
    share = {"allgather": 1.0 / p, "alltoallv": 1.0 / p, "allreduce": 1.0, "reduce_scatter": (p - 1.0) / p}[kind]
    return 8.0 * elements * share


def bytes_per_step(b, a, d, q, p, hidden=HIDDEN, code=CURRENT, steps=None):
    """Bytes per step and rank; with `steps`, the run's end (sharded Adam's two moments gathered)
    spread over them, as `gplvm train --json` reports it."""
    per_step = sum(contributed_bytes(k, n, p) for _, k, n in step_collectives(b, a, d, q, p, hidden, code))
    if steps and code.sharded_adam and p > 1:
        per_step += 2 * contributed_bytes("allgather", encoder_params(d, q, hidden), p) / steps
    return per_step


# ---- time ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    alpha: float  # seconds per message
    beta: float  # seconds per byte


@dataclass(frozen=True)
class Machine:
    """One rank per core. Rates in FLOP/s; row_seconds: the step's work per batch row that is not
    FLOPs (kernel exponentials, element-wise passes, row copies); efficiency: a rank's compute speed
    with P ranks busy on the node over its speed alone (shared caches, memory and vCPUs)."""
    name: str
    gemm_rate: float
    la_rate: float  # Cholesky, triangular solves, rank-k updates at A ~ 200
    row_seconds: float
    shm: Link
    gamma: float  # seconds per byte summed in a reduction
    efficiency: tuple = ((1, 1.0),)  # (busy ranks, efficiency), interpolated in log P

    def efficiency_at(self, p):
        pts = sorted(self.efficiency)
        if p <= pts[0][0]:
            return pts[0][1]
        for (p0, e0), (p1, e1) in zip(pts, pts[1:]):
            if p <= p1:
                return e0 + (e1 - e0) * math.log(p / p0) / math.log(p1 / p0)
        return pts[-1][1]


@dataclass(frozen=True)
class Network:
    link: Link = Link(1.5e-6, 1.0 / 25e9)  # InfiniBand HDR: 200 Gb/s per node, ~1.5 us MPI latency
    ranks_per_node: int = 64
    ring: bool = False  # latency (L-1) alpha per level, as a flat ring does, instead of log2 L


def levels(p, machine, network):
    """(ranks at the level, link): a node's ranks over shared memory, then the nodes."""
    r = min(p, network.ranks_per_node) if network else p
    m = math.ceil(p / r)
    out = [(r, machine.shm)]
    if m > 1:
        out.append((m, network.link))
    return out


def collective_seconds(kind, nbytes, p, machine, network=None):
    if p == 1:
        return 0.0
    ring = network.ring if network else False
    t = 0.0
    for size, link in levels(p, machine, network):
        if size == 1:
            continue
        lat = (size - 1 if ring else math.ceil(math.log2(size))) * link.alpha
        gather = lat + (size - 1) / size * nbytes * link.beta
        scatter = lat + (size - 1) / size * nbytes * (link.beta + machine.gamma)
        # alltoallv: nbytes is the total moved; each rank's share goes point to point.
        # Allreduce: recursive doubling (short messages) or reduce-scatter + allgather, the faster.
        doubling = math.ceil(math.log2(size)) * (link.alpha + nbytes * (link.beta + machine.gamma))
        t += {"allgather": gather, "reduce_scatter": scatter, "allreduce": min(doubling, gather + scatter),
              "alltoallv": link.alpha + nbytes / p * link.beta}[kind]
    return t


THREAD_EFFICIENCY = 1.79 / 2  # a step on 2 threads against 1 (docs/benchmarks.md, phase timers, Zen4-2)


def step_seconds(b, a, d, q, p, machine, network=None, hidden=HIDDEN, code=CURRENT, threads=1):
    """Seconds of one step by term: compute split over ranks, the replicated Cholesky, each kind of
    collective's latency and bandwidth. A rank's `threads` speed its compute by threads x 0.9 (measured
    at 2, assumed beyond) and leave ranks_per_node / threads ranks on a node's cores."""
    f = step_flops(b, a, d, q, p, hidden)
    busy = (min(p, network.ranks_per_node) if network else p) * threads  # cores busy on a node
    eff = machine.efficiency_at(busy) * (threads * THREAD_EFFICIENCY if threads > 1 else 1.0)
    terms = {
        "compute": (f["encoder"] / machine.gemm_rate + (f["active"] + f["remainder"]) / machine.la_rate
                    + b / p * machine.row_seconds) / eff,
        "cholesky": f["cholesky"] / machine.la_rate / eff,
        "collectives": sum(collective_seconds(kind, 8.0 * n, p, machine, network)
                           for _, kind, n in step_collectives(b, a, d, q, p, hidden, code)),
    }
    terms["latency"] = sum(collective_seconds(kind, 0.0, p, machine, network)
                           for _, kind, _n in step_collectives(b, a, d, q, p, hidden, code))
    terms["total"] = terms["compute"] + terms["cholesky"] + terms["collectives"]
    return terms


# ---- calibration -----------------------------------------------------------------------------


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def fit_shared_memory(path=os.path.join(REPO, "docs", "collectives-zen5-2.csv")):
    """α, β, γ of shared memory: least squares in relative error over every size of the allgathers and
    reduce-scatters bench_collectives timed (linear in α, β, γ); its allreduces are left to check them."""
    import numpy as np
    rows, times = [], []
    for r in read_csv(path):
        p, n = int(r["ranks"]), float(r["bytes"])
        frac = (p - 1) / p
        lat = math.ceil(math.log2(p))
        coef = {"allgatherv": (lat, frac * n, 0), "allgather_slices": (lat, frac * n, 0),
                "reduce_scatter": (lat, frac * n, frac * n)}
        if r["collective"] not in coef:
            continue
        rows.append(coef[r["collective"]])
        times.append(float(r["seconds"]))
    x, t = np.array(rows, dtype=float), np.array(times)
    alpha, beta, gamma = np.linalg.lstsq(x / t[:, None], np.ones_like(t), rcond=None)[0]
    return Link(float(alpha), float(beta)), float(gamma)


SHM, GAMMA = fit_shared_memory()

# Zen5-2 (docs/benchmarks.md, "GEMM engine and kernels"): the gplvm engine's fp64 GEMM 103-108
# GFLOP/s, the solves and rank-k update at A = 200 65-79. row_seconds is fitted to the one-rank rows.
ZEN5_2 = Machine("Zen5-2", gemm_rate=105e9, la_rate=75e9, row_seconds=0.0, shm=SHM, gamma=GAMMA)
MEASURED = [  # (CSV, the build that measured it, the machine's profile before its one-rank fit)
    ("docs/scaling.csv", BEFORE_SHARDING, ZEN5_2),
    # Xeon-16's GEMM ran at 41-68 GFLOP/s that hour: its compute is Zen5-2's profile scaled to its own
    # one-rank rows; 16 concurrent one-thread DGEMMs ran at 43-58 GFLOP/s each against 52-75 alone.
    ("docs/scaling-xeon16.csv", CURRENT, replace(ZEN5_2, name="Xeon-16", efficiency=((4, 1.0), (16, 50.5 / 63.5)))),
]


def calibrate(machine, rows, code):
    """The machine with its compute fitted to the one-rank rows (median over them): for Zen5-2 the
    per-row time (least squares over D), for others one factor on Zen5-2's whole compute profile."""
    ones = [r for r in rows if int(r["ranks"]) == 1]
    if machine.name == ZEN5_2.name:
        resid = [float(r["seconds_per_step"]) - step_seconds(int(r["batch"]), 200, int(r["d"]), Q, 1, machine,
                                                             code=code)["total"] for r in ones]
        return replace(machine, row_seconds=statistics.median(resid) / int(ones[0]["batch"]))
    base = calibrate(ZEN5_2, read_csv(os.path.join(REPO, MEASURED[0][0])), MEASURED[0][1])
    k = statistics.median(float(r["seconds_per_step"]) / step_seconds(int(r["batch"]), 200, int(r["d"]), Q, 1, base,
                                                                       code=code)["total"] for r in ones)
    return replace(machine, gemm_rate=base.gemm_rate / k, la_rate=base.la_rate / k, row_seconds=base.row_seconds * k)


def validation_rows(active=200, steps=30):
    """Every measured row beside the model's bytes and time: dicts with the CSV's fields and
    model_seconds, model_bytes, machine."""
    out = []
    for path, code, profile in MEASURED:
        rows = read_csv(os.path.join(REPO, path))
        machine = calibrate(profile, rows, code)
        for r in rows:
            b, d, p = int(r["batch"]), int(r["d"]), int(r["ranks"])
            out.append(dict(r, machine=machine.name, code=code,
                            model_seconds=step_seconds(b, active, d, Q, p, machine, code=code)["total"],
                            model_bytes=bytes_per_step(b, active, d, Q, p, code=code, steps=steps)))
    return out


# ---- projection to a cluster -------------------------------------------------------------------

NODE_CORES = 64


def projected(n, p, b, a, threads=1, network=Network(), d=784):
    """One projected configuration: P ranks of `threads` threads, NODE_CORES cores per node."""
    # Zen5-2's cores, slowed on a busy node as Xeon-16's were (0.80 with 16 busy cores, held beyond).
    machine = replace(calibrate(ZEN5_2, read_csv(os.path.join(REPO, MEASURED[0][0])), MEASURED[0][1]),
                      efficiency=MEASURED[1][2].efficiency)
    net = replace(network, ranks_per_node=NODE_CORES // threads)
    t = step_seconds(b, a, d, Q, p, machine, net, threads=threads)
    cores = p * threads
    one_core = step_seconds(b, a, d, Q, 1, machine)["total"]  # the same batch on one core
    parts = {"compute": t["compute"], "K_AA Cholesky": t["cholesky"],
             "collective latency": t["latency"], "collective bandwidth": t["collectives"] - t["latency"]}
    return dict(n=n, p=p, b=b, a=a, threads=threads, seconds=t["total"], points=b / t["total"],
                epoch=n / b * t["total"], efficiency=one_core / (cores * t["total"]), limit=max(parts, key=parts.get),
                shares={k: v / t["total"] for k, v in parts.items()}, gib_per_rank=n * d * 4 / p / 2 ** 30)


def projection_cases():
    """Strong scaling (N and B fixed, three batch sizes) and weak scaling (1,024 batch rows per core),
    on 64, 256 and 1,024 cores, A = 200 and 800, one thread or 8 per rank; efficiency: the same batch's
    step on one core over (cores x step time). The step does not depend on N: N sets the epoch (N / B
    steps) and the memory per rank."""
    cases = []
    for b in (1024, 16384, 131072):
        cases += [("strong", projected(10 ** 8, p, b, 200)) for p in (64, 256, 1024)]
    for a in (200, 800):  # 1024 batch rows per core, on 64, 256 and 1024 cores
        for threads in (1, 8):
            cases += [("weak", projected(10 ** 8, cores // threads, 1024 * cores, a, threads))
                      for cores in (64, 256, 1024)]
    return cases


def print_projection():
    print("| mode | ranks x threads | B | A | ms/step | points/s | efficiency | what limits it (share of the step) | "
          "epoch s, N = 10^7 / 10^8 | GiB/rank at 10^8 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mode, c in projection_cases():
        print(f"| {mode} | {c['p']} x {c['threads']} | {c['b']} | {c['a']} | {1e3 * c['seconds']:.1f} | "
              f"{c['points']:.3g} | {c['efficiency']:.2f} | {c['limit']} ({c['shares'][c['limit']]:.0%}) | "
              f"{c['epoch'] / 10:.3g} / {c['epoch']:.3g} | {c['gib_per_rank']:.2f} |")


# ---- command line ----------------------------------------------------------------------------


def print_validation():
    print("| machine | mode | P | N | D | B | ms/step measured / model | error | bytes/step/rank measured / model | error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in validation_rows():
        t, mt = float(r["seconds_per_step"]), r["model_seconds"]
        by, mb = float(r["bytes_per_step_per_rank"]), r["model_bytes"]
        berr = f"{100 * (mb / by - 1):+.2f}%" if by else "-"
        print(f"| {r['machine']} | {r['mode']} | {r['ranks']} | {r['n']} | {r['d']} | {r['batch']} | "
              f"{1e3 * t:.1f} / {1e3 * mt:.1f} | {100 * (mt / t - 1):+.0f}% | {by:.0f} / {mb:.0f} | {berr} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["validate", "calibration", "project"])
    args = ap.parse_args()
    if args.what == "calibration":
        m = calibrate(ZEN5_2, read_csv(os.path.join(REPO, "docs/scaling.csv")), BEFORE_SHARDING)
        print(f"shared memory: alpha {SHM.alpha * 1e6:.2f} us, beta {1 / SHM.beta / 1e9:.1f} GB/s, "
              f"gamma {1 / GAMMA / 1e9:.1f} GB/s; Zen5-2 row_seconds {m.row_seconds * 1e6:.2f} us")
    elif args.what == "project":
        print_projection()
    else:
        print_validation()


if __name__ == "__main__":
    main()
