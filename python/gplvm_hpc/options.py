"""Estimator parameters as gplvm's configuration overrides, `--section.key=value`
(docs/guide/configuration.md).

A parameter left at None is not passed at all, so every default is the command line's own: there is one
place, `gplvm train --help`, that says what a default is.
"""

import json
import math
import numbers

import numpy as np

# Keys the estimators set themselves: the files live in the estimator's private working directory.
RESERVED_KEYS = ("data.path", "data.dataset", "data.labels", "output.path", "output.checkpoint_dir")


def format_value(name, value):
    """The text of one override's value, as the command line reads it (TOML arrays for lists)."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        if math.isnan(value):
            raise ValueError(f"{name} = nan is not a value gplvm accepts")
        return repr(float(value))
    if isinstance(value, str):
        if "\n" in value or "\0" in value:
            raise ValueError(f"{name} = {value!r}: a value may not contain a newline or NUL")
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_list_element(name, v) for v in value) + "]"
    raise TypeError(f"{name} = {value!r}: expected a bool, number, string or list, got {type(value).__name__}")


def _list_element(name, value):
    # Strings in a TOML array need quotes; JSON's quoting is a valid TOML basic string.
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else format_value(name, value)


def check_config(config):
    """The `config` parameter as a dict of 'section.key' -> value, refused with the offending entry named."""
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict of 'section.key': value, got {type(config).__name__}")
    for key in config:
        if not isinstance(key, str) or key.count(".") != 1 or key.startswith(".") or key.endswith("."):
            raise ValueError(f"config key {key!r} must look like 'section.key' (gplvm train --help lists them)")
        if key in RESERVED_KEYS:
            raise ValueError(f"config key {key!r} is set by the estimator (its own working files); leave it out")
    return dict(config)


def overrides(named, config):
    """`--section.key=value` options from the named parameters ({key: (parameter name, value)}) and `config`.

    A key given both ways is refused: which of the two should win is not for the estimator to guess.
    """
    config = check_config(config)
    options = []
    for key, (parameter, value) in named.items():
        if value is None:
            continue
        if key in config:
            raise ValueError(f"{key} is given twice: as {parameter}={value!r} and in config; keep one")
        options.append(f"--{key}={format_value(parameter, value)}")
    options += [f"--{key}={format_value(f'config[{key!r}]', value)}" for key, value in config.items()]
    return options


def parameter_for_key(key, named, config):
    """How the user set the key an error names, for its message: 'kind', "config['sas.batch_size']", ...;
    None when it was gplvm's default. Some messages name a key without its section ('latent_dim')."""
    def same(full):
        return full == key or full.endswith("." + key)

    for named_key, (parameter, value) in named.items():
        if same(named_key) and value is not None:
            return parameter
    for config_key in config or {}:
        if same(config_key):
            return f"config[{config_key!r}]"
    return None
