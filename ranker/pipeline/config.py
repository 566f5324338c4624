"""Experiment configuration: a strict TOML schema, resolved once, saved beside every report.

The settings (the sections, their keys, defaults, choices and ranges) are :mod:`ranker.settings`,
below every layer; this module reads a TOML file into them and checks it, and re-exports them.

Every key has a default here, so a config names only what it changes; every key a config names
must exist here, so a typo is an error (file, section, key) instead of a silently ignored setting.
The fully resolved config (defaults filled in, paths made absolute) is written next to the report,
so a report always says exactly what produced it.
"""
from __future__ import annotations

import dataclasses
import math
import os
import tomllib
import typing
from pathlib import Path

from ..errors import RankerError
# The settings themselves live below every layer (ranker/settings.py); they are re-exported here so
# that ``from ranker.pipeline.config import LogLinearSection`` keeps working.
from ..settings import (BOUNDS, MAX_RESAMPLES, RULES, SCHEMA_VERSION, SECTIONS,  # noqa: F401
                        AnnotationSection, DataSection, EvaluationSection, EvidenceSection, ExperimentConfig,
                        ExperimentSection, FeaturesSection, HeidornSection, LogLinearSection, ParseSection,
                        Range, ReportSection, ServeSection, choices, default, section_name, setting)
from ..textfiles import decode_text


class ConfigError(RankerError):
    """A config file that cannot be read or says something we do not understand."""


def _check_range(value, bounds: Range | None, where: str) -> None:
    """Raise naming the key when a number (or a list's item) is not finite or out of ``bounds``."""
    if isinstance(value, tuple):
        for i, v in enumerate(value):
            _check_range(v, bounds, f"{where}[{i}]")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    if not math.isfinite(value):
        raise ConfigError(f"{where}: must be a finite number, got {value!r}")
    if bounds is None:
        return
    why = f" ({bounds.why})" if bounds.why else ""
    if bounds.low is not None and (value < bounds.low or (value == bounds.low and bounds.low_open)):
        raise ConfigError(f"{where}: must be {'>' if bounds.low_open else '>='} {bounds.low}, got {value!r}{why}")
    if bounds.high is not None and (value > bounds.high or (value == bounds.high and bounds.high_open)):
        raise ConfigError(f"{where}: must be {'<' if bounds.high_open else '<='} {bounds.high}, got {value!r}{why}")


def _check_choice(value, allowed: tuple[str, ...] | None, where: str) -> None:
    """Raise naming the key when ``value`` (or a list's item) is not one of the names it may take."""
    if isinstance(value, tuple):
        for i, v in enumerate(value):
            _check_choice(v, allowed, f"{where}[{i}]")
        return
    if allowed is not None and value not in allowed:
        raise ConfigError(f"{where} {value!r} is not known (known: {', '.join(allowed)})")


def check_bounds(section: str, key: str, value, where: str) -> None:
    """Raise :class:`ConfigError` naming ``where`` when ``value`` is not a number ``[section] key`` takes.

    The same :data:`BOUNDS` a config file is checked against; the command-line options that
    stand for a config key are checked with it too (:func:`ranker.cli.options.config_option`).
    """
    _check_range(value, BOUNDS.get((section, key)), where)


def _check_value(value, annotation, where: str):
    """Coerce a TOML value to the field's declared type or raise naming the key."""
    origin = typing.get_origin(annotation)
    if origin is tuple:
        (item_type, _) = typing.get_args(annotation)
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        return tuple(_check_value(v, item_type, f"{where}[{i}]") for i, v in enumerate(value))
    if dataclasses.is_dataclass(annotation):   # a table of tables: [[data.also]]
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a table, got {value!r}")
        source, _, label = where.rpartition(": ")
        return _section(annotation, value, source, label, getattr(annotation, "ALSO_KEYS", None))
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if annotation is int and isinstance(value, bool):
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if not isinstance(value, annotation):
        raise ConfigError(f"{where}: expected {annotation.__name__}, got {value!r}")
    return value


#: Keys a config may still say under their old name: (section, old key) -> (new key, type, value map).
#: ``[annotation] fewest_violations`` (a bool) became ``rule`` when more rules than two existed.
RENAMED: dict[tuple[str, str], tuple[str, type, typing.Callable]] = {
    ("annotation", "fewest_violations"): ("rule", bool, lambda fewest: "fewest" if fewest else "strict"),
}


def _renamed(name: str, body: dict, source: str) -> dict:
    """``body`` with old key names rewritten to their new ones (both given: an error naming them)."""
    body = dict(body)
    for (section, old), (new, typ, convert) in RENAMED.items():
        if section != name or old not in body:
            continue
        where = f"{source}: [{name}] {old}"
        if new in body:
            raise ConfigError(f"{where}: says the same as '{new}' (its new name); keep only '{new}'")
        body[new] = convert(_check_value(body.pop(old), typ, where))
    return body


