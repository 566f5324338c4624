"""The constants of :mod:`.fixed`'s arithmetic: the lanes of its dot product, fdlibm's ``exp`` and ``log``.

Apart from :mod:`.fixed` because both of its implementations read them: the numpy loops there and
numba's compiled ones (:mod:`.numba_kernels`), which :mod:`.fixed` itself loads at the first dot.
"""
from __future__ import annotations

import struct

#: Running sums of :func:`dot` (a power of two). Fixed, never tied to the vector's length or the
#: machine: the order of the additions depends on the length alone.
LANES = 4096


def _bits(u: int) -> float:
    """The float64 whose IEEE bits are ``u``."""
    return struct.unpack("<d", struct.pack("<Q", u))[0]


# ---------------------------------------------------------------------- fdlibm's constants
# e_exp.c
EXP_O_THRESHOLD = 7.09782712893383973096e+02      # above: overflow
EXP_U_THRESHOLD = -7.45133219101941108420e+02     # below: underflow to 0
EXP_LN2HI = 6.93147180369123816490e-01
EXP_LN2LO = 1.90821492927058770002e-10
EXP_INVLN2 = 1.44269504088896338700e+00
EXP_P1 = 1.66666666666666019037e-01
EXP_P2 = -2.77777777770155933842e-03
EXP_P3 = 6.61375632143793436117e-05
EXP_P4 = -1.65339022054652515390e-06
EXP_P5 = 4.13813679705723846039e-08
EXP_TWOM1000 = 9.33263618503218878990e-302        # 2**-1000
# fdlibm compares the high word of |x|: these are the same tests on |x| itself
EXP_HALF_LN2 = _bits(0x3fd62e43 << 32)            # |x| >= this: |x| > 0.5 ln2, reduce
EXP_3HALF_LN2 = _bits(0x3ff0a2b2 << 32)           # |x| < this (and reduced): k = ±1
EXP_TINY = _bits(0x3e300000 << 32)                # |x| < 2**-28: exp(x) = 1 + x
# e_log.c
LOG_LN2_HI = 6.93147180369123816490e-01           # its trailing bits are zeros: k ln2_hi is exact
LOG_LN2_LO = 1.90821492927058770002e-10
LOG_LG1 = 6.666666666666735130e-01
LOG_LG2 = 3.999999999940941908e-01
LOG_LG3 = 2.857142874366239149e-01
LOG_LG4 = 2.222219843214978396e-01
LOG_LG5 = 1.818357216161805012e-01
LOG_LG6 = 1.531383769920937332e-01
LOG_LG7 = 1.479819860511658591e-01
