"""The line searches of :mod:`.solve`, scipy's own, with every rounding written here.

scipy's CG takes its step along each direction with ``scalar_search_wolfe1`` (MINPACK-2's
``dcsrch`` and ``dcstep``, Moré and Thuente 1994) and falls back to ``scalar_search_wolfe2``
(Nocedal and Wright's algorithms 3.5 and 3.6). In scipy's Python both round differently on
different CPUs: ``(theta / s) ** 2`` and ``db ** 3`` are the C library's ``pow``, whose variants
for CPUs with FMA and without differ in last bits (glibc's ``pow(x, 2)`` is not even ``x * x``
one time in a thousand), and the cubic step's 2 x 2 product is ``np.dot``, OpenBLAS's ``dgemv``,
fused multiply-adds or not by CPU. A step's last bit moves a fit's.

So here they are again, from scipy 1.17's ``scipy/optimize/_dcsrch.py`` and ``_linesearch.py``
(BSD-3-Clause; the Fortran originals: MINPACK-1 and MINPACK-2, Argonne National Laboratory), the
same decisions in the same order, with every power a product and every sum written out: float64
additions, multiplications, divisions and square roots, each correctly rounded on every x86-64
CPU. The directional derivatives come from :func:`ranker.matrices.fixed.dot` (:mod:`.solve`).
"""
from __future__ import annotations

import numpy as np

F = np.float64


def _sign(x):
    return F(1.0) if x > 0 else F(-1.0) if x < 0 else F(0.0) if x == 0 else x


def _clip(x, lo, hi):
    return min(max(x, lo), hi)


# ---------------------------------------------------------------------- wolfe1: dcsrch
def dcstep(stx, fx, dx, sty, fy, dy, stp, fp, dp, brackt, stpmin, stpmax):
    """MINPACK-2's safeguarded step (scipy's ``dcstep``, ``** 2`` a product)."""
    stx, fx, dx, sty, fy, dy, stp, fp, dp = (F(v) for v in (stx, fx, dx, sty, fy, dy, stp, fp, dp))
    sgnd = _sign(dp) * _sign(dx)
    if fp > fx:
        # a higher function value: the minimum is bracketed
        theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp
        s = max(abs(theta), abs(dx), abs(dp))
        ts = theta / s
        gamma = s * np.sqrt(ts * ts - (dx / s) * (dp / s))
        if stp < stx:
            gamma = -gamma
        p = (gamma - dx) + theta
        q = ((gamma - dx) + gamma) + dp
        r = p / q
        stpc = stx + r * (stp - stx)
        stpq = stx + ((dx / ((fx - fp) / (stp - stx) + dx)) / 2.0) * (stp - stx)
        if abs(stpc - stx) <= abs(stpq - stx):
            stpf = stpc
        else:
            stpf = stpc + (stpq - stpc) / 2.0
        brackt = True
    elif sgnd < 0.0:
        # a lower value, derivatives of opposite sign: bracketed
        theta = 3 * (fx - fp) / (stp - stx) + dx + dp
        s = max(abs(theta), abs(dx), abs(dp))
        ts = theta / s
        gamma = s * np.sqrt(ts * ts - (dx / s) * (dp / s))
        if stp > stx:
            gamma = -gamma
        p = (gamma - dp) + theta
        q = ((gamma - dp) + gamma) + dx
        r = p / q
        stpc = stp + r * (stx - stp)
        stpq = stp + (dp / (dp - dx)) * (stx - stp)
        stpf = stpc if abs(stpc - stp) > abs(stpq - stp) else stpq
        brackt = True
    elif abs(dp) < abs(dx):
        # a lower value, derivatives of one sign, the derivative's magnitude decreasing
        theta = 3 * (fx - fp) / (stp - stx) + dx + dp
        s = max(abs(theta), abs(dx), abs(dp))
        ts = theta / s
        gamma = s * np.sqrt(max(0, ts * ts - (dx / s) * (dp / s)))
        if stp > stx:
            gamma = -gamma
        p = (gamma - dp) + theta
        q = (gamma + (dx - dp)) + gamma
        r = p / q
        if r < 0 and gamma != 0:
            stpc = stp + r * (stx - stp)
        elif stp > stx:
            stpc = stpmax
        else:
            stpc = stpmin
        stpq = stp + (dp / (dp - dx)) * (stx - stp)
        if brackt:
            stpf = stpc if abs(stpc - stp) < abs(stpq - stp) else stpq
            if stp > stx:
                stpf = min(stp + 0.66 * (sty - stp), stpf)
            else:
                stpf = max(stp + 0.66 * (sty - stp), stpf)
        else:
            stpf = stpc if abs(stpc - stp) > abs(stpq - stp) else stpq
            stpf = _clip(stpf, stpmin, stpmax)
    else:
        # a lower value, derivatives of one sign, the derivative's magnitude not decreasing
        if brackt:
            theta = 3.0 * (fp - fy) / (sty - stp) + dy + dp
            s = max(abs(theta), abs(dy), abs(dp))
            ts = theta / s
            gamma = s * np.sqrt(ts * ts - (dy / s) * (dp / s))
            if stp > sty:
                gamma = -gamma
            p = (gamma - dp) + theta
            q = ((gamma - dp) + gamma) + dy
            r = p / q
            stpf = stp + r * (sty - stp)
        elif stp > stx:
            stpf = stpmax
        else:
            stpf = stpmin
    if fp > fx:
        sty, fy, dy = stp, fp, dp
    else:
        if sgnd < 0:
            sty, fy, dy = stx, fx, dx
        stx, fx, dx = stp, fp, dp
    return stx, fx, dx, sty, fy, dy, stpf, brackt


