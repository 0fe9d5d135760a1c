"""Where the gplvm executable is: the `executable` parameter, then $GPLVM_EXECUTABLE, then `gplvm` on PATH,
then the build tree of the source checkout this package sits in (<repository>/build/gplvm).
"""

import os
import shutil

ENVIRONMENT_VARIABLE = "GPLVM_EXECUTABLE"

# python/gplvm_hpc/executable.py -> <repository>/build/gplvm (meaningful only in a source checkout).
BUILD_TREE_EXECUTABLE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "build", "gplvm"
)


def _checked(path, named):
    resolved = shutil.which(path) if os.sep not in path else path
    if resolved is None or not (os.path.isfile(resolved) and os.access(resolved, os.X_OK)):
        raise FileNotFoundError(f"{named} = {path!r} is not an executable file")
    return os.path.abspath(resolved)


def find_executable(explicit=None):
    """The absolute path of the gplvm executable; an explicit or environment choice must exist."""
    if explicit is not None:
        return _checked(os.fspath(explicit), "executable")
    if os.environ.get(ENVIRONMENT_VARIABLE):
        return _checked(os.environ[ENVIRONMENT_VARIABLE], ENVIRONMENT_VARIABLE)
    on_path = shutil.which("gplvm")
    if on_path is not None:
        return os.path.abspath(on_path)
    if os.access(BUILD_TREE_EXECUTABLE, os.X_OK):
        return BUILD_TREE_EXECUTABLE
    raise FileNotFoundError(
        f"no gplvm executable: pass executable=..., set ${ENVIRONMENT_VARIABLE}, put gplvm on PATH, "
        f"or build it at {BUILD_TREE_EXECUTABLE}"
    )
