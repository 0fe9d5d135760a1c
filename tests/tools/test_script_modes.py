#!/usr/bin/python3
"""Every script the documentation runs by its path (a file with a #! line under scripts/, tools/,
jobs/, bench/, .ci/ or tests/) must be executable, or a fresh clone answers `Permission denied`.

usage: /usr/bin/python3 tests/tools/test_script_modes.py SOURCE_DIR
"""
import os
import sys

FOLDERS = ("scripts", "tools", "jobs", "bench", ".ci", "tests")


def scripts(root):
    for folder in FOLDERS:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                path = os.path.join(directory, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    with open(path, "rb") as f:
                        if f.read(2) == b"#!":
                            yield path


def main():
    root = sys.argv[1]
    found = list(scripts(root))
    assert len(found) >= 10, f"only {len(found)} scripts found under {root}: wrong source folder?"
    not_executable = sorted(os.path.relpath(p, root) for p in found if not os.access(p, os.X_OK))
    if not_executable:
        print("scripts with a #! line that are not executable (chmod +x, and commit the mode):")
        print("\n".join(f"  {p}" for p in not_executable))
        sys.exit(1)
    print(f"{len(found)} scripts, all executable")


if __name__ == "__main__":
    main()
