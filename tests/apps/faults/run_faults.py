#!/usr/bin/python3
"""Runs the fault and bad-input cases (fault_cases.py) against the gplvm executable.

Each case runs in a fresh folder, under `timeout` (a hang fails), alone or under mpirun, and passes
when the exit code is the expected one, stderr names every culprit listed, and the command left
nothing behind: no output, no temporary file, in its folder or next to the inputs, and no input
changed. Cases marked xfail wait on a fix made elsewhere: their failure is reported, not counted.

  run_faults.py --gplvm build/gplvm --mpiexec mpirun [--mpi-flags "..."] [--group cli] [--jobs 4]
  run_faults.py --markdown      # the table of docs/reliability.md
"""
import argparse
import concurrent.futures
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import fault_cases
import fault_fixtures

TIMEOUT_S = 120


def snapshot(folder):
    """Every file below `folder` with its size and modification time."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            found[os.path.relpath(path, folder)] = (st.st_size, st.st_mtime_ns)
    return found


def differences(before, after):
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p])
    notes = [f"left behind: {p}" for p in added] + [f"removed: {p}" for p in removed]
    return notes + [f"changed: {p}" for p in changed]


def command_of(case, options, fixtures):
    args = shlex.split(case.args.replace("{fx}", fixtures))
    launcher = []
    if case.ranks > 1:
        launcher = [options.mpiexec, "-n", str(case.ranks)] + shlex.split(options.mpi_flags)
    return ["timeout", str(TIMEOUT_S)] + launcher + [options.gplvm] + args


def run_case(case, options, fixtures, fixture_state, base_env):
    folder = tempfile.mkdtemp(prefix="case-", dir=options.scratch)
    for name, text in case.files.items():
        if text is None:
            os.mkdir(os.path.join(folder, name))
            continue
        with open(os.path.join(folder, name), "w") as f:
            f.write(text.replace("{fx}", fixtures))
    for name in case.copies:
        shutil.copy(os.path.join(fixtures, name), folder)
    before = snapshot(folder)
    env = dict(base_env, **case.env)
    done = subprocess.run(command_of(case, options, fixtures), cwd=folder, env=env, capture_output=True, text=True)
    problems = []
    if done.returncode == 124:
        problems.append(f"timed out after {TIMEOUT_S} s")
    elif done.returncode != case.code:
        problems.append(f"exit code {done.returncode}, expected {case.code}")
    problems += [f"stderr does not name {n!r}" for n in case.names if n.replace("{fx}", fixtures) not in done.stderr]
    problems += differences(before, snapshot(folder))
    problems += [f"fixtures: {d}" for d in differences(fixture_state, snapshot(fixtures))]
    shutil.rmtree(folder, ignore_errors=True)
    return case, problems, done.stderr.strip()


def report(case, problems, stderr):
    title = f"[{case.group}] {case.name}" + (f" (np {case.ranks})" if case.ranks > 1 else "")
    if case.xfail:
        state = "XFAIL" if problems else "XPASS"
        print(f"{state} {title}: waits on {case.xfail}" + (f"; {problems[0]}" if problems else ""))
        return True
    if not problems:
        print(f"ok    {title}")
        return True
    print(f"FAIL  {title}")
    for p in problems:
        print(f"        {p}")
    tail = stderr.splitlines()[-3:]  # the error line, not the resolved configuration train prints first
    print("        stderr: " + "\n                ".join(tail))
    return False


def markdown():
    print("| case | command | exit code | message names |")
    print("|---|---|---|---|")
    for c in fault_cases.CASES:
        args = c.args.replace("{fx}/", "").replace("|", "\\|")
        ranks = f" (2 ranks)" if c.ranks > 1 else ""
        env = "".join(f"{k}={v} " for k, v in c.env.items())
        names = ", ".join(f"`{n}`" for n in c.names)
        note = f" (expected failure until: {c.xfail})" if c.xfail else ""
        print(f"| {c.group}: {c.name}{note} | `{env}gplvm {args}`{ranks} | {c.code} | {names} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gplvm")
    parser.add_argument("--mpiexec", default="mpirun")
    parser.add_argument("--mpi-flags", default="--oversubscribe")
    parser.add_argument("--group", action="append", choices=fault_cases.GROUPS)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--markdown", action="store_true")
    options = parser.parse_args()
    if options.markdown:
        markdown()
        return 0
    options.gplvm = os.path.abspath(options.gplvm)
    groups = options.group or fault_cases.GROUPS
    cases = [c for c in fault_cases.CASES if c.group in groups]
    # One thread per process, as the project's tests run (OMP_NUM_THREADS is set per case where tested).
    base_env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
    with tempfile.TemporaryDirectory(prefix="gplvm-faults-") as root:
        fixtures = os.path.join(root, "fixtures")
        options.scratch = os.path.join(root, "cases")
        os.mkdir(fixtures)
        os.mkdir(options.scratch)
        needs_runs = any("run" in c.args or c.group in ("runs", "output", "damaged") for c in cases)
        fault_fixtures.make_all(options.gplvm, fixtures, base_env, needs_runs)
        fixture_state = snapshot(fixtures)
        with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
            results = list(pool.map(lambda c: run_case(c, options, fixtures, fixture_state, base_env), cases))
    passed = [report(*r) for r in results]
    failed = passed.count(False)
    print(f"{len(cases) - failed} of {len(cases)} cases as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