class DCSRCH:
    """MINPACK-2's line search for a step with sufficient decrease and curvature (scipy's ``DCSRCH``)."""

    def __init__(self, phi, derphi, ftol, gtol, xtol, stpmin, stpmax):
        self.phi, self.derphi = phi, derphi
        self.ftol, self.gtol, self.xtol = ftol, gtol, xtol
        self.stpmin, self.stpmax = stpmin, stpmax

    def __call__(self, alpha1, phi0, derphi0, maxiter=100):
        """``(step or None, phi there, phi0, task)``."""
        phi1, derphi1 = phi0, derphi0
        task = b"START"
        for _ in range(maxiter):
            stp, phi1, derphi1, task = self._iterate(alpha1, phi1, derphi1, task)
            if not np.isfinite(stp):
                task, stp = b"WARN", None
                break
            if task[:2] == b"FG":
                alpha1 = stp
                phi1 = self.phi(stp)
                derphi1 = self.derphi(stp)
            else:
                break
        else:
            stp, task = None, b"WARNING: dcsrch did not converge within max iterations"
        if task[:5] == b"ERROR" or task[:4] == b"WARN":
            stp = None
        return stp, phi1, phi0, task

    def _iterate(self, stp, f, g, task):
        p5, p66, xtrapl, xtrapu = 0.5, 0.66, 1.1, 4.0
        if task[:5] == b"START":
            if stp < self.stpmin:
                task = b"ERROR: STP .LT. STPMIN"
            if stp > self.stpmax:
                task = b"ERROR: STP .GT. STPMAX"
            if g >= 0:
                task = b"ERROR: INITIAL G .GE. ZERO"
            if task[:5] == b"ERROR":
                return stp, f, g, task
            self.brackt = False
            self.stage = 1
            self.finit, self.ginit = f, g
            self.gtest = self.ftol * self.ginit
            self.width = self.stpmax - self.stpmin
            self.width1 = self.width / p5
            self.stx, self.fx, self.gx = 0.0, self.finit, self.ginit
            self.sty, self.fy, self.gy = 0.0, self.finit, self.ginit
            self.stmin = 0
            self.stmax = stp + xtrapu * stp
            return stp, f, g, b"FG"
        ftest = self.finit + stp * self.gtest
        if self.stage == 1 and f <= ftest and g >= 0:
            self.stage = 2
        if self.brackt and (stp <= self.stmin or stp >= self.stmax):
            task = b"WARNING: ROUNDING ERRORS PREVENT PROGRESS"
        if self.brackt and self.stmax - self.stmin <= self.xtol * self.stmax:
            task = b"WARNING: XTOL TEST SATISFIED"
        if stp == self.stpmax and f <= ftest and g <= self.gtest:
            task = b"WARNING: STP = STPMAX"
        if stp == self.stpmin and (f > ftest or g >= self.gtest):
            task = b"WARNING: STP = STPMIN"
        if f <= ftest and abs(g) <= self.gtol * -self.ginit:
            task = b"CONVERGENCE"
        if task[:4] == b"WARN" or task[:4] == b"CONV":
            return stp, f, g, task
        with np.errstate(invalid="ignore", over="ignore"):
            if self.stage == 1 and f <= self.fx and f > ftest:
                # the modified function psi while a lower value's decrease is not sufficient
                fm = f - stp * self.gtest
                fxm = self.fx - self.stx * self.gtest
                fym = self.fy - self.sty * self.gtest
                gm = g - self.gtest
                gxm = self.gx - self.gtest
                gym = self.gy - self.gtest
                self.stx, fxm, gxm, self.sty, fym, gym, stp, self.brackt = dcstep(
                    self.stx, fxm, gxm, self.sty, fym, gym, stp, fm, gm, self.brackt, self.stmin, self.stmax)
                self.fx = fxm + self.stx * self.gtest
                self.fy = fym + self.sty * self.gtest
                self.gx = gxm + self.gtest
                self.gy = gym + self.gtest
            else:
                (self.stx, self.fx, self.gx, self.sty, self.fy, self.gy, stp, self.brackt) = dcstep(
                    self.stx, self.fx, self.gx, self.sty, self.fy, self.gy, stp, f, g, self.brackt,
                    self.stmin, self.stmax)
        if self.brackt:
            if abs(self.sty - self.stx) >= p66 * self.width1:
                stp = self.stx + p5 * (self.sty - self.stx)
            self.width1 = self.width
            self.width = abs(self.sty - self.stx)
            self.stmin = min(self.stx, self.sty)
            self.stmax = max(self.stx, self.sty)
        else:
            self.stmin = stp + xtrapl * (stp - self.stx)
            self.stmax = stp + xtrapu * (stp - self.stx)
        stp = _clip(stp, self.stpmin, self.stpmax)
        if (self.brackt and (stp <= self.stmin or stp >= self.stmax)
                or (self.brackt and self.stmax - self.stmin <= self.xtol * self.stmax)):
            stp = self.stx
        return stp, f, g, b"FG"


