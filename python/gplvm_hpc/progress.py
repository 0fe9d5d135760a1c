"""gplvm's stderr shown while a command runs: its lines followed from the log file it is written to (by the
launcher here, or by Slurm on a compute node), filtered by verbosity and handed to print or a callback.
"""

import codecs
import re
import subprocess

POLL_SECONDS = 0.2
STOP_GRACE_SECONDS = 10

# The stderr line that opens the resolved configuration, a TOML dump: section headers, `key = value` lines
# and blank lines, up to the first line of another form (a progress line, a warning).
CONFIGURATION_HEADER = "# resolved configuration"
CONFIGURATION_LINE = re.compile(r"^(\s*|\[.*\]|[A-Za-z0-9_]+ = .*)$")


class LineFilter:
    """verbose 0: no line; 1: progress lines and warnings, without the resolved configuration and the
    '#' notes; 2: every line."""

    def __init__(self, verbose, sink):
        self._verbose = verbose
        self._sink = sink
        self._in_configuration = False

    def __call__(self, line):
        if self._verbose >= 2:
            self._sink(line)
        elif self._verbose == 1 and self._is_progress(line):
            self._sink(line)

    def _is_progress(self, line):
        if line.startswith(CONFIGURATION_HEADER):
            self._in_configuration = True
            return False
        if self._in_configuration and CONFIGURATION_LINE.match(line):
            return False
        self._in_configuration = False
        return bool(line.strip()) and not line.startswith("#")


class FileFollower:
    """Hands on each complete line appended to `path` by another process; the file may not exist yet."""

    def __init__(self, path, on_line):
        self._path = path
        self._on_line = on_line
        self._offset = 0
        self._partial = ""
        # A character split between two reads is decoded when its last byte arrives.
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def poll(self):
        try:
            with open(self._path, "rb") as log:
                log.seek(self._offset)
                chunk = log.read()
        except FileNotFoundError:
            return
        self._offset += len(chunk)
        lines = (self._partial + self._decoder.decode(chunk)).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._on_line(line)

    def finish(self):
        self.poll()
        if self._partial:
            self._on_line(self._partial)
            self._partial = ""


def stop(process):
    """SIGTERM (gplvm checkpoints and exits 3), then SIGKILL if it is still there after a grace period."""
    process.terminate()
    try:
        process.wait(timeout=STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_following(process, follower, on_interrupt):
    """Waits for `process`, forwarding the followed log meanwhile; on KeyboardInterrupt calls on_interrupt()
    (which must end what the process started) and re-raises. Returns the exit code."""
    try:
        while True:
            try:
                process.wait(timeout=POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                follower.poll()
    except KeyboardInterrupt:
        on_interrupt()
        raise
    finally:
        follower.finish()
    return process.returncode
