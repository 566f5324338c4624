"""Part-of-speech tags for untagged text, learned from the gold tags of a model's own training treebank.

Candidate trees carry each token's tag as its preterminal (:mod:`.link_grammar`), as the gold trees
a model is trained on do. Text given as ``tokens`` or ``raw`` has no tags, so without a tagger its
trees' words would stand directly under their phrases: trees no Penn tool (nor ``ranker evalb``)
reads, and unlike anything the model saw in training. :class:`PosTagger` is NLTK's averaged
perceptron (Honnibal's greedy tagger, ``PerceptronTagger(load=False)``: no download, nothing read
from ``nltk_data``) trained on the gold tags of the training split when the model is trained, and
saved inside the model file (:mod:`ranker.models.persistence`) as plain JSON, so the text a model
ranks is tagged as its own training treebank was.

Choices, measured on held-out (GUM dev, the WSJ sample's held-out; the figures are in
``experiments/gum/README.md``):

* Trained on the training split only, the split the model itself learns from: the tagger is part
  of the model, and held-out stays what chooses the model's settings.
* :data:`ITERATIONS` passes over the training sentences, not NLTK's default 5: on held-out, 8
  passes tag 0.17 (GUM dev) and 0.13 (WSJ held-out) points more tokens right than 5, and 12 no
  more than 0.12 beyond 8 (the WSJ sample: none), for half as much training time again. Training
  is once per model (and kept in the store with the run's fits): a minute on GUM's 10,224
  training sentences, against hours of parsing.
* Deterministic: NLTK's ``train`` shuffles the sentences between passes with the global
  ``random``; it is seeded with :data:`SEED` for the training and given back its state after, the
  sentences are taken in corpus order, and the learned tables are written in sorted order, so two
  trainings on the same sentences give the same bytes. The tagger used after training is the one
  rebuilt from those tables, the same a model file gives back when loaded (a sum of weights in
  another order could round differently and break a tie the other way).
"""
from __future__ import annotations

import hashlib
import json
import math
import random
from typing import Iterable, Sequence

from ..errors import RankerError

#: What a model file's ``tagger`` part holds, and the version of its layout.
TAGGER_FORMAT = "nltk-averaged-perceptron"
TAGGER_VERSION = 1
#: Training passes over the sentences (see the module's docstring for why this many).
ITERATIONS = 8
#: The seed of NLTK's shuffle between passes.
SEED = 0


class PosTagger:
    """A trained part-of-speech tagger: NLTK's averaged perceptron, its tables as plain JSON.

    Build one with :meth:`train` (from gold-tagged sentences) or :meth:`from_dict` (a model file's
    ``tagger`` part); :meth:`tag` gives one tag per token; :meth:`to_dict` is what a model file keeps.
    """

    def __init__(self, weights: dict, tagdict: dict, classes: Sequence[str], sentences: int = 0,
                 iterations: int = ITERATIONS):
        self.weights = {f: {t: w for t, w in sorted(ws.items())} for f, ws in sorted(weights.items())}
        self.tagdict = dict(sorted(tagdict.items()))
        self.classes = tuple(sorted(classes))
        self.sentences = int(sentences)
        self.iterations = int(iterations)
        self.digest = _digest(self._tables())
        self._nltk = None   # built at the first tag(): importing NLTK takes seconds, and lists need no tags

    @classmethod
    def train(cls, sentences: Iterable[tuple[Sequence[str], Sequence[str]]],
              iterations: int = ITERATIONS) -> "PosTagger | None":
        """The tagger learned from ``(tokens, tags)`` pairs in corpus order, or None when none is fully tagged.

        A sentence with an empty tag (a text corpus, a token the treebank left untagged) teaches
        nothing and is passed over.
        """
        from nltk.tag.perceptron import PerceptronTagger

        tagged = [list(zip(tokens, tags)) for tokens, tags in sentences
                  if tokens and len(tokens) == len(tags) and all(tags)]
        if not tagged:
            return None
        nltk_tagger = PerceptronTagger(load=False)
        state = random.getstate()   # NLTK shuffles with the global random: seeded here, given back after
        try:
            random.seed(SEED)
            nltk_tagger.train(tagged, nr_iter=iterations)
        finally:
            random.setstate(state)
        weights, tagdict, classes = nltk_tagger.encode_json_obj()
        return cls(weights, tagdict, classes, len(tagged), iterations)

    def tag(self, tokens: Sequence[str]) -> tuple[str, ...]:
        """One tag per token."""
        if not tokens:
            return ()
        if self._nltk is None:
            from nltk.tag.perceptron import PerceptronTagger

            self._nltk = PerceptronTagger(load=False)
            self._nltk.decode_json_params((self.weights, self.tagdict, list(self.classes)))
        return tuple(tag for _, tag in self._nltk.tag(list(tokens)))

    def _tables(self) -> dict:
        return {"weights": self.weights, "tagdict": self.tagdict, "classes": list(self.classes)}

    def to_dict(self) -> dict:
        """The tagger as a model file keeps it: format, version, how it was trained, its tables and their digest."""
        return {"format": TAGGER_FORMAT, "version": TAGGER_VERSION, "sentences": self.sentences,
                "iterations": self.iterations, "digest": self.digest, **self._tables()}

    @classmethod
    def from_dict(cls, doc, where: str) -> "PosTagger":
        """The tagger of a model file's ``tagger`` part (``where`` names the file in errors).

        Raises
        ------
        RankerError
            Another format or version, a table of the wrong shape, a number that is not finite,
            or tables that do not match their digest (an edited file).
        """
        if not isinstance(doc, dict) or doc.get("format") != TAGGER_FORMAT:
            raise RankerError(f"{where}: its tagger is not a {TAGGER_FORMAT} tagger")
        if doc.get("version") != TAGGER_VERSION:
            raise RankerError(f"{where}: tagger version {doc.get('version')!r}; this ranker reads version "
                              f"{TAGGER_VERSION}: retrain the model")
        weights, tagdict, classes = doc.get("weights"), doc.get("tagdict"), doc.get("classes")
        if not (isinstance(weights, dict) and all(isinstance(ws, dict) for ws in weights.values())
                and all(isinstance(t, str) and isinstance(w, int | float) and not isinstance(w, bool)
                        and math.isfinite(w) for ws in weights.values() for t, w in ws.items())):
            raise RankerError(f"{where}: bad tagger: its weights must be a table of tables of finite numbers")
        if not (isinstance(tagdict, dict) and all(isinstance(t, str) for t in tagdict.values())):
            raise RankerError(f"{where}: bad tagger: its tagdict must be a table of tags")
        if not (isinstance(classes, list) and classes and all(isinstance(c, str) and c for c in classes)):
            raise RankerError(f"{where}: bad tagger: its classes must be a list of tags")
        if _digest({"weights": weights, "tagdict": tagdict, "classes": classes}) != doc.get("digest"):
            raise RankerError(f"{where}: its tagger does not match its digest (file edited?); retrain the model")
        counts = [doc.get("sentences", 0), doc.get("iterations", ITERATIONS)]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
            raise RankerError(f"{where}: bad tagger: sentences and iterations must be counts")
        return cls(weights, tagdict, classes, *counts)


def _digest(tables: dict) -> str:
    """A short fingerprint of a tagger's tables (canonical JSON, keys sorted)."""
    doc = json.dumps(tables, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(doc.encode("utf-8", "surrogatepass")).hexdigest()[:16]

