"""The command blocks of a Markdown page and the `<!-- example: ... -->` markers that say how each runs.

A command block is a fenced block tagged `sh`, `bash` or `console` (in a `console` block only the
lines after a `$ ` prompt, and their continuation lines, are commands). A marker is an HTML comment
on the line right above the fence (invisible on the rendered page), either on one line

    <!-- example: skip: needs a Slurm cluster -->

or with one `key: value` per line:

    <!-- example:
    files: train.h5 my.toml
    small: --train.max_steps=3
    sub: --n 1000000 => --n 2000
    -->

Keys (tests/docs/README.md says what each does when the block runs):
    skip    the block is not run; the value is the reason, and must be given
    files   inputs the test writes into the working directory first (tests/docs/example_fixtures.py)
    small   options added to the end of every `gplvm train`, `embed` and `sweep` command of the block
    sub     OLD => NEW: a literal replacement in the block's text (repeatable)

A fenced block without a language whose first line starts like a command (gplvm, mpirun, a script
path, ...) is an error: it must be tagged, so that it is either run or skipped with its reason. Blocks of
other languages, and markers above them, are left to the tests that run those.
"""

import re
from dataclasses import dataclass, field

COMMAND_LANGUAGES = ("sh", "bash", "console")
MARKER_KEYS = ("skip", "files", "small", "sub")
# First words that make an untagged block a command block: the ones the documentation uses.
COMMAND_WORDS = re.compile(
    r"^\s*(\$ |gplvm\b|mpirun\b|sbatch\b|make\b|ctest\b|cmake\b|/usr/bin/python3\b|python3\b|"
    r"(scripts|tools|bench|jobs|tests)/|[A-Z_]+=\S*\s)"
)
FENCE = re.compile(r"^(\s*)```\s*([A-Za-z0-9_+-]*)\s*$")
MARKER_START = re.compile(r"^\s*<!--\s*example:(.*)$")


class MarkerError(Exception):
    """A malformed marker or an untagged command block: the page must be fixed."""


@dataclass
class Block:
    path: str
    line: int  # 1-based line of the opening fence
    language: str
    text: str
    skip: str = None
    files: list = field(default_factory=list)
    small: str = ""
    substitutions: list = field(default_factory=list)

    @property
    def where(self):
        return f"{self.path}:{self.line}"

    def script(self):
        """The block's shell text after the marker's substitutions, prompts and output removed."""
        text = self.text
        for old, new in self.substitutions:
            if old not in text:
                raise MarkerError(f"{self.where}: 'sub: {old} => {new}' does not occur in the block")
            text = text.replace(old, new)
        return console_commands(text) if self.language == "console" else text


def console_commands(text):
    """The commands of a console transcript: `$ ` lines and the continuation lines after them."""
    commands, continuing = [], False
    for line in text.splitlines():
        if line.startswith("$ "):
            commands.append(line[2:])
        elif continuing:
            commands.append(line)
        else:
            continue
        continuing = line.rstrip().endswith("\\")
    return "\n".join(commands) + "\n"


def fenced_blocks(lines):
    """(opening line index, language, body lines) of every fenced block."""
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        indent = len(opening.group(1))
        yield i, opening.group(2).lower(), [line[indent:] for line in lines[i + 1:end]]
        i = end + 1


def marker_above(lines, fence_index):
    """The marker's text (its key: value lines) right above a fence, or None."""
    end = fence_index - 1
    if end < 0 or not lines[end].rstrip().endswith("-->"):
        return None
    start = end
    while start >= 0 and MARKER_START.match(lines[start]) is None:
        if "<!--" in lines[start] or start < end - 20:
            return None
        start -= 1
    if start < 0:
        return None
    first = MARKER_START.match(lines[start]).group(1)
    body = [first] + lines[start + 1:end + 1]
    body[-1] = body[-1].rstrip()[: -len("-->")]
    return [line.strip() for line in body if line.strip()]


def apply_marker(block, entries):
    for entry in entries:
        key, colon, value = entry.partition(":")
        key, value = key.strip(), value.strip()
        if not colon or key not in MARKER_KEYS:
            raise MarkerError(f"{block.where}: marker entry '{entry}' is not one of {', '.join(MARKER_KEYS)}: VALUE")
        if key == "skip":
            if not value:
                raise MarkerError(f"{block.where}: 'skip' needs a reason")
            block.skip = value
        elif key == "files":
            block.files.extend(value.split())
        elif key == "small":
            block.small = f"{block.small} {value}".strip()
        else:
            old, arrow, new = value.partition("=>")
            if not arrow or not old.strip():
                raise MarkerError(f"{block.where}: 'sub: {value}' must read OLD => NEW")
            block.substitutions.append((old.strip(), new.strip()))


def read_blocks(path, display_path=None):
    """Every command block of the page at `path`, with its marker applied; MarkerError on a bad page."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    shown = display_path or path
    blocks = []
    for index, language, body in fenced_blocks(lines):
        where = f"{shown}:{index + 1}"
        if language not in COMMAND_LANGUAGES:
            # A marker above a block of another language is for the test that runs those blocks (the
            # Python guide's: tests/python/test_guide_example.py).
            if not language and body and COMMAND_WORDS.match(body[0]):
                raise MarkerError(f"{where}: an untagged block of commands: tag it ```sh (and mark it if it cannot run)")
            continue
        block = Block(shown, index + 1, language, "\n".join(body) + "\n")
        apply_marker(block, marker_above(lines, index) or [])
        blocks.append(block)
    return blocks
