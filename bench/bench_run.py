"""What the side-by-side benchmark scripts share: the environment a run gets (its thread count, root
allowed for Open MPI, OpenBLAS's kernels) and a run timed by /usr/bin/time -v."""
import os
import re
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def use_openblas_coretype(gplvm):
    """Sets OPENBLAS_CORETYPE in this process's environment, which every run inherits, where Debian's OpenBLAS
    does not recognise the CPU and would run slow kernels: gplvm's advice through scripts/openblas_coretype.sh
    (nothing where the kernels fit or the variable is set already). NumPy, scikit-learn and gplvm then compare on
    the same kernels."""
    coretype = subprocess.run(["bash", os.path.join(ROOT, "scripts", "openblas_coretype.sh"), gplvm], check=True,
                              stdout=subprocess.PIPE, text=True).stdout.strip()  # its note goes to stderr
    if coretype:
        os.environ["OPENBLAS_CORETYPE"] = coretype


def env_for(threads):
    env = dict(os.environ)
    env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def timed(cmd, env, cwd, limit=None, memory_gb=None, last_lines=3):
    """Runs cmd under /usr/bin/time -v: (seconds, peak RSS in MB of the largest process, stdout, error).

    memory_gb caps the address space (RLIMIT_AS), so that a baseline that would exhaust the machine
    fails with its own error instead of waking the kernel's OOM killer. The error quotes the program's
    own last `last_lines` lines of stderr, before /usr/bin/time's report (its lines start with a tab)."""
    def cap():
        if memory_gb:
            import resource
            limit_bytes = int(memory_gb * 2 ** 30)
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    start = time.monotonic()
    try:
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, env=env, cwd=cwd, capture_output=True, text=True,
                           timeout=limit, preexec_fn=cap)
    except subprocess.TimeoutExpired:
        return time.monotonic() - start, None, "", f"over {limit} s"
    seconds = time.monotonic() - start
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    rss = int(m.group(1)) / 1024 if m else None
    own = [line for line in p.stderr.splitlines() if line.strip() and not line.startswith("\t")
           and not line.startswith("Command ")]
    error = None if p.returncode == 0 else f"exit {p.returncode}: {own[-last_lines:]}"
    return seconds, rss, p.stdout, error
