"""The kernel choices made for the CPU (show_config's cpu, stream_kernels,
prefetch, row_layout) and the kernels they choose between.

The width of the memory-streaming kernels (the min/max family, the axis-0
row streams) and the software prefetch are chosen once per process by the
CPU, or set by NUMREDUCE_STREAM_WIDTH / NUMREDUCE_PREFETCH; every choice
must give the same bits.  Each width runs the vector-kernel check of
test_simd_levels (against NumPy) in a subprocess, and the axis-0 row
kernels -- the register tiles on small blocks, the row streams on blocks
larger than the L2 whose accumulators fit in half the L1d -- are checked
bit for bit against TwoSum written out in NumPy, row after row (the
arithmetic of step()), and min/max against NumPy's own reductions, NaN,
signed zeros, overflow and all-NaN columns included.
"""

import os
import subprocess
import sys
import textwrap

import pytest
from helpers import run_at_simd_level, scalar_build
from test_simd_levels import CHECK

from numreduce import _config

# (width, level): every width under each level that has it; 32 bytes under
# AVX-512 is the AVX-512VL variant (avx512y), under AVX2 the AVX2 one
WIDTHS = [("16", "baseline"), ("32", "avx2"), ("32", "avx512"), ("64", "avx512")]


def _width_says(width, level):
    """A line for the checks: assert that the process runs the
    memory-streaming kernels at `width` bytes, as set (a build without
    vector kernels: that it says it has none; run_at_simd_level runs it
    once, as baseline)."""
    if scalar_build():
        return ('print(_config.config()["simd_kernels"]); '
                'assert _config.config()["stream_kernels"].startswith("none"), '
                '_config.config()["stream_kernels"]')
    isa = {"baseline": "SSE2", "avx2": "AVX2", "avx512": "AVX-512VL" if width == "32"
           else "AVX-512"}[level]
    return ('print(_config.config()["simd_kernels"]); s = _config.config()["stream_kernels"]; '
            f'assert s.startswith("{width}-byte vectors") and "(set by NUMREDUCE_STREAM_WIDTH)" '
            f'in s and (s.split("(")[0].rstrip().endswith("{isa}") or "NEON" in s), s')


@pytest.mark.parametrize("width, level", WIDTHS)
def test_vector_kernels_at_every_stream_width(width, level):
    # the memory-streaming kernels at `width` bytes under `level` (a level
    # the CPU lacks: the test skips, saying so)
    code = CHECK.replace('print(_config.config()["simd_kernels"])', _width_says(width, level))
    checked = run_at_simd_level(code, level, timeout=600, env={"NUMREDUCE_STREAM_WIDTH": width})
    assert checked.startswith("checked ") and int(checked.split()[1]) > 1000, checked


ROWS = textwrap.dedent(r'''
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(11)
    checked = 0

    def twosum_rows(x):
        """TwoSum down the rows, column by column in row order (step()):
        NumPy's IEEE operations, one rounding each."""
        s, c = x[0].copy(), np.zeros_like(x[0])
        with np.errstate(all="ignore"):
            for r in range(1, x.shape[0]):
                v = x[r]
                t = s + v
                b = t - s
                e = (s - (t - b)) + (v - b)
                c = np.where(np.isfinite(t), c + e, 0)
                s = t
        return s, c.astype(x.dtype)

    def same_bits(got, want, what):
        global checked
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype)
            assert g.tobytes() == w.tobytes(), (what, g, w)
        checked += 1

    def same_values(got, want, what):
        global checked
        for g, w in zip(got, want):
            assert np.array_equal(g, w, equal_nan=g.dtype.kind == "f"), (what, g, w)
        checked += 1

    cols_list = (1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 100, 250, 257, 1000)

    def twosum_mid(z):
        """twosum_rows over the middle axis of a 3-D block (its slabs side
        by side: the same IEEE operations, column by column)."""
        s, c = twosum_rows(np.moveaxis(z, 1, 0).reshape(z.shape[1], -1))
        return s.reshape(z.shape[0], z.shape[2]), c.reshape(z.shape[0], z.shape[2])

    # blocks larger than any L2 (8 MiB), whose narrow rows stream whole: the
    # middle axis of (outer, n, cols), n * cols >= 16384 (one call for all
    # the slabs), against the same arithmetic in NumPy
    for dt in ("float64", "float32"):
        for cols in (7, 9, 17, 33, 100, 257, 1000):
            n = max(40, -(-16384 // cols))
            outer = max(2, -(-(8 << 20) // (n * cols * np.dtype(dt).itemsize)))
            z = (rng.standard_normal((outer, n, cols)) * 1e3).astype(dt)
            z[0, 5, 1], z[0, 6, 1] = np.finfo(dt).max, -np.finfo(dt).max
            z[1, 3, cols - 1] = np.nan
            same_bits(nr.reduce(nr.twosum, z, axis=1), twosum_mid(z), (dt, "streamed", cols))
            y = z.copy()
            y[:, :, 0] = np.nan
            y[0, 0, -1] = -0.0
            same_values(nr.reduce(nr.minimummaximum, y, axis=1),
                        (np.minimum.reduce(y, axis=1), np.maximum.reduce(y, axis=1)),
                        (dt, "streamed", cols))
            with np.errstate(invalid="ignore"):
                same_values(nr.reduce(nr.fminfmax, y, axis=1),
                            (np.fmin.reduce(y, axis=1), np.fmax.reduce(y, axis=1)),
                            (dt, "streamed fmin", cols))
    for dt in ("float64", "float32"):
        for cols in cols_list:
            for rows in (1, 2, 17, 300):
                x = (rng.standard_normal((rows, cols)) * 1e3).astype(dt)
                x[rng.random(x.shape) < 0.1] *= 1e7  # cancellation for the error terms
                same_bits(nr.reduce(nr.twosum, x, axis=0), twosum_rows(x), (dt, rows, cols))
        # overflow inside a column (a finite sum, a non-finite error: the
        # column redone), infinities and NaN: the same bits as step()
        big = np.finfo(dt).max
        for cols in (9, 17, 250):
            x = (rng.standard_normal((40, cols)) * 1e3).astype(dt)
            x[5, 1], x[6, 1] = big, -big
            x[3, 2] = np.inf
            x[7, 4] = np.nan
            x[2, cols - 1], x[9, cols - 1] = big, -big
            same_bits(nr.reduce(nr.twosum, x, axis=0), twosum_rows(x), (dt, "overflow", cols))
    for dt in ("float64", "float32", "int64", "uint64", "int32", "uint8", "int16"):
        for cols in cols_list:
            for rows in (1, 2, 33):
                x = (rng.standard_normal((rows, cols)) * 100).astype(dt)
                same_values(nr.reduce(nr.minimummaximum, x, axis=0),
                            (x.min(axis=0), x.max(axis=0)), (dt, rows, cols))
                if dt.startswith("float"):
                    y = x.copy()
                    y[rng.random(y.shape) < 0.2] = np.nan
                    y[:, 0] = np.nan  # an all-NaN column
                    y[0, -1] = -0.0
                    same_values(nr.reduce(nr.minimummaximum, y, axis=0),
                                (np.minimum.reduce(y, axis=0), np.maximum.reduce(y, axis=0)),
                                (dt, rows, cols, "nan"))
                    with np.errstate(invalid="ignore"):
                        same_values(nr.reduce(nr.fminfmax, y, axis=0),
                                    (np.fmin.reduce(y, axis=0), np.fmax.reduce(y, axis=0)),
                                    (dt, rows, cols, "fmin"))
                    # the middle axis of a 3-D block: one slab at a time
                    z = np.stack([y] * 3)
                    same_values(nr.minmax(z, axis=1), (np.min(z, axis=1), np.max(z, axis=1)),
                                (dt, rows, cols, "3-D"))
    print("checked", checked)
''')