def _first_step(phi0, old_phi0, derphi0):
    """The first trial step: as if the decrease were the last one's (1 without a last one)."""
    if old_phi0 is not None and derphi0 != 0:
        alpha1 = min(1.0, 1.01 * 2 * (phi0 - old_phi0) / derphi0)
        if alpha1 < 0:
            alpha1 = 1.0
    else:
        alpha1 = 1.0
    return alpha1


def wolfe1(phi, derphi, phi0, old_phi0, derphi0, c1, c2, amax, amin, xtol=1e-14):
    """scipy's ``scalar_search_wolfe1``: ``(step or None, phi there, phi0)``."""
    dcsrch = DCSRCH(phi, derphi, c1, c2, xtol, amin, amax)
    stp, phi1, phi0, _ = dcsrch(_first_step(phi0, old_phi0, derphi0), phi0=phi0, derphi0=derphi0, maxiter=100)
    return stp, phi1, phi0


# ---------------------------------------------------------------------- wolfe2: bracket and zoom
def wolfe2(phi, derphi, phi0, old_phi0, derphi0, c1, c2, amax, extra_condition=None, maxiter=10):
    """scipy's ``scalar_search_wolfe2`` (without its warnings): ``(step or None, phi there, phi0,
    derphi there or None)``."""
    alpha0 = 0
    alpha1 = _first_step(phi0, old_phi0, derphi0)
    if amax is not None:
        alpha1 = min(alpha1, amax)
    phi_a1 = phi(alpha1)
    phi_a0, derphi_a0 = phi0, derphi0
    if extra_condition is None:
        def extra_condition(alpha, phi):
            return True
    for i in range(maxiter):
        if alpha1 == 0 or (amax is not None and alpha0 > amax):
            return None, phi0, old_phi0, None
        if (phi_a1 > phi0 + c1 * alpha1 * derphi0) or ((phi_a1 >= phi_a0) and i > 0):
            a, p, d = _zoom(alpha0, alpha1, phi_a0, phi_a1, derphi_a0, phi, derphi, phi0, derphi0, c1, c2,
                            extra_condition)
            return a, p, phi0, d
        derphi_a1 = derphi(alpha1)
        if abs(derphi_a1) <= -c2 * derphi0 and extra_condition(alpha1, phi_a1):
            return alpha1, phi_a1, phi0, derphi_a1
        if derphi_a1 >= 0:
            a, p, d = _zoom(alpha1, alpha0, phi_a1, phi_a0, derphi_a1, phi, derphi, phi0, derphi0, c1, c2,
                            extra_condition)
            return a, p, phi0, d
        alpha2 = 2 * alpha1
        if amax is not None:
            alpha2 = min(alpha2, amax)
        alpha0, alpha1 = alpha1, alpha2
        phi_a0, phi_a1 = phi_a1, phi(alpha1)
        derphi_a0 = derphi_a1
    return alpha1, phi_a1, phi0, None


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The minimiser of the cubic through (a, fa), (b, fb), (c, fc) with slope fpa at a, or None."""
    a, fa, fpa, b, fb, c, fc = (F(v) for v in (a, fa, fpa, b, fb, c, fc))
    with np.errstate(divide="raise", over="raise", invalid="raise"):
        try:
            C = fpa
            db = b - a
            dc = c - a
            dbdc = db * dc
            denom = dbdc * dbdc * (db - dc)
            d00, d01 = dc * dc, -(db * db)
            d10, d11 = -(dc * dc * dc), db * db * db
            v0, v1 = fb - fa - C * db, fc - fa - C * dc
            A = (d00 * v0 + d01 * v1) / denom
            B = (d10 * v0 + d11 * v1) / denom
            radical = B * B - 3 * A * C
            xmin = a + (-B + np.sqrt(radical)) / (3 * A)
        except ArithmeticError:
            return None
    return xmin if np.isfinite(xmin) else None


def _quadmin(a, fa, fpa, b, fb):
    """The minimiser of the quadratic through (a, fa), (b, fb) with slope fpa at a, or None."""
    a, fa, fpa, b, fb = (F(v) for v in (a, fa, fpa, b, fb))
    with np.errstate(divide="raise", over="raise", invalid="raise"):
        try:
            db = b - a * 1.0
            B = (fb - fa - fpa * db) / (db * db)
            xmin = a - fpa / (2.0 * B)
        except ArithmeticError:
            return None
    return xmin if np.isfinite(xmin) else None


def _zoom(a_lo, a_hi, phi_lo, phi_hi, derphi_lo, phi, derphi, phi0, derphi0, c1, c2, extra_condition):
    """Nocedal and Wright's zoom (algorithm 3.6), as scipy's ``_zoom``: ``(step, phi, derphi)`` or Nones."""
    maxiter, delta1, delta2 = 10, 0.2, 0.1
    phi_rec, a_rec = phi0, 0
    i = 0
    while True:
        dalpha = a_hi - a_lo
        a, b = (a_hi, a_lo) if dalpha < 0 else (a_lo, a_hi)
        if i > 0:
            cchk = delta1 * dalpha
            a_j = _cubicmin(a_lo, phi_lo, derphi_lo, a_hi, phi_hi, a_rec, phi_rec)
        if i == 0 or a_j is None or a_j > b - cchk or a_j < a + cchk:
            qchk = delta2 * dalpha
            a_j = _quadmin(a_lo, phi_lo, derphi_lo, a_hi, phi_hi)
            if a_j is None or a_j > b - qchk or a_j < a + qchk:
                a_j = a_lo + 0.5 * dalpha
        phi_aj = phi(a_j)
        if phi_aj > phi0 + c1 * a_j * derphi0 or phi_aj >= phi_lo:
            phi_rec, a_rec = phi_hi, a_hi
            a_hi, phi_hi = a_j, phi_aj
        else:
            derphi_aj = derphi(a_j)
            if abs(derphi_aj) <= -c2 * derphi0 and extra_condition(a_j, phi_aj):
                return a_j, phi_aj, derphi_aj
            if derphi_aj * (a_hi - a_lo) >= 0:
                phi_rec, a_rec = phi_hi, a_hi
                a_hi, phi_hi = a_lo, phi_lo
            else:
                phi_rec, a_rec = phi_lo, a_lo
            a_lo, phi_lo, derphi_lo = a_j, phi_aj, derphi_aj
        i += 1
        if i > maxiter:
            return None, None, None
