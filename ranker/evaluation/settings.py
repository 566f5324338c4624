"""The settings stored counts and ``ranker evaluate`` depend on, with their defaults.

A module of its own, importing nothing heavy: ``ranker evaluate``'s compiled path reads the
defaults without loading the per-candidate scorer (:mod:`.scoring`, which re-exports the class).
"""
from __future__ import annotations

from typing import NamedTuple


class ScoringSettings(NamedTuple):
    """What the counts depend on; its key names the stored counts, so a change never reads stale ones."""

    evalb_param: str = "COLLINS"
    head_rules: str = "collins"              # dependency conversion
    flatten_rules: str = "ptb"
    relation_labels: str = "labels"
    mph_head_rules: str = "ringger-reassign"  # Charniak's rules with Ringger et al.'s reassignment

    def key(self) -> str:
        return (f"{self.evalb_param}+{self.head_rules}+{self.flatten_rules}+{self.relation_labels}"
                f"+mph:{self.mph_head_rules}")
