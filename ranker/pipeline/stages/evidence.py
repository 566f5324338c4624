"""The ``parse_evidence`` stage: the ``[evidence]`` source's candidates parsed or imported."""
from __future__ import annotations

from typing import Sequence

from ...errors import RankerError
from ...store.records import Sentence
from ..config import EvidenceSection, ParseSection
from .context import StageContext
from .parse import ParseOutcome, candidate_source, parse_or_import


def evidence_parse(parse: ParseSection, evidence: EvidenceSection, where: str = "<config>",
                   check: bool = True) -> ParseSection | None:
    """The ``[parse]`` section that parses or imports the ``[evidence]`` source (None: no evidence).

    Link Grammar's options come from ``[parse]``; n-best files from ``[evidence]``. An evidence
    source that is the candidates' own source is refused (it would be no second opinion).
    ``check=False`` does not look for the files (:func:`candidate_source`).
    """
    import dataclasses

    if not evidence.source:
        for key in ("forests", "train_forests", "heldout_forests", "test_forests"):
            if getattr(evidence, key):
                raise RankerError(f"{where}: [evidence] {key} is given but [evidence] source is not")
        return None
    ev = dataclasses.replace(parse, source=evidence.source, forests=evidence.forests,
                             train_forests=evidence.train_forests,
                             heldout_forests=evidence.heldout_forests,
                             test_forests=evidence.test_forests)
    if (candidate_source(ev, where, check=check, section="[evidence]")
            == candidate_source(parse, where, check=check)):
        raise RankerError(f"{where}: [evidence] source {evidence.source!r} gives the same candidates "
                          "as [parse]: the evidence must come from a second source")
    return ev


def parse_evidence(ctx: StageContext, parse: ParseSection, evidence: EvidenceSection,
                   sentences: Sequence[Sentence], corpus: str) -> ParseOutcome | None:
    """Parse or import the ``[evidence]`` source's candidates of ``sentences`` (None: no evidence).

    The same stage as :func:`parse_or_import`, on the section :func:`evidence_parse` makes; its
    notes are prefixed ``Evidence source:`` (its counts are the report's ``evidence`` field).
    """
    ev = evidence_parse(parse, evidence, ctx.where)
    if ev is None:
        return None
    got = parse_or_import(ctx, ev, sentences, corpus, section="[evidence]")
    return got._replace(notes=tuple(f"Evidence source: {n}" for n in got.notes))