def config_from_dict(doc: dict, source: str = "<dict>") -> ExperimentConfig:
    """Build a config from parsed TOML, rejecting unknown sections, unknown keys and wrong types.

    Old key names of :data:`RENAMED` are read as their new ones (the resolved config says the new).
    """
    doc = dict(doc)
    version = doc.pop("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise ConfigError(f"{source}: schema_version {version} is not {SCHEMA_VERSION}")
    hints = typing.get_type_hints(ExperimentConfig)
    sections = {}
    for name, body in doc.items():
        if name not in hints or name == "source":
            known = ", ".join(f"[{n}]" for n in hints if n != "source")
            raise ConfigError(f"{source}: unknown section [{name}] (known: {known})")
        if not isinstance(body, dict):
            raise ConfigError(f"{source}: [{name}] must be a table")
        sections[name] = _section(hints[name], _renamed(name, body, source), source, f"[{name}]")
    cfg = ExperimentConfig(**sections, source=source)
    check_settings(cfg)
    return cfg


def _section(cls: type, body: dict, source: str, label: str, keys: tuple[str, ...] | None = None):
    """The section ``cls`` from a TOML table (``label``: ``[parse]``, ``[data] also[0]``), its keys
    checked (``keys``: the only ones it may set)."""
    fields = typing.get_type_hints(cls)
    known = tuple(fields) if keys is None else keys
    values = {}
    for key, value in body.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown key '{key}' in {label} (known: {', '.join(known)})")
        values[key] = _check_value(value, fields[key], f"{source}: {label} {key}")
    return cls(**values)


def check_settings(cfg: ExperimentConfig) -> None:
    """Raise :class:`ConfigError` naming the key of the first value outside its range or choices.

    Every key with a ``range`` or ``choices`` (:func:`setting`) is checked, so a config built in
    code is held to the same values as one read from a file.
    """
    for name, section in SECTIONS.items():
        values = getattr(cfg, name)
        _check_section(values, f"{cfg.source}: [{name}]")
    check_experiment_name(cfg.experiment.name, f"{cfg.source}: [experiment] name")


def _check_section(values, where: str) -> None:
    """Check every key of one section (and of its tables of tables, ``[[data.also]]``)."""
    section = type(values)
    for f in dataclasses.fields(section):
        value = getattr(values, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            for i, sub in enumerate(value):
                _check_section(sub, f"{where} {f.name}[{i}]")
            continue
        _check_range(value, f.metadata.get("range"), f"{where} {f.name}")
        _check_choice(value, choices(section, f.name), f"{where} {f.name}")


def check_experiment_name(name: str, where: str) -> None:
    """Refuse an experiment name that is no single folder name: ``ranker run`` writes ``runs/NAME``,
    so ``../../escape`` wrote outside ``runs/`` and ``""`` into ``runs/`` itself."""
    if not name.strip() or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise ConfigError(f"{where}: {name!r} is not a folder name (ranker run writes runs/NAME): "
                          "give a non-empty name without / or \\, not . or ..")


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate an experiment config file.

    Raises
    ------
    ConfigError
        For a missing or unreadable file, text that is not UTF-8, invalid TOML (with its line and
        column), unknown sections or keys, values of the wrong type and numbers out of range.
    """
    path = Path(path)
    try:
        text = decode_text(path.read_bytes(), str(path))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    return resolve_paths(config_from_dict(doc, str(path)), path.parent)


def resolve_path(value: str, kind: str, base: str | Path) -> str:
    """``value`` of a key of path kind ``kind`` (:data:`ranker.settings.PATH_KINDS`) read from ``base``.

    A relative path becomes absolute, joined to ``base``; an absolute path, a shipped table's bare
    name (no ``/``), a split that is no ``@FILE`` and an empty value stay as they are.
    """
    at = ""
    if kind == "split":
        if not value.startswith("@"):
            return value
        at, value = "@", value[1:]
    elif kind == "table" and "/" not in value and os.sep not in value:
        return value
    if not value or os.path.isabs(value):
        return at + value
    return at + os.path.normpath(os.path.join(os.path.abspath(base), os.path.expanduser(value)))


def resolve_paths(cfg: ExperimentConfig, base: str | Path) -> ExperimentConfig:
    """``cfg`` with every relative path it names read from the folder ``base`` (the config file's).

    So ``ranker run configs/gum.toml`` reads the same files from the project folder as from any
    other (``path = "../../shared/gum/const"`` is beside the project, wherever one stands). The
    store and ``runs/NAME`` are outputs, written where ranker runs, and are not touched here. The
    result names absolute paths, so ``config.resolved.toml`` reads the same files from its own folder.
    """
    changed = {}
    for name in SECTIONS:
        values = getattr(cfg, name)
        new = _resolved_section(values, base)
        if new is not values:
            changed[name] = new
    return dataclasses.replace(cfg, **changed) if changed else cfg


def _resolved_section(values, base: str | Path):
    """One section with its relative paths read from ``base`` (those of ``[[data.also]]`` too)."""
    new = {}
    for f in dataclasses.fields(values):
        value = getattr(values, f.name)
        if "path" in f.metadata:
            value = resolve_path(value, f.metadata["path"], base)
        elif isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            value = tuple(_resolved_section(v, base) for v in value)
        if value != getattr(values, f.name):
            new[f.name] = value
    return dataclasses.replace(values, **new) if new else values
