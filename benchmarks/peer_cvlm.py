"""BLLIP's ``cvlm-lbfgs`` built from a source folder under /tmp, run and timed evaluation by evaluation.

What its source (``second-stage/programs/wlle`` of github.com/BLLIP/bllip-parser) does, as far as
the comparison needs it:

* ``-l 1`` selects the EM-style log loss of ``lmdata.c`` (``emll_corpus_stats``): the negative log
  probability of each sentence's winners among its parses, our objective for partial bracketings.
  It is the loss that runs under OpenMP: sentences are shared among ``OMP_NUM_THREADS`` threads,
  each adds into its own gradient vector, and the vectors are summed in a critical section (in
  whatever order the threads arrive, so two threads need not give the same bits twice).
* The regulariser is ``Q(w) = s (-L(w) + c Σ_j |w_j|^p)`` (``LossFn::Eval``). With ``s = 1`` and
  ``p = 2`` that is our Gaussian prior ``Σ_j w_j² / 2σ²`` for ``c = 1 / (2σ²)``.
* ``-c`` is only the start of a COBYLA search over ``log c`` (``Estimator1::estimate``), each
  trial a full L-BFGS fit; ``-i 1`` allows one trial, the fit at ``c`` itself.
* L-BFGS is liblbfgs with ``m = 15`` and the More-Thuente line search; it stops when
  ``||∇Q|| < t · max(1, ||w||)`` (``-t``, default 0.5).
* Without ``-f`` its feature-class vector is empty and ``LossFn`` asserts; a ``-f`` file naming one
  class for every feature (and ``-n -1``) gives one regulariser constant for all.
* ``-d 1000`` prints ``Q = ... = L = ... + R = ...`` after every evaluation, which is what times
  it here; the data is read from stdin (gunzipped by a separate ``gzip -dc``).

Nothing here downloads: the source comes from ``--peer-source`` or ``BLLIP_PARSER_SOURCE`` (a
checkout of bllip-parser or its ``wlle`` folder), is copied to a build folder under /tmp and built
with its own Makefile, which needs liblbfgs (``apt-get install liblbfgs-dev``).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

#: Environment variable naming the peer's source folder when no ``--peer-source`` is given.
SOURCE_ENV = "BLLIP_PARSER_SOURCE"

#: Evaluates the peer's own loss (``emll_corpus_stats`` of lmdata.c, data read by its
#: ``read_corpus``) at a given weight vector, and the regulariser as ``LossFn::Eval`` writes it;
#: cvlm-lbfgs itself cannot start from given weights. Compiled against the peer's liblmdata.a.
_VALUE_PROGRAM = r"""
#include "lmdata.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
/* usage: cvlm-value WEIGHTS.f64 C P GRADIENT.f64 < TRAIN; prints nsentences nfeatures L R */
int main(int argc, char **argv) {
  corpusflags_type flags = { 1.0, 0 };               /* -F 1, no -G */
  corpus_type *c = read_corpus(&flags, stdin);
  size_t n = c->nfeatures, i;
  double *w = calloc(n, sizeof(double)), *g = calloc(n, sizeof(double));
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(w, sizeof(double), n, f) != n) { fprintf(stderr, "short weights\n"); return 1; }
  fclose(f);
  double cc = atof(argv[2]), p = atof(argv[3]), R = 0;
  Float sg, sp, sw;
  double L = emll_corpus_stats(c, w, g, &sg, &sp, &sw);
  for (i = 0; i < n; ++i) {
    R += cc * pow(fabs(w[i]), p);
    g[i] += p * cc * pow(fabs(w[i]), p - 1) * (w[i] >= 0 ? (w[i] == 0 ? 0 : 1) : -1);
  }
  f = fopen(argv[4], "wb");
  fwrite(g, sizeof(double), n, f);
  fclose(f);
  printf("%u %u %.17g %.17g\n", c->nsentences, c->nfeatures, L, R);
  return 0;
}
"""


class PeerUnavailable(Exception):
    """The peer cannot run here; the message says why and what to install or give, in one line."""


def find_source(given: str | None) -> Path:
    """The ``wlle`` folder of the peer's source, from the argument or :data:`SOURCE_ENV`."""
    where = given or os.environ.get(SOURCE_ENV)
    if not where:
        raise PeerUnavailable(f"no BLLIP source given (--peer-source DIR or {SOURCE_ENV}=DIR, a "
                              "checkout of github.com/BLLIP/bllip-parser)")
    base = Path(where)
    for cand in (base, base / "programs" / "wlle", base / "second-stage" / "programs" / "wlle"):
        if (cand / "cvlm-lbfgs.cc").is_file() and (cand / "lmdata.c").is_file():
            return cand
    raise PeerUnavailable(f"{base}: no second-stage/programs/wlle/cvlm-lbfgs.cc in it")


