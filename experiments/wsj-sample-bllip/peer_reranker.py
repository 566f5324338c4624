"""The Charniak-Johnson reranker (BLLIP's second stage) built from its public source and run on one fold.

What it runs is what the top-level ``Makefile`` of github.com/BLLIP/bllip-parser runs for its
``features``, ``train-reranker`` and evaluation goals, with that Makefile's settings:

* ``prepare-data/ptb -g FILES``: the gold trees of a part in the reranker's format (the Makefile
  gives the extractor this command, not a file);
* ``features/extract-spfeatures -l -c -i -s 5`` (``FEATUREEXTRACTORFLAGS``) over the train, dev and
  test parts: feature counts per parse, features kept when seen in at least 5 training sentences;
* ``wlle/cvlm-lbfgs -l 1 -c 10 -F 1 -n -1 -p 2`` (``ESTIMATORFLAGS``) on the train counts, ``-e``
  the dev counts (its regulariser constant is searched there), weights gzipped;
* ``features/best-parses -l features.gz weights.gz < test n-best``: one tree per test sentence.

It is built with the Makefile's ``CFLAGS`` (``-MMD -O3 -Wall -ffast-math -finline-functions
-fomit-frame-pointer -fstrict-aliasing -fopenmp``) and ``CXXFLAGS`` (those and ``-Wno-deprecated``)
but ``-std=gnu++14`` for its ``-std=c++11`` (newer compilers' ``std::data`` clashes with a variable of
that name) and ``-w`` (its warnings are not ours to read), in a folder under the temporary directory
named by a digest of the sources, so a second run reuses the build. It needs ``flex`` and
``liblbfgs-dev`` (``apt-get install flex liblbfgs-dev``); the first-stage parser is not built.

Nothing downloads: the source folder is an argument (``--peer-source``) or ``BLLIP_PARSER_SOURCE``,
as for ``benchmarks/peer_cvlm.py`` (whose source finding this reuses), and the treebank files come
from NLTK's installed ``treebank`` corpus.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from peer_cvlm import SOURCE_ENV, PeerUnavailable, find_source  # noqa: E402

from ranker.errors import RankerError  # noqa: E402

__all__ = ["SOURCE_ENV", "PeerUnavailable", "PeerPrograms", "find_programs", "build", "split_nbest",
           "run_fold"]

#: ``FEATUREEXTRACTORFLAGS`` of the peer's Makefile.
EXTRACT_FLAGS = ("-l", "-c", "-i", "-s", "5")
#: ``ESTIMATORFLAGS`` of the peer's Makefile.
ESTIMATOR_FLAGS = ("-l", "1", "-c", "10", "-F", "1", "-n", "-1", "-p", "2")
#: The Makefile's ``CFLAGS`` with ``-w``; ``CXXFLAGS`` adds ``-Wno-deprecated`` and the standard.
CFLAGS = "-MMD -O3 -w -ffast-math -finline-functions -fomit-frame-pointer -fstrict-aliasing -fopenmp"
CXXFLAGS = f"{CFLAGS} -Wno-deprecated -std=gnu++14"
#: (make folder, target) of every program the comparison runs.
TARGETS = (("prepare-data", "ptb"), ("features", "extract-spfeatures"), ("features", "best-parses"),
           ("wlle", "cvlm-lbfgs"))


class PeerPrograms(NamedTuple):
    """The built executables."""

    ptb: Path
    extract: Path
    best_parses: Path
    cvlm: Path


def find_programs(given: str | None) -> Path:
    """The ``second-stage/programs`` folder of the peer's source (a checkout, or that folder itself).

    Raises
    ------
    PeerUnavailable
        When no source is given or it holds no second stage.
    """
    programs = find_source(given).parent
    for folder, target in TARGETS:
        if not (programs / folder / "Makefile").is_file():
            raise PeerUnavailable(f"{programs}: no {folder}/Makefile in the peer's second stage")
    return programs


def build(programs: Path) -> PeerPrograms:
    """Build the four programs from ``programs`` in a temporary folder (reused when the sources are)."""
    files = sorted(p for folder, _ in TARGETS for p in (programs / folder).iterdir() if p.is_file())
    h = hashlib.sha256((CFLAGS + CXXFLAGS).encode())
    for p in files:
        h.update(p.name.encode() + p.read_bytes())
    folder = Path(tempfile.gettempdir()) / f"ranker-bllip-reranker-{h.hexdigest()[:12]}"
    built = PeerPrograms(*(folder / sub / target for sub, target in TARGETS))
    if all(p.is_file() for p in built):
        return built
    if folder.exists():
        shutil.rmtree(folder)
    for sub in {sub for sub, _ in TARGETS}:
        shutil.copytree(programs / sub, folder / sub)
    env = {**os.environ, "CFLAGS": CFLAGS, "CXXFLAGS": CXXFLAGS, "LDFLAGS": "-fopenmp"}
    for sub, target in TARGETS:
        try:
            done = subprocess.run(["make", "-C", str(folder / sub), target], capture_output=True,
                                  text=True, env=env)
        except FileNotFoundError as e:
            raise PeerUnavailable(f"cannot build the peer: {e.filename} not found "
                                  "(apt-get install build-essential flex liblbfgs-dev)") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            raise PeerUnavailable(f"the peer's {target} did not build (apt-get install flex "
                                  f"liblbfgs-dev): {last}")
    return built


def split_nbest(nbest_files: Sequence[Path], parts: dict[str, Sequence[str]], out: Path) -> dict[str, int]:
    """Write each part's n-best lists (``out/<part>.nbest``) from the shared files.

    ``parts`` maps a part's name to its file stems (``wsj_0001``); a list belongs to the part
    holding the file of its id (``wsj_0001.7``). A part's lists are written in the order of its
    files, then of the sentences within a file, whatever the order of ``nbest_files``: the order
    ``ptb -g`` writes the part's gold trees in, which the extractor pairs with them one by one.
    Returns the number of lists each part got.

    Raises
    ------
    RankerError
        When a list's header is not ``COUNT<TAB>ID`` (the file and line are named), or a part got
        no list.
    """
    owner = {f: (name, i) for name, files in parts.items() for i, f in enumerate(files)}
    blocks: dict[str, list[tuple[tuple[int, int], str]]] = {name: [] for name in parts}
    for path in nbest_files:
        with gzip.open(path, "rt") if str(path).endswith(".gz") else open(path) as f:
            block: list[str] = []
            for lineno, line in enumerate(f, 1):
                block.append(line)
                if line.strip():
                    continue
                head = block[0].rstrip("\n").split("\t")
                stem, _, number = head[-1].rpartition(".")
                if len(head) != 2 or not head[0].isdigit() or not number.isdigit():
                    raise RankerError(f"{path}:{lineno - len(block) + 1}: not an n-best header "
                                      f"(COUNT<TAB>ID): {block[0].strip()[:60]!r}")
                if stem in owner:
                    name, i = owner[stem]
                    blocks[name].append(((i, int(number)), "".join(block)))
                block = []
    for name, got in blocks.items():
        if not got:
            raise RankerError(f"no n-best list in {', '.join(map(str, nbest_files))} for the {name} part")
        got.sort(key=lambda b: b[0])
        with open(out / f"{name}.nbest", "w") as f:
            f.writelines(text for _, text in got)
    return {name: len(got) for name, got in blocks.items()}


def treebank_files(files: Sequence[str], out: Path) -> list[Path]:
    """The treebank's ``.mrg`` files ``files`` (stems) copied from NLTK's corpus into ``out``."""
    from nltk.corpus import treebank

    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem in files:
        path = out / f"{stem}.mrg"
        if not path.is_file():
            path.write_text(treebank.open(f"{stem}.mrg").read())
        paths.append(path)
    return paths


def _run(cmd: str, log: Path, env: dict | None = None) -> None:
    """Run a shell pipeline, its stderr to ``log``; a failure raises RankerError with the log's last line."""
    with open(log, "w") as err:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], stderr=err, env=env)
    if done.returncode != 0:
        last = (log.read_text().strip().splitlines() or ["?"])[-1]
        raise RankerError(f"the peer failed ({log}): {last}")


