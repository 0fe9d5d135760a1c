#!/usr/bin/python3
"""How much longer the slowest rank works than an even share, with and without balancing.

A batch is a uniform draw of B rows; rank r owns a contiguous block of N/P of them, so the number
of batch rows it owns is hypergeometric, and a data-parallel step waits for the rank with the
most. This script draws batches as BatchSchedule does (a random permutation cut into batches),
counts the rows each rank owns among the active positions [0, A) and the remainder [A, B), and
reports the slowest rank's rows over an even share, B / P. Balanced (batch_workers), every rank
works on its RowPartition share of each class, so the slowest has ceil(A / P) + ceil(R / P) rows.
This is a count of rows, not a timing: a step's encoder and remainder work scale with it.

    /usr/bin/python3 bench/batch_balance.py [--rows 1000000] [--batch 1024] [--active 200]
"""
import argparse

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--active", type=int, default=200)
    parser.add_argument("--batches", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n, b, a = args.rows, args.batch, args.active
    print(f"N = {n}, B = {b}, A = {a}, {args.batches} batches")
    print("ranks  slowest rank / even share: by owner (mean, 99th percentile)   balanced")
    for ranks in (2, 4, 8, 16, 32, 64):
        # RowPartition: the first N mod P ranks own one row more.
        starts = np.array([r * (n // ranks) + min(r, n % ranks) for r in range(ranks + 1)])
        ratios = []
        for _ in range(args.batches):
            rows = rng.choice(n, size=b, replace=False)
            owner = np.searchsorted(starts, rows, side="right") - 1
            active = np.bincount(owner[:a], minlength=ranks)
            remainder = np.bincount(owner[a:], minlength=ranks)
            ratios.append((active + remainder).max() / (b / ranks))
        balanced = (-(-a // ranks) + -(-(b - a) // ranks)) / (b / ranks)
        print(f"{ranks:5d}  {np.mean(ratios):10.3f} {np.percentile(ratios, 99):10.3f}"
              f"                              {balanced:8.3f}")


if __name__ == "__main__":
    main()
