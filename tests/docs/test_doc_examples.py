#!/usr/bin/python3
"""Run the command blocks of documentation pages as a reader would, at a small size (tests/docs/README.md).

usage: test_doc_examples.py --source DIR --gplvm BIN --mpiexec MPIEXEC [--mpi-flags FLAGS] [--keep] PAGE...

Each page's blocks run in order, as one reader following the page, in one fresh working directory
holding the repository's scripts and tools (linked) and a copy of configs/; `gplvm`, `build/gplvm` and
`mpirun` there are the wrappers in tests/docs/bin. A block marked `skip` is listed with its reason.
Exit status 1 when a marker is malformed, an untagged block holds commands, or a block that is not
skipped exits non-zero; each block's time is printed.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from doc_blocks import MarkerError, read_blocks
from example_fixtures import Fixtures, UnknownFixture

HERE = os.path.dirname(os.path.abspath(__file__))
LINKED = ("tools", "scripts", "bench", "jobs", "python", "tests")  # read, never written, by the examples
COPIED = ("configs",)  # their relative paths point into the working directory's results/
BLOCK_TIMEOUT = 300
OUTPUT_LINES_SHOWN = 40


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", metavar="PAGE", help="Markdown page, relative to --source")
    parser.add_argument("--source", required=True, help="the repository's root")
    parser.add_argument("--gplvm", required=True, help="the gplvm executable under test")
    parser.add_argument("--mpiexec", required=True, help="the MPI launcher the mpirun wrapper runs")
    parser.add_argument("--mpi-flags", default="", help="flags the wrapper gives the launcher")
    parser.add_argument("--keep", action="store_true", help="keep the working directories (printed)")
    return parser.parse_args(argv)


def prepare_workdir(workdir, source):
    for name in LINKED:
        os.symlink(os.path.join(source, name), os.path.join(workdir, name))
    for name in COPIED:
        shutil.copytree(os.path.join(source, name), os.path.join(workdir, name))
    os.makedirs(os.path.join(workdir, "build"))
    os.symlink(os.path.join(HERE, "bin", "gplvm"), os.path.join(workdir, "build", "gplvm"))


def example_environment(args):
    env = dict(os.environ)
    env.update(
        PATH=os.path.join(HERE, "bin") + os.pathsep + env.get("PATH", ""),
        GPLVM_EXAMPLE_BINARY=os.path.abspath(args.gplvm),
        GPLVM_EXAMPLE_MPIEXEC=args.mpiexec,
        GPLVM_EXAMPLE_MPI_FLAGS=args.mpi_flags,
        MPLBACKEND="Agg",
    )
    return env


def run_block(block, workdir, env):
    """(passed, seconds, output) of one block run by bash with -e and pipefail."""
    env = dict(env, GPLVM_EXAMPLE_SMALL=block.small)
    start = time.monotonic()
    try:
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", block.script()], cwd=workdir, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=BLOCK_TIMEOUT)
        passed, output = result.returncode == 0, result.stdout + f"\n(exit status {result.returncode})"
    except subprocess.TimeoutExpired as exc:
        passed, output = False, f"{exc.stdout or ''}\n(killed after {BLOCK_TIMEOUT} s)"
    return passed, time.monotonic() - start, output


def run_page(page, args, env):
    """The number of failed blocks of one page."""
    blocks = read_blocks(os.path.join(args.source, page), display_path=page)
    workdir = tempfile.mkdtemp(prefix="doc-example-")
    failed = 0
    try:
        prepare_workdir(workdir, args.source)
        fixtures = Fixtures(workdir, os.path.abspath(args.gplvm), args.source)
        for block in blocks:
            if block.skip:
                print(f"skipped  {block.where}: {block.skip}")
                continue
            fixtures.make(block.files, block.where)
            passed, seconds, output = run_block(block, workdir, env)
            print(f"{'ok' if passed else 'FAILED':8} {block.where} ({seconds:.1f} s)", flush=True)
            if not passed:
                failed += 1
                print("\n".join(f"    | {line}" for line in output.splitlines()[-OUTPUT_LINES_SHOWN:]))
    finally:
        if args.keep:
            print(f"working directory kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return failed


def main(argv=None):
    args = parse_args(argv)
    args.source = os.path.abspath(args.source)  # the working directory links to it
    # Resolved before the wrappers come first on PATH, so the mpirun wrapper does not find itself.
    args.mpiexec = shutil.which(args.mpiexec) or args.mpiexec
    env = example_environment(args)
    failed = 0
    for page in args.pages:
        try:
            failed += run_page(page, args, env)
        except (MarkerError, UnknownFixture, RuntimeError, subprocess.CalledProcessError) as exc:
            print(f"FAILED   {exc}")
            failed += 1
    print(f"{failed} failed" if failed else "every block ran")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