def run_fold(progs: PeerPrograms, work: Path, nbest_files: Sequence[Path], train: Sequence[str],
             dev: Sequence[str], test: Sequence[str], threads: int | None = None) -> dict:
    """Train the peer on ``train``'s lists with ``dev`` as its development part, rerank ``test``'s.

    Writes ``work/best-parses.mrg`` (the chosen test trees, one per line, root ``S1``) last, so a
    fold whose file exists is done, and keeps the peer's model (``features.gz``, ``weights.gz``), its
    logs and the test lists; the other parts' lists and feature counts are deleted. Returns seconds
    per step and the lists per part.
    """
    work.mkdir(parents=True, exist_ok=True)
    parts = {"train": train, "dev": dev, "test": test}
    counts = split_nbest(nbest_files, parts, work)
    trees = work / "treebank"
    gold = {name: " ".join(str(p) for p in treebank_files(files, trees)) for name, files in parts.items()}
    env = {**os.environ, "OMP_NUM_THREADS": str(threads or os.cpu_count() or 1)}
    seconds = {}
    t = time.perf_counter()
    extract_args = " ".join(f"\"cat {work / name}.nbest\" \"{progs.ptb} -g {gold[name]}\" {work / name}.gz"
                            for name in ("train", "dev", "test"))
    _run(f"{progs.extract} {' '.join(EXTRACT_FLAGS)} {extract_args} | gzip > {work}/features.gz",
         work / "extract.log", env)
    seconds["extract"] = time.perf_counter() - t
    t = time.perf_counter()
    weights = work / "weights"
    _run(f"gzip -dc {work}/train.gz | {progs.cvlm} {' '.join(ESTIMATOR_FLAGS)} -e {work}/dev.gz "
         f"-f {work}/features.gz -o {weights} -x {work}/test.gz && rm -f {weights}.gz && gzip {weights}",
         work / "cvlm.log", env)
    seconds["train"] = time.perf_counter() - t
    t = time.perf_counter()
    _run(f"{progs.best_parses} -l {work}/features.gz {weights}.gz < {work}/test.nbest "
         f"> {work}/best-parses.tmp && mv {work}/best-parses.tmp {work}/best-parses.mrg",
         work / "best-parses.log", env)
    seconds["select"] = time.perf_counter() - t
    # what a rerun of best-parses needs stays (features.gz, weights.gz, test.nbest); the bulk goes
    shutil.rmtree(trees)
    for name in ("train.nbest", "dev.nbest", "train.gz", "dev.gz", "test.gz"):
        (work / name).unlink(missing_ok=True)
    return {"seconds": seconds, "lists": counts}