@pytest.mark.parametrize("width, level", WIDTHS)
def test_row_streams_at_every_stream_width(width, level):
    code = ROWS.replace('print(_config.config()["simd_kernels"])', _width_says(width, level))
    checked = run_at_simd_level(code, level, timeout=600, env={"NUMREDUCE_STREAM_WIDTH": width})
    assert checked.startswith("checked ") and int(checked.split()[1]) > 500, checked


def test_show_config_says_what_was_chosen_for_this_cpu():
    facts = _config.config()
    for key in ("cpu", "stream_kernels", "prefetch", "row_layout", "arg_rows", "short_blocks"):
        assert isinstance(facts[key], str) and facts[key], key
    if facts["simd_kernels"].startswith("none"):
        assert facts["stream_kernels"].startswith("none")
        assert facts["arg_rows"] == "scalar loops"
        assert facts["short_blocks"] == "scalar loops"
        return
    assert facts["arg_rows"].startswith("rows of up to "), facts
    if facts["simd_kernels"] == "AVX-512":
        assert "the 64-byte pass from " in facts["arg_rows"], facts
        assert facts["short_blocks"].startswith("AVX2's lanes for moments' blocks of fewer than 128 "), facts
    else:
        assert facts["short_blocks"].startswith("one width at every length ("), facts
    assert facts["stream_kernels"].split("-byte")[0] in ("16", "32", "64"), facts
    assert facts["prefetch"].startswith(("4 KiB ahead (", "off (")), facts
    assert "KiB of accumulators stream whole" in facts["row_layout"], facts


@pytest.mark.parametrize("env, key, start", [
    ({"NUMREDUCE_PREFETCH": "off"}, "prefetch", "off (set by NUMREDUCE_PREFETCH)"),
    ({"NUMREDUCE_PREFETCH": "on"}, "prefetch", "4 KiB ahead (set by NUMREDUCE_PREFETCH)"),
    ({"NUMREDUCE_STREAM_WIDTH": "16"}, "stream_kernels", "16-byte vectors, "),
    ({"NUMREDUCE_ROWS_AT_ONCE": "2"}, "short_blocks", "steps 2 rows at a time (set by NUMREDUCE_ROWS_AT_ONCE)"),
    ({"NUMREDUCE_ROWS_AT_ONCE": "1"}, "short_blocks", "steps 1 row at a time (set by NUMREDUCE_ROWS_AT_ONCE)"),
])
def test_kernel_choices_can_be_set(env, key, start):
    if _config.config()["simd_kernels"].startswith("none"):
        pytest.skip("no vector kernels in this build: nothing to choose")
    code = f"from numreduce import _config; print(_config.config()[{key!r}])"
    proc = subprocess.run([sys.executable, "-P", "-c", code], env=dict(os.environ, **env),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = proc.stdout.strip()
    assert got.startswith(start) or (key == "short_blocks" and got.endswith(start)), got


@pytest.mark.parametrize("name, value", [("NUMREDUCE_STREAM_WIDTH", "128"),
                                         ("NUMREDUCE_ROWS_AT_ONCE", "3"),
                                         ("NUMREDUCE_STREAM_WIDTH", "avx2"),
                                         ("NUMREDUCE_PREFETCH", "yes")])
def test_unknown_kernel_choice_is_an_error(name, value):
    proc = subprocess.run([sys.executable, "-P", "-c", "import numreduce"],
                          env=dict(os.environ, **{name: value}), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0 and f"{name}={value!r}" in proc.stderr, proc.stderr
