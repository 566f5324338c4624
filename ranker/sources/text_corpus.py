"""Plain text as a corpus without gold: one sentence a line (``[data] corpus = "text"``).

``[data] text_format`` says what a line holds:

* ``tokens``: tokens separated by spaces, as a tokenizer or a treebank wrote them;
* ``raw``: running text, tokenized here with NLTK's Treebank tokenizer;
* ``tagged``: tokens written ``word/TAG`` (the last ``/`` separates), so that candidate trees
  carry these part-of-speech tags as preterminals, as they carry a treebank's gold tags.

In every format a round bracket in a word or tag is escaped as the Penn Treebank writes it (``(``
becomes ``-LRB-``: :func:`ranker.trees.penn.escape_token`), so every tree over the words is Penn
text a reader takes back; raw text, tokenized here, takes the Treebank's names for square and
curly brackets too (``[`` becomes ``-LSB-``), so its tokens are what a treebank-trained model
saw. Lines end at newlines alone (:mod:`.text_lines`). ``tokens`` and ``raw`` lines are tagged
before they are parsed when the reader is given a tagger (:class:`~ranker.sources.tagger.PosTagger`:
``ranker apply`` gives the model's own, ``ranker parse --tagger`` a model file's), so that their
candidates carry preterminals as a treebank's do; ``tagged`` lines keep the tags they give.
Without a tagger (a model file from before models carried one) an untagged line's candidates have
their words directly under their phrases. Empty lines and lines longer than the parser takes
(:data:`MAX_TOKENS`) are skipped and counted, never an error; a line that cannot be read (not in
the encoding, a tagged token not ``word/TAG``) refuses the file, or, for ``ranker apply``
(``skip_bad``), is skipped and named too.
Sentence ids are ``<name>/<file>/<line>`` (``text/my.txt/3``: line 3 of ``my.txt``); ``name`` is
``[data] name``, else ``text``. There is no gold: ``ranker apply --report`` gives the selections'
forest sizes and costs, not scores (:mod:`ranker.pipeline.apply.no_gold_report`), and ``ranker run``, which
scores against gold, refuses such a corpus unless it brings partial annotation of its own.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterator

from ..errors import RankerError
from ..store.records import Sentence
from .corpus import CorpusItem, CorpusReader, check_encoding
from ..trees.penn import escape_token, ptb_token
from .penn_files import read_file_text
from .text_lines import split_lines

#: The version of how a line is read (cut, tokenized, escaped), in every marker: text stored by an
#: older reading is read again (2: the file's "\n" lines; brackets escaped in every format).
_READING = 2
#: Text formats a line may be in (``[data] text_format``).
TEXT_FORMATS = ("tokens", "raw", "tagged")
#: The longest sentence passed to the parser, in tokens: Link Grammar refuses sentences of more
#: than 254 words (its ``MAX_SENTENCE``), and splits some tokens into several words.
MAX_TOKENS = 200


def tokenize(line: str) -> list[str]:
    """NLTK's Treebank tokenization of one sentence, brackets escaped as the Penn Treebank writes them."""
    from nltk.tokenize import TreebankWordTokenizer

    return [ptb_token(t) for t in TreebankWordTokenizer().tokenize(line)]


