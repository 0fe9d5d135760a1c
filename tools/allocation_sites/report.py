#!/usr/bin/python3
"""Per-step heap allocations by call site, from two allocation_sites.c reports of the same program
run for S1 and S2 steps (address randomisation off): the difference divided by S2 - S1.

usage: /usr/bin/python3 tools/allocation_sites/report.py SHORT.txt LONG.txt STEPS [--top 30]
  STEPS: the difference in steps between the two runs. Frames are named with addr2line.
"""
import argparse
import subprocess


def load(path):
    """{stack (tuple of addresses): (count, bytes)} and the memory map of one report."""
    sites, maps, frames = [], [], None
    for line in open(path):
        if line.startswith("site "):
            _, count, nbytes = line.split()
            frames = []
            sites.append((int(count), int(nbytes), frames))
        elif line.startswith("  0x"):
            frames.append(int(line, 16))
        elif line.startswith("map "):
            fields = line.split()
            low, high = (int(x, 16) for x in fields[1].split("-"))
            if len(fields) > 6:
                maps.append((low, high, int(fields[3], 16), fields[6]))
    return {tuple(f): (c, b) for c, b, f in sites}, maps


def namer(maps):
    cache = {}

    def name(address):
        for low, high, offset, path in maps:
            if low <= address < high:
                key = (path, address - low + offset)
                if key not in cache:
                    out = subprocess.run(["addr2line", "-f", "-C", "-e", path, hex(key[1] - 1)],
                                         capture_output=True, text=True).stdout.splitlines()
                    cache[key] = (out[0] if out else "?")[:100] + " (" + path.rsplit("/", 1)[-1] + ")"
                return cache[key]
        return hex(address)

    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("short")
    ap.add_argument("long")
    ap.add_argument("steps", type=float)
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    short, _ = load(a.short)
    long, maps = load(a.long)
    name = namer(maps)
    grown = []
    for frames, (count, nbytes) in long.items():
        c0, b0 = short.get(frames, (0, 0))
        if count > c0:
            grown.append(((count - c0) / a.steps, (nbytes - b0) / a.steps, frames))
    grown.sort(key=lambda g: -g[0])
    print(f"{sum(g[0] for g in grown):.1f} allocations, {sum(g[1] for g in grown) / 1e6:.2f} MB per step")
    for count, nbytes, frames in grown[:a.top]:
        print(f"{count:8.1f} per step {nbytes / 1e6:8.3f} MB")
        for f in frames[:5]:
            print("          " + name(f))


if __name__ == "__main__":
    main()
