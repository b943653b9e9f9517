"""The exp inside log-sum-exp (traits/expfn.hpp: the 2^(j/16) table exp of the
block kernels, in the SIMD sum_exp kernels and the scalar tails) against
references nobody here wrote (mpmath, math.fsum of math.exp), at every SIMD
level, with the argument at every lane position.

``logsumexp([0, d, -inf, ...])`` is ``log1p(exp(d))``: for ``d < -40`` that is
``exp(d)`` itself (``log1p(t) = t`` in float64 there), so a dense sweep of
``d`` over ``[-745.6, 0]`` (the table's cell boundaries, the subnormal range
and the underflow edge included) checks the kernel's exp to about half an
ulp; above -40 the ``log1p`` joins (within 1.5 ulp).  Every float16 value
runs as ``logsumexp([h, 0])`` against mpmath rounded to float16.
"""

import math
import textwrap

import numpy as np
import pytest
from helpers import run_at_simd_level

mpmath = pytest.importorskip("mpmath", reason="mpmath (the exact reference) is not installed")

W = 64  # row width: several vectors of every variant, so the SIMD kernel runs


def _sweep():
    rng = np.random.default_rng(2026)
    ln2_16 = np.log(2.0) / 16
    cells = np.arange(-17220, 1) * ln2_16  # the table's cell boundaries N ln2/16 ...
    edges = np.concatenate([cells, np.nextafter(cells, -np.inf), np.nextafter(cells, 0.0),
                            cells - ln2_16 / 2])  # ... and the rounding midpoints
    d = np.concatenate([
        np.linspace(-745.6, 0.0, 30001),
        -rng.uniform(0, 745.6, 20000),
        -rng.uniform(0, 1e-3, 2000),
        -np.exp(rng.uniform(-700, 6.6, 3000)),  # every magnitude
        edges[(edges <= 0) & (edges >= -745.6)],
        np.linspace(-745.6, -700.0, 5001),  # subnormal results and the underflow edge
        [0.0, -0.0, -5e-324, -1e-300, -1e-17, -2.0**-53, -708.3964185322641,
         -708.3964185322642, -744.4400719213812, -745.1332191019411, -745.1332191019412,
         -745.5, np.nextafter(-745.5, 0), np.nextafter(-745.5, -np.inf)],
    ])
    d = np.unique(np.clip(d, -745.6, 0.0))
    d[d == 0] = 0.0
    return d


def _to_double(v):
    """mpf -> the nearest double (float() of an mpf rounds twice below 2**-1022:
    to 53 bits, then to the subnormal grid)."""
    if abs(v) < mpmath.mpf(2) ** -1022:
        return math.ldexp(int(mpmath.nint(v * mpmath.mpf(2) ** 1074)), -1074)
    return float(v)


def _reference(d):
    """log1p(exp(d)) as the nearest double and the remainder (in units of
    that double's spacing), so that errors are measured against the exact
    value, not against its rounding."""
    out, rem = np.empty(d.size), np.empty(d.size)
    with mpmath.workprec(120):
        for i, v in enumerate(d.tolist()):
            e = mpmath.log1p(mpmath.exp(mpmath.mpf(v)))
            out[i] = _to_double(e)
            rem[i] = float((e - mpmath.mpf(out[i])) / mpmath.mpf(float(np.spacing(out[i]))))
    return out, rem


def _half_reference():
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    h = h[np.isfinite(h)]
    ref = np.empty(h.size)
    with mpmath.workprec(80):
        for i, v in enumerate(h.astype(np.float64).tolist()):
            x = mpmath.mpf(v)
            ref[i] = float(mpmath.log(mpmath.exp(x) + 1))  # logsumexp([h, 0])
    return h, ref


