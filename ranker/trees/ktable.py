"""Heidorn's constants K per modifier type, read from and written to TOML tables in ``configs/k-tables/``.

A table declares which fields make a modifier's type (any of ``modifier``, the modifier's category;
``head``, the category of the phrase it modifies; ``side``, ``pre`` or ``post`` of the head), a
default K (Heidorn's simplest form: 0.1 for every type) and K for particular types, keyed by the
type's fields joined with spaces::

    [heidorn]
    type = ["modifier", "side"]
    default = 0.1

    [k]
    "MD pre" = 0.0      # a reward: prefer a potential auxiliary as an auxiliary
    "ADVP pre" = 2.0    # a penalty
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

from ..errors import RankerError
from ..shipped import shipped_file
from ..textfiles import read_text

TYPE_FIELDS = ("modifier", "head", "side")
SIDES = ("pre", "post")


class KTableError(RankerError):
    """A K table that cannot be read or says something we do not understand."""


@dataclass(frozen=True)
class KTable:
    """K per modifier type; types not listed get ``default``."""

    type_fields: tuple[str, ...] = ("modifier",)
    default: float = 0.1
    k: Mapping[tuple[str, ...], float] = field(default_factory=dict)

    def __post_init__(self):
        # A plain dict copy (not a MappingProxy) so that sklearn's clone can deep-copy a table.
        object.__setattr__(self, "k", {tuple(key): float(v) for key, v in dict(self.k).items()})
        object.__setattr__(self, "type_fields", tuple(self.type_fields))
        bad = [f for f in self.type_fields if f not in TYPE_FIELDS]
        if bad or not self.type_fields or len(set(self.type_fields)) != len(self.type_fields):
            raise KTableError(f"type must be distinct fields out of {list(TYPE_FIELDS)}, "
                              f"not {list(self.type_fields)}")

    def __hash__(self):
        return hash((self.type_fields, self.default, tuple(sorted(self.k.items()))))

    def __eq__(self, other):
        return (isinstance(other, KTable) and self.type_fields == other.type_fields
                and self.default == other.default and dict(self.k) == dict(other.k))

    def type_of(self, modifier: str, head: str, side: str) -> tuple[str, ...]:
        """The type key of one modifier under this table's type fields."""
        values = {"modifier": modifier, "head": head, "side": side}
        return tuple(values[f] for f in self.type_fields)

    def lookup(self, key: tuple[str, ...]) -> float:
        """K of a type key."""
        return self.k.get(key, self.default)

    def with_k(self, key: tuple[str, ...], value: float) -> "KTable":
        """A copy with K of ``key`` set to ``value``."""
        k = dict(self.k)
        k[tuple(key)] = float(value)
        return replace(self, k=k)

    def to_dict(self) -> dict:
        """The table in the shape of its TOML file (what :meth:`from_dict` reads)."""
        return {"heidorn": {"type": list(self.type_fields), "default": self.default},
                "k": {" ".join(key): v for key, v in sorted(self.k.items())}}

    def to_toml(self, header: str = "") -> str:
        """The table as TOML text, comment lines of ``header`` first (its provenance)."""
        lines = [f"# {h}".rstrip() for h in header.splitlines()]
        lines += ["[heidorn]", "type = [" + ", ".join(f'"{f}"' for f in self.type_fields) + "]",
                  f"default = {self.default!r}", "", "[k]"]
        for key in sorted(self.k):
            name = " ".join(key).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'"{name}" = {float(self.k[key])!r}')
        return "\n".join(lines) + "\n"

    @classmethod
    def load(cls, path_or_name) -> "KTable":
        """Read a table from a path, or by name from ``configs/k-tables/`` (``"default"``).

        Raises
        ------
        KTableError
            Unreadable TOML, unknown keys, a key with the wrong number of fields, a bad K.
        """
        path = Path(path_or_name)
        if not path.exists() and not path.suffix:
            path = shipped_file("k-tables", str(path_or_name), ".toml") or path
        try:
            doc = tomllib.loads(read_text(path, "K table"))
        except FileNotFoundError:
            raise KTableError(f"{path}: no such K table") from None
        except tomllib.TOMLDecodeError as e:
            raise KTableError(f"{path}: {e}") from None
        return cls.from_dict(doc, str(path))

    @classmethod
    def from_dict(cls, doc: dict, source: str = "<k table>") -> "KTable":
        """Build a table from parsed TOML, naming ``source`` in every error."""
        unknown = set(doc) - {"heidorn", "k"}
        if unknown:
            raise KTableError(f"{source}: unknown section(s) {sorted(unknown)}; expected [heidorn] and [k]")
        head = doc.get("heidorn", {})
        unknown = set(head) - {"type", "default"}
        if unknown:
            raise KTableError(f"{source}: [heidorn] has unknown key(s) {sorted(unknown)}")
        fields = tuple(head.get("type", ("modifier",)))
        default = head.get("default", 0.1)
        if not isinstance(default, (int, float)) or isinstance(default, bool) or default < 0:
            raise KTableError(f"{source}: [heidorn] default must be a number >= 0, not {default!r}")
        try:
            table = cls(fields, float(default), {})
        except KTableError as e:
            raise KTableError(f"{source}: [heidorn] {e}") from None
        k = {}
        for name, value in doc.get("k", {}).items():
            key = tuple(name.split())
            if len(key) != len(fields):
                raise KTableError(f"{source}: [k] key {name!r} must give {len(fields)} field(s) "
                                  f"({' '.join(fields)})")
            if "side" in fields and key[fields.index("side")] not in SIDES:
                raise KTableError(f"{source}: [k] key {name!r}: side must be 'pre' or 'post'")
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise KTableError(f"{source}: [k] {name!r} must be a number >= 0, not {value!r}")
            k[key] = float(value)
        return cls(fields, float(default), k)


def as_k_table(spec) -> KTable:
    """A K table from a KTable, a table dict (TOML shape), or a name/path of a TOML file."""
    if isinstance(spec, KTable):
        return spec
    if isinstance(spec, dict):
        return KTable.from_dict(spec)
    return KTable.load(spec)
