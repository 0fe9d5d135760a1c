#!/usr/bin/python3
"""The Python blocks of docs/guide/python.md run as written, in order, as one notebook session would, with
the package from this source tree and the gplvm executable under test; its decoder must reconstruct the
held-out rows better than their training mean does. A block marked
`<!-- example: skip: reason -->` on the line above its fence (one that needs a cluster or a run file) is left
out; at least one must run.

usage: /usr/bin/python3 tests/python/test_guide_example.py GPLVM_EXECUTABLE
"""

import os
import re
import subprocess
import sys

from common import GPLVM, PACKAGE_DIR, REPO, run_tests

PAGE = os.path.join(REPO, "docs", "guide", "python.md")
SKIP_MARKER = re.compile(r"^\s*<!--\s*example:\s*skip:\s*\S")


def python_blocks(text):
    """The page's ```python blocks but the skipped ones, in order."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            end = lines.index("```", i + 1)
            if not (i > 0 and SKIP_MARKER.match(lines[i - 1])):
                blocks.append("\n".join(lines[i + 1:end]))
            i = end
        i += 1
    return blocks


def test_the_notebook_session_runs_as_written(tmp):
    with open(PAGE) as page:
        blocks = python_blocks(page.read())
    assert blocks, f"no runnable python block in {PAGE}"
    env = dict(os.environ, PYTHONPATH=PACKAGE_DIR, GPLVM_EXECUTABLE=GPLVM)
    done = subprocess.run([sys.executable, "-c", "\n\n".join(blocks)], cwd=tmp, env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, f"the page's python blocks failed:\n{done.stdout}\n{done.stderr}"
    # The session prints its decoder's error on the held-out rows and that of predicting the mean.
    found = re.search(r"reconstruction RMSE: (\S+) against the training mean: (\S+)", done.stdout)
    assert found, done.stdout
    assert float(found[1]) < float(found[2]), found[0]


if __name__ == "__main__":
    run_tests(test_the_notebook_session_runs_as_written)