CHECK = textwrap.dedent(r'''
    import math, sys
    import mpmath
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    W = int(sys.argv[2])
    data = np.load(sys.argv[1])
    d, ref, rem, h, href = data["d"], data["ref"], data["rem"], data["h"], data["href"]
    checked = 0

    def ulps(got, want):  # |got - exact| in ulps of the exact value's double
        return np.abs((got - want) / np.spacing(np.abs(want)) - rem)

    # d at lane p of a row whose max 0 sits at lane (p + 1) % W, -inf elsewhere
    idx = np.arange(d.size)
    p = idx % W
    rows = np.full((d.size, W), -np.inf)
    rows[idx, p] = d
    rows[idx, (p + 1) % W] = 0.0
    for name, got in (("axis=1", nr.logsumexp(rows, axis=1)),
                      ("float32 rows", None)):
        if got is None:
            break
        u = ulps(got, ref)
        normal = (d < -40) & (ref >= 2.0**-1022)  # the result is exp(d) itself
        sub = ref < 2.0**-1022  # subnormal: rounded twice (53 bits, then 2^-64)
        big = d >= -40  # log1p(exp(d)): the exp's error and log1p's rounding
        w = [float(u[k].max()) for k in (normal, sub, big)]
        print(name, "max ulp: exp(d) normal", w[0], "subnormal", w[1], "log1p(exp(d))", w[2])
        for k, bound, what in ((normal, 0.6, "normal"), (sub, 1.0, "subnormal"), (big, 1.6, "log1p")):
            assert u[k].max() <= bound, (name, what, d[k][np.argmax(u[k])], u[k].max())
        checked += d.size
    # 1-D calls (the whole-array fast path) on a subset, the row's bits
    for i in range(0, d.size, 37):
        g = nr.logsumexp(rows[i])
        assert g == nr.logsumexp(rows[i:i + 1], axis=1)[0], (d[i], g)
        assert abs(g - ref[i]) <= 1.5 * np.spacing(abs(ref[i])), (d[i], g, ref[i])
        checked += 1
    # a long row: d repeated past one block of 1024, with one 0
    for v in (-1.0, -37.5, -700.0, -744.0, -745.4):
        for n in (4 * W - 1, 1023, 1024, 1025, 3000):
            a = np.full(n, v)
            a[n // 3] = 0.0
            with mpmath.workprec(100):
                want = float(mpmath.log1p((n - 1) * mpmath.exp(v)))
            g = nr.logsumexp(a)
            if want > 1e-300:  # the docs' bound for these: well within 4e-15
                assert abs(g - want) <= 4e-15 * want, (v, n, g, want)
            assert g >= 0.0, (v, n, g)
            checked += 1

    # every finite float16 h as logsumexp([h, 0]), at every lane position
    idx = np.arange(h.size)
    p = idx % W
    r16 = np.full((h.size, W), -np.inf, dtype=np.float16)
    r16[idx, p] = h
    r16[idx, (p + 7) % W] = np.float16(0)
    with np.errstate(over="ignore"):
        got16 = nr.logsumexp(r16, axis=1)
    assert got16.dtype == np.float16
    # the float64 result rounded once: within half a float16 ulp of the
    # exact value (plus a hair for a float64 result next to a tie)
    finite = np.isfinite(href.astype(np.float16))
    err = np.abs(got16[finite].astype(np.float64) - href[finite])
    tol = 0.5 * np.spacing(np.abs(href[finite]).astype(np.float16)).astype(np.float64)
    bad = err > tol * (1 + 1e-9) + 1e-300
    assert not bad.any(), (h[finite][bad][:5], got16[finite][bad][:5], href[finite][bad][:5])
    assert np.isinf(got16[~finite]).all()
    checked += h.size

    # sizes around the vector widths: specials at the first, last, every
    # position; huge spreads; float32 equal to the float64 of its values
    rng = np.random.default_rng(5)
    for n in list(range(1, 70)) + [127, 128, 129, 255, 256, 257, 1023, 1024, 1025, 2049]:
        x = rng.standard_normal(n) * 300 - 100
        for off in (0, 1):
            a = np.concatenate([[0.0] * off, x])[off:]
            m = float(a.max())
            want = m + math.log(math.fsum(math.exp(v - m) for v in a.tolist()))
            g = nr.logsumexp(a)
            assert abs(g - want) <= 4e-16 * max(1.0, abs(want)), (n, off, g, want)
            f = a.astype(np.float32)
            assert nr.logsumexp(f) == np.float32(nr.logsumexp(f.astype(np.float64))), (n, off)
            checked += 2
        spread = np.concatenate([[0.0], -np.exp(rng.uniform(-50, 708, n))])
        m = 0.0
        want = math.log1p(math.fsum(math.exp(v) for v in spread[1:].tolist()))
        g = nr.logsumexp(spread)
        assert abs(g - want) <= 4e-16 * max(abs(want), 1e-300) + 1e-323, (n, g, want)
        for pos in sorted({0, n // 2, n - 1}):
            for sv, check in ((np.nan, np.isnan), (np.inf, lambda r: r == np.inf),
                              (-np.inf, None)):
                b = x[:n].copy()
                b[pos] = sv
                r = nr.logsumexp(b)
                if check is not None:
                    assert check(r), (n, pos, sv, r)
                elif n > 1:
                    c = np.delete(b, pos)
                    assert abs(r - nr.logsumexp(c)) <= 4e-16 * max(1.0, abs(r)), (n, pos, r)
                checked += 1
        for sv in (np.nan, np.inf, -np.inf):
            r = nr.logsumexp(np.full(n, sv))
            assert (np.isnan(r) if sv != sv else r == sv), (n, sv, r)
            checked += 1
    print("checked", checked)
''')

@pytest.fixture(scope="module")
def references(tmp_path_factory):
    d = _sweep()
    h, href = _half_reference()
    path = tmp_path_factory.mktemp("exp") / "ref.npz"
    ref, rem = _reference(d)
    np.savez(path, d=d, ref=ref, rem=rem, h=h, href=href)
    return str(path)


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_exp_kernel_against_mpmath(level, references):
    last = run_at_simd_level(CHECK, level, args=(references, str(W)))
    assert last.startswith("checked ") and int(last.split()[1]) > 100000, last
