"""set_num_threads argument validation and show_config's native hint."""

import contextlib
import io
import operator
import os
import subprocess
import sys

import numpy as np
import pytest

import numreduce as nr


@pytest.fixture
def restore_threads():
    old = nr.get_num_threads()
    yield
    nr.set_num_threads(old)


@pytest.mark.parametrize("bad", [1.5, 2.0, "2", b"2", None, [2], np.float64(2.0), 2 + 0j])
def test_set_num_threads_rejects_non_integers_like_operator_index(bad, restore_threads):
    with pytest.raises(TypeError):
        operator.index(bad)  # the rule we follow
    nr.set_num_threads(3)
    with pytest.raises(TypeError, match=r"set_num_threads: n must be an integer, not "):
        nr.set_num_threads(bad)
    assert nr.get_num_threads() == 3  # unchanged


@pytest.mark.parametrize("bad", [True, False, np.True_])
def test_set_num_threads_rejects_bool(bad, restore_threads):
    # operator.index(True) is 1, but a bool is not a count (NumPy's integer
    # arguments such as np.zeros' shape reject it too).
    with pytest.raises(TypeError):
        np.zeros(True)
    nr.set_num_threads(3)
    with pytest.raises(TypeError, match=r"set_num_threads: n must be an integer, not .*bool"):
        nr.set_num_threads(bad)
    assert nr.get_num_threads() == 3


@pytest.mark.parametrize("bad", [0, -1, 1025, 2**70, -2**70])
def test_set_num_threads_range(bad, restore_threads):
    nr.set_num_threads(2)
    with pytest.raises(ValueError, match=r"set_num_threads: n must be between 1 and 1024"):
        nr.set_num_threads(bad)
    assert nr.get_num_threads() == 2


@pytest.mark.parametrize("good", [1, 4, np.int64(3), np.uint8(2), 1024])
def test_set_num_threads_accepts_integers(good, restore_threads):
    nr.set_num_threads(1)
    assert nr.set_num_threads(good) == 1
    assert nr.get_num_threads() == operator.index(good)


@pytest.mark.parametrize("bad", [1.5, True, "2", None])
def test_c_side_rejects_the_same(bad, restore_threads):
    """The extension's own entry point is safe on its own (no truncation)."""
    nr.set_num_threads(2)
    with pytest.raises(TypeError, match="must be an integer"):
        nr._core._set_num_threads(bad)
    assert nr.get_num_threads() == 2


@pytest.mark.parametrize("value, exc", [("1.5", "ValueError"), ("two", "ValueError"),
                                        ("0", "ValueError")])
def test_env_variable_is_validated(value, exc):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["NUMREDUCE_NUM_THREADS"] = value
    r = subprocess.run([sys.executable, "-P", "-c", "import numreduce"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode != 0
    assert f"{exc}: NUMREDUCE_NUM_THREADS={value!r}" in r.stderr


def test_show_config_native_hint():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        nr.show_config()
    out = buf.getvalue()
    a = np.arange(5.0)
    if nr.HAVE_NATIVE_REDUCE:
        assert "native_hint" not in out
        assert nr.minimummaximum.reduce(a) == nr.reduce(nr.minimummaximum, a)
    else:
        # The hint is true: the native call raises and the engine call works.
        with pytest.raises(ValueError, match="reduce only supported for functions returning"):
            nr.minimummaximum.reduce(a)
        assert nr.reduce(nr.minimummaximum, a) == (np.min(a), np.max(a))
        line = [ln for ln in out.splitlines() if "native_hint" in ln]
        assert len(line) == 1
        assert line[0].strip() == ("native_hint: minimummaximum.reduce(...) raises on this "
                                   "NumPy; use numreduce.reduce(minimummaximum, ...)")
        assert nr._config.config()["native_hint"] == line[0].split(": ", 1)[1]


def test_config_names_the_c_api_and_the_registry():
    facts = nr._config.config()
    assert facts["c_api"] == "%d.%d" % nr.C_API_VERSION
    names = facts["registered_ufuncs"].split(", ")
    assert names[:8] == ["minimummaximum", "fminfmax", "moments", "nanmoments", "summary",
                         "nansummary", "maxsumexp", "twosum"]


def test_native_reason_is_plain_words():
    """show_config's native_reason (and the native tests' skip reason) says
    in plain words that this NumPy has no multi-output reduction slots,
    not the probe's internal error ('invalid slot number 11 ...')."""
    from numreduce import _config
    reason = _config.config()["native_reason"]
    if nr.HAVE_NATIVE_REDUCE:
        assert reason == nr._core._NATIVE_REASON
    elif nr._core._NATIVE_REASON.startswith("NumPy rejects the reduction-loop slot"):
        assert "slot number" not in reason and "ArrayMethod" not in reason
        assert reason.startswith("this NumPy has no multi-output reduction slots")


def test_simd_kernels_say_which_or_why_none():
    """show_config's simd_kernels names the vector level in use, or says
    that there is none and why: the build disabled them (meson -Dsimd=false;
    NUMREDUCE_SIMD is then no cap on anything) or the compiler/CPU has none.
    On x86-64 Linux (GCC or Clang: the only compilers that build it there)
    only the build option can leave them out."""
    import platform

    kernels = nr._config.config()["simd_kernels"]
    disabled = ("none (scalar loops: disabled by the build, -Dsimd=false; "
                "NUMREDUCE_SIMD has no effect)")
    platform_none = "none (scalar loops: no vector kernels for this compiler or CPU)"
    assert kernels in ("baseline (SSE2)", "AVX2+FMA", "AVX-512", disabled, platform_none), kernels
    if sys.platform == "linux" and platform.machine() == "x86_64":
        assert kernels != platform_none
    if kernels.startswith("none"):
        for level in ("baseline", "avx512"):
            r = subprocess.run([sys.executable, "-P", "-c",
                                "from numreduce import _config; "
                                "print(_config.config()['simd_kernels'])"],
                               capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, NUMREDUCE_SIMD=level))
            assert r.returncode == 0 and r.stdout.strip() == kernels, (level, r.stdout, r.stderr)
