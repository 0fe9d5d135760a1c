"""The exceptions a failed gplvm command becomes (exit codes: docs/guide/outputs.md).

With --json gplvm reports an error as one JSON object on stdout: the message, the exit code and the
configuration key and value it names. The exception keeps them, and names the estimator parameter that
set the key, so the message says what to change.
"""


class GPLVMError(RuntimeError):
    """A gplvm command failed: exit code 1 (numerical or system failure), 3 (stopped by a signal after
    writing a checkpoint) or a launcher's own code."""

    def __init__(self, message, exit_code=None, key=None, value=None):
        super().__init__(message)
        self.exit_code = exit_code
        self.key = key
        self.value = value


class GPLVMInputError(GPLVMError, ValueError):
    """gplvm refused its input, configuration or command line (exit code 2)."""


INPUT_EXIT_CODE = 2
LOG_LINES_IN_MESSAGE = 15


def _setting(key, parameter):
    if parameter:
        return f": set by {parameter}"
    if "." in key:  # a configuration key left at its default
        return f": gplvm's default; set it with config={{{key!r}: ...}}"
    return ""


def command_error(command, returncode, reply, log_tail, parameter_for_key):
    """The exception for a command that exited `returncode`; `reply` is its JSON error object or None.

    parameter_for_key(key) says which estimator parameter set a configuration key (None: its default).
    """
    reply = reply or {}
    code = reply.get("exit_code", returncode)
    message = f"gplvm {command} failed (exit code {code})"
    if reply.get("error"):
        message += f": {reply['error']}"
    key = reply.get("key")
    if key:
        message += f" [{key} = {reply.get('value')!s}{_setting(key, parameter_for_key(key))}]"
    if not reply.get("error") and log_tail:
        lines = log_tail.rstrip().splitlines()[-LOG_LINES_IN_MESSAGE:]
        message += "\n" + "\n".join(lines)
    kind = GPLVMInputError if code == INPUT_EXIT_CODE else GPLVMError
    return kind(message, exit_code=code, key=key, value=reply.get("value"))