def build(source: Path) -> tuple[Path, Path]:
    """Build ``cvlm-lbfgs`` and the value program in /tmp; returns both executables.

    The build folder is named by a digest of the sources, so a second run reuses it.
    """
    files = sorted(p for p in source.iterdir() if p.is_file())
    digest = hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in files)
                            + _VALUE_PROGRAM.encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"ranker-cvlm-{digest}"
    cvlm, value = folder / "cvlm-lbfgs", folder / "cvlm-value"
    if cvlm.is_file() and value.is_file():
        return cvlm, value
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(source, folder)
    steps = [["make", "cvlm-lbfgs"]]
    (folder / "cvlm-value.c").write_text(_VALUE_PROGRAM)
    steps.append(["cc", "-O3", "-fopenmp", "-o", "cvlm-value", "cvlm-value.c", "liblmdata.a", "-lm"])
    for cmd in steps:
        try:
            done = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
        except FileNotFoundError as e:
            raise PeerUnavailable(f"cannot build cvlm-lbfgs: {e.filename} not found "
                                  "(apt-get install build-essential liblbfgs-dev)") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            raise PeerUnavailable(f"cvlm-lbfgs did not build (apt-get install liblbfgs-dev): {last}")
    return cvlm, value


def _gunzip(path: Path) -> subprocess.Popen:
    return subprocess.Popen(["gzip", "-dc", str(path)], stdout=subprocess.PIPE)


def peer_value(value_exe: Path, data: Path, lam: np.ndarray, c: float) -> tuple[float, float, np.ndarray, int]:
    """The peer's ``(L, R, ∇Q, n_sentences)`` at ``lam`` (``len(lam)`` = its feature count)."""
    with tempfile.TemporaryDirectory() as tmp:
        wfile, gfile = Path(tmp) / "w.f64", Path(tmp) / "g.f64"
        np.asarray(lam, dtype=np.float64).tofile(wfile)
        src = _gunzip(data)
        done = subprocess.run([str(value_exe), str(wfile), repr(c), "2", str(gfile)],
                              stdin=src.stdout, capture_output=True, text=True)
        src.stdout.close()
        src.wait()
        if done.returncode != 0:
            raise RuntimeError(f"cvlm-value failed: {done.stderr.strip()}")
        n_sent, n_feat, L, R = done.stdout.split()
        grad = np.fromfile(gfile, dtype=np.float64)
    if int(n_feat) != len(lam):
        raise RuntimeError(f"the peer reads {n_feat} features, {len(lam)} weights were given")
    return float(L), float(R), grad, int(n_sent)


_EVAL = re.compile(r"Q = (\S+) = L = (\S+) \+ R = (\S+)")


def run_cvlm(cvlm: Path, data: Path, classes: Path, c: float, threads: int, tol: float,
             weights_out: Path) -> dict:
    """One cvlm-lbfgs fit at regulariser ``c`` with ``threads`` OpenMP threads, timed.

    Returns
    -------
    dict
        ``load_seconds`` (reading the data), ``trace`` (seconds since the data was read, Q) per
        evaluation, ``cpu_trace`` (the process's CPU seconds, all threads, since the data was read), ``seconds`` (optimisation, from the data read to exit), ``peak_rss_mb`` (the
        process's ``VmHWM``), ``returncode`` and the last stderr lines.
    """
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    cmd = [str(cvlm), "-l", "1", "-F", "1", "-p", "2", "-c", repr(c), "-i", "1", "-t", repr(tol),
           "-d", "1000", "-n", "-1", "-f", str(classes), "-o", str(weights_out)]
    src = _gunzip(data)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=src.stdout, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)
    src.stdout.close()
    # The child's rusage would include this (large) parent's resident set, inherited over fork and
    # exec; its own high-water mark is read from /proc while it runs.
    peak = [0.0]
    done = threading.Event()

    def watch():
        while not done.wait(0.05):
            peak[0] = max(peak[0], vm_hwm_mb(proc.pid))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    loaded = None
    loaded_cpu = 0.0
    trace: list[tuple[float, float]] = []
    cpu_trace: list[float] = []
    tail: list[str] = []
    for line in proc.stderr:
        peak[0] = max(peak[0], vm_hwm_mb(proc.pid))
        now = time.perf_counter()
        if loaded is None and "features in training data" in line:
            loaded, loaded_cpu = now, cpu_seconds(proc.pid)
        m = _EVAL.search(line)
        if m:
            trace.append((now, float(m.group(1))))
            cpu_trace.append(cpu_seconds(proc.pid) - loaded_cpu)
        else:
            tail = (tail + [line.rstrip()])[-5:]
    done.set()
    watcher.join()
    end = time.perf_counter()
    proc.wait()
    src.wait()
    loaded = loaded if loaded is not None else t0
    return {"load_seconds": loaded - t0, "seconds": end - loaded, "stopped": "own test",
            "trace": [(t - loaded, q) for t, q in trace], "cpu_trace": cpu_trace, "peak_rss_mb": peak[0],
            "returncode": proc.returncode, "stderr_tail": tail}


def cpu_seconds(pid: int | str = "self") -> float:
    """A process's CPU seconds so far, user and system, all threads (``/proc/PID/stat``); 0 once gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def vm_hwm_mb(pid: int | str = "self") -> float:
    """A process's peak resident set in MB (``VmHWM``: its own, not inherited over fork and exec).

    0 once the process has exited (a zombie has no memory lines).
    """
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def read_weights(path: Path, n_features: int) -> np.ndarray:
    """The weights cvlm-lbfgs wrote (``i`` or ``i=w`` lines for the nonzero ones, ``%g``)."""
    lam = np.zeros(n_features)
    for line in Path(path).read_text().split():
        i, _, v = line.partition("=")
        lam[int(i)] = float(v) if v else 1.0
    return lam