def line_tokens(line: str, text_format: str, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The tokens and tags (``""`` each when untagged) of one line in ``text_format``, brackets escaped."""
    if text_format == "raw":
        words = tokenize(line)
        return tuple(words), ("",) * len(words)
    if text_format == "tokens":
        words = [escape_token(w) for w in line.split()]
        return tuple(words), ("",) * len(words)
    words, tags = [], []
    for tok in line.split():
        word, slash, tag = tok.rpartition("/")
        if not slash or not word or not tag:
            raise RankerError(f"{where}: token {tok!r} is not word/TAG ([data] text_format = \"tagged\")")
        words.append(escape_token(word))
        tags.append(escape_token(tag))
    return tuple(words), tuple(tags)


def untagged_note(path, text_format: str, tagger, remedy: str) -> str:
    """The note for text about to be parsed without tags (``tokens`` or ``raw`` and no tagger), else ``""``."""
    if text_format == "tagged" or tagger is not None:
        return ""
    return (f"{path}: {text_format} text and no tagger: its trees' words stand directly under their phrases, "
            f"with no part-of-speech preterminals (ranker evalb reads no such tree); {remedy}")


def model_tagger(path: str):
    """The tagger a model file carries (:mod:`ranker.sources.tagger`), for text read without a model at hand.

    Raises
    ------
    RankerError
        An unreadable model file, or one that carries no tagger (a model from before models
        carried one, or trained on a corpus without tags), naming the file.
    """
    from ..models.persistence import load_model

    tagger = load_model(path).tagger
    if tagger is None:
        raise RankerError(f"{path}: the model carries no tagger to tag text with (trained before models "
                          "carried one, or on a corpus without tags): retrain it with ranker train or ranker run")
    return tagger


class TextCorpus(CorpusReader):
    """A text file of one sentence a line, as sentences without gold trees."""

    has_gold = False
    reads_files = True
    matches_lists = False          # lists of new text are imported without --corpus (lists/FILE/BLOCK)
    takes_tagger = True            # tokens and raw lines are tagged by a model's tagger

    def __init__(self, path: str, name: str = "", encoding: str = "utf-8", text_format: str = "tokens",
                 where: str = "[data]", lines: list[str] | None = None, first_line: int = 1,
                 bad: dict[int, str] | None = None, skip_bad: bool = False, tagger=None):
        """``lines`` (with ``first_line``, the number of the first in ``path``): a stretch of the file's
        lines already read (``ranker apply`` reads text a chunk at a time:
        :func:`~.text_lines.text_chunks`), not read from ``path`` again; ``bad``: the messages of
        those that could not be decoded (read as empty), by line number. ``skip_bad``: a line that
        cannot be read is skipped and named, as an empty line is (``ranker apply``, whose output
        has a line for every input line), instead of refusing the file. ``tagger``: tags ``tokens``
        and ``raw`` lines (a ``tagged`` line keeps its own)."""
        if not path:
            raise RankerError(f"{where} path: a text corpus needs its file, one sentence a line")
        self.path = Path(path)
        self.given = lines
        self.first_line = first_line
        self.bad = dict(bad or {})
        self.skip_bad = skip_bad
        if lines is None and not self.path.is_file():
            raise RankerError(f"{where} path: no such file {path}" if not self.path.exists()
                              else f"{where} path: {path} is not a file")
        if text_format not in TEXT_FORMATS:
            raise RankerError(f"{where} text_format: {text_format!r} is not one of {', '.join(TEXT_FORMATS)}")
        self.encoding = check_encoding(encoding, f"{where} encoding")
        self.text_format = text_format
        self.tagger = tagger if text_format != "tagged" else None
        self.name = name or "text"
        self.document = self.path.name[:-3] if self.path.name.endswith(".gz") else self.path.name
        self._skipped: list[str] = []
        self._refused: list[str] = []
        self.lines = 0                # the file's lines, once items() has read it

    @classmethod
    def from_section(cls, data) -> "TextCorpus":
        tagger = model_tagger(data.tagger) if data.tagger and data.text_format != "tagged" else None
        return cls(data.path, data.name, data.encoding, data.text_format, tagger=tagger)

    def documents(self) -> list[str]:
        return [self.document]

    def items(self) -> Iterator[CorpusItem]:
        self._skipped, self._refused = [], []
        lines = self.given if self.given is not None else split_lines(read_file_text(self.path, self.encoding))
        self.lines = len(lines)   # every line, skipped ones too: what a line-for-line output must cover
        for no, line in enumerate(lines, self.first_line):
            where = f"{self.path}:{no}"
            if no in self.bad:
                self._refuse(RankerError(self.bad[no]))
                continue
            if not line.strip():
                self._skipped.append(f"{where}: an empty line")
                continue
            try:
                tokens, tags = line_tokens(line.strip(), self.text_format, where)
            except RankerError as e:
                self._refuse(e)
                continue
            if len(tokens) > MAX_TOKENS:
                self._skipped.append(f"{where}: {len(tokens)} tokens, more than the parser takes ({MAX_TOKENS})")
                continue
            if self.tagger is not None:
                tags = self.tagger.tag(tokens)
            yield CorpusItem(Sentence(f"{self.name}/{self.document}/{no}", self.name, self.document, no,
                                      tokens, tags))

    def _refuse(self, error: RankerError) -> None:
        """A line that cannot be read: skipped and named (``skip_bad``), else the end of the file."""
        if not self.skip_bad:
            raise error
        self._skipped.append(str(error))
        self._refused.append(str(error))

    def skipped(self) -> list[str]:
        return list(self._skipped)

    def refused(self) -> list[str]:
        """The skipped lines that could not be read (``skip_bad``), not merely empty or too long."""
        return list(self._refused)

    def marker(self) -> str:
        h = hashlib.sha256(f"{_READING}\0{self.encoding}\0{self.text_format}\0{self.document}\0".encode())
        if self.tagger is not None:   # other tags are another content
            h.update(f"tagger {self.tagger.digest}\0".encode())
        if self.given is not None:
            h.update(f"{self.first_line}\0{chr(10).join(self.given)}".encode("utf-8", "surrogateescape"))
        else:
            h.update(self.path.read_bytes())
        return f"{self.name}@text/{h.hexdigest()[:20]}"
