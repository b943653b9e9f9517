"""Results are bitwise identical for any thread count.

Whole-array reductions of more than 2**21 elements are split into fixed
chunks of 2**21 elements merged pairwise in index order, whatever
``set_num_threads`` says; threads only decide who computes which chunk.  So
every reduction that threads must give the same bits with 1 to 8 threads
and at the default (the usable cores, whatever their number), on sizes
around the chunk size (one chunk, one chunk and a bit, several, an uneven
last chunk)."""

import numpy as np
import pytest

import numreduce as nr
from numreduce import _config

CHUNK = 2**21
SIZES = [CHUNK - 1, CHUNK + 1, 2 * CHUNK + 12345]
THREADS = range(1, 9)


def _bits(res):
    """Every output's bytes (dtype included), so a last-bit or NaN-payload
    difference fails."""
    if not isinstance(res, tuple):
        res = (res,)
    return [(np.asarray(r).dtype.str, np.asarray(r).tobytes()) for r in res]


def _per_thread_count(f):
    """f's bits with 1 to 8 threads, then at the default setting."""
    out = []
    for t in THREADS:
        nr.set_num_threads(t)
        out.append(_bits(f()))
    _config.reset_num_threads()
    out.append(_bits(f()))
    return out  # (conftest restores the setting)


def _assert_thread_independent(f):
    out = _per_thread_count(f)
    default = f"the default ({nr.get_num_threads()} threads)"
    for t, r in zip([*THREADS, default], out):
        assert r == out[0], f"{t} threads differ from 1 thread"


_RNG = np.random.default_rng(12345)
_BASE = _RNG.standard_normal(max(SIZES)) + 1e3  # large offset: merges matter

# (name, function of a 1-D array) for every whole-array reduction that threads
FUNCS = [
    ("meanvar", nr.meanvar),
    ("meanstd", nr.meanstd),
    ("nanmeanvar", nr.nanmeanvar),
    ("moments", lambda a: nr.reduce(nr.moments, a)),
    ("nanmoments", lambda a: nr.reduce(nr.nanmoments, a)),
    ("summary", lambda a: nr.reduce(nr.summary, a)),
    ("nansummary", lambda a: nr.reduce(nr.nansummary, a)),
    ("describe", lambda a: nr.describe(a)),
    ("fsum", nr.fsum),
    ("twosum", lambda a: nr.reduce(nr.twosum, a)),
    ("logsumexp", nr.logsumexp),
    ("maxsumexp", lambda a: nr.reduce(nr.maxsumexp, a)),
    ("minmax", nr.minmax),
    ("nanminmax", nr.nanminmax),
    ("minimummaximum", lambda a: nr.reduce(nr.minimummaximum, a)),
    ("fminfmax", lambda a: nr.reduce(nr.fminfmax, a)),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name,f", FUNCS, ids=[n for n, _ in FUNCS])
def test_float64_bitwise_for_1_to_8_threads(name, f, n):
    a = _BASE[:n]
    if name.startswith("nan"):
        a = a.copy()
        a[::1001] = np.nan
    _assert_thread_independent(lambda: f(a))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int16])
@pytest.mark.parametrize("name,f", [("meanvar", nr.meanvar), ("fsum", nr.fsum),
                                    ("minmax", nr.minmax)], ids=["meanvar", "fsum", "minmax"])
def test_other_dtypes_bitwise_for_1_to_8_threads(name, f, dtype):
    a = (_BASE[:2 * CHUNK + 7] * (1 if dtype is np.float32 else 20)).astype(dtype)
    _assert_thread_independent(lambda: f(a))


def test_float32_logsumexp_bitwise_for_1_to_8_threads():
    a = (_BASE[:2 * CHUNK + 7] - 1e3).astype(np.float32)
    _assert_thread_independent(lambda: nr.logsumexp(a))


def test_moments_overflow_redo_bitwise_for_1_to_8_threads():
    """Finite data spanning more than the double range in a later chunk: the
    moments are redone in their halved frame (docs/accuracy.md); that redo
    must not depend on the thread count either, and must give NumPy's inf
    variance with the exact mean."""
    a = np.full(3 * CHUNK + 5, 1e308)
    a[: CHUNK // 2] = -1e308
    _assert_thread_independent(lambda: nr.meanvar(a))
    m, v = nr.meanvar(a)
    exact = 1e308 * ((a.size - 2 * (CHUNK // 2)) / a.size)
    assert v == np.inf
    # docs/accuracy.md's bound for the stream path: 8 ulp of the exact mean
    # plus 4 eps max|x| (a cancelling sum's conditioning)
    assert abs(m - exact) <= 8 * np.spacing(exact) + 4 * np.finfo(float).eps * 1e308


def test_issue_example_three_threads_equal_one():
    """The issue's case: 2e7 elements of N(0, 1) + 1e3, 3 threads against 1."""
    a = np.random.default_rng(0).standard_normal(2 * 10**7) + 1e3
    an = a.copy()
    an[::97] = np.nan
    old = nr.set_num_threads(1)
    try:
        one = [_bits(nr.meanvar(a)), _bits(nr.nanmeanvar(an)),
               _bits(nr.reduce(nr.moments, a))]
        nr.set_num_threads(3)
        three = [_bits(nr.meanvar(a)), _bits(nr.nanmeanvar(an)),
                 _bits(nr.reduce(nr.moments, a))]
    finally:
        nr.set_num_threads(old)
    assert three == one


# Grouped reductions into fresh slots (reduce_by_group and the grouped user
# functions) cut a long stream into the same fixed pieces and merge the
# pieces' slots in index order, so they too are bitwise the same for any
# thread count, and still equal to the references.
_GIDS = np.random.default_rng(7).integers(0, 37, max(SIZES))

GROUPED = [
    ("group_minmax", lambda a, g: nr.group_minmax(a, g, num_groups=37)),
    ("group_meanvar", lambda a, g: nr.group_meanvar(a, g, num_groups=37, ddof=1)),
    ("group_logsumexp", lambda a, g: nr.group_logsumexp(a, g, num_groups=37)),
    ("group_fsum", lambda a, g: nr.group_fsum(a, g, num_groups=37)),
    ("moments", lambda a, g: nr.reduce_by_group(nr.moments, a, g, num_groups=37)),
    ("nanmoments", lambda a, g: nr.reduce_by_group(nr.nanmoments, a, g, num_groups=37)),
    ("summary", lambda a, g: nr.reduce_by_group(nr.summary, a, g, num_groups=37)),
    ("nansummary", lambda a, g: nr.reduce_by_group(nr.nansummary, a, g, num_groups=37)),
    ("fminfmax", lambda a, g: nr.reduce_by_group(nr.fminfmax, a, g, num_groups=37)),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name,f", GROUPED, ids=[n for n, _ in GROUPED])
def test_grouped_bitwise_for_1_to_8_threads(name, f, n):
    a, g = _BASE[:n].copy(), _GIDS[:n]
    a[::1001] = np.nan if name in ("nanmoments", "nansummary", "fminfmax") else a[::1001]
    _assert_thread_independent(lambda: f(a, g))


def test_grouped_pieces_match_references():
    """The pieced path (several pieces, few groups) against NumPy's own
    ufunc.at and pandas' groupby, with NaN in a late piece and one group
    seen only in the last piece."""
    pd = pytest.importorskip("pandas", reason="pandas not installed")
    n = 2 * CHUNK + 12345
    a = _BASE[:n].copy()
    g = _GIDS[:n].copy()
    g[g == 5] = 6
    g[-3] = 5                          # group 5: one element, in the last piece
    a[CHUNK + 17] = np.nan             # NaN in the second piece, group g[CHUNK + 17]
    lo, hi = nr.group_minmax(a, g, num_groups=37)
    rlo = np.full(37, np.inf)
    rhi = np.full(37, -np.inf)
    with np.errstate(invalid="ignore"):  # NumPy warns on the NaN
        np.minimum.at(rlo, g, a)
        np.maximum.at(rhi, g, a)
    np.testing.assert_array_equal(lo, rlo)
    np.testing.assert_array_equal(hi, rhi)
    assert lo[5] == hi[5] == a[-3]
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):  # group 5, as np.var
        m, v = nr.group_meanvar(a, g, num_groups=37, ddof=1)
    ref = pd.Series(a).groupby(g).agg(["mean", "var"])
    ok = ~np.isnan(ref["var"].to_numpy())   # group 5 has one element (ddof=1)
    ok[g[CHUNK + 17]] = False               # pandas skips the NaN; meanvar propagates it
    assert np.isnan(v[5]) and m[5] == a[-3]
    np.testing.assert_allclose(m[ok], ref["mean"].to_numpy()[ok], rtol=1e-13)
    np.testing.assert_allclose(v[ok], ref["var"].to_numpy()[ok], rtol=1e-10)
    assert np.isnan(m[g[CHUNK + 17]]) and np.isnan(v[g[CHUNK + 17]])


@pytest.mark.parametrize("threads", [1, 2, 3, "default"])
def test_grouped_pieces_2d_and_where_bitwise(threads):
    """Rows of 3 along axis 0 (pieces of whole rows), with a where mask."""
    n = (2 * CHUNK) // 3 + 101
    a = _BASE[: 3 * n].reshape(n, 3)
    g = _GIDS[:n]
    w = (np.arange(3 * n).reshape(n, 3) % 7) != 3
    old = nr.set_num_threads(1)
    try:
        ref = _bits(nr.reduce_by_group(nr.moments, a, g, num_groups=37, where=w))
        if threads == "default":
            _config.reset_num_threads()
        else:
            nr.set_num_threads(threads)
        got = _bits(nr.reduce_by_group(nr.moments, a, g, num_groups=37, where=w))
    finally:
        nr.set_num_threads(old)
    assert got == ref
    cnt, mean, _ = nr.reduce_by_group(nr.moments, a, g, num_groups=37, where=w)
    exp_cnt = np.zeros((37, 3))
    np.add.at(exp_cnt, g, w)
    np.testing.assert_array_equal(cnt, exp_cnt)
    exp_sum = np.zeros((37, 3))
    np.add.at(exp_sum, g, np.where(w, a, 0))
    np.testing.assert_allclose(mean, exp_sum / exp_cnt, rtol=1e-12)


ROWS = [
    ("minimummaximum", lambda a, g, G: nr.reduce_by_group(nr.minimummaximum, a, g, G, axis=-1)),
    ("fminfmax", lambda a, g, G: nr.reduce_by_group(nr.fminfmax, a, g, G, axis=-1)),
    ("moments", lambda a, g, G: nr.reduce_by_group(nr.moments, a, g, G, axis=-1)),
    ("nanmoments", lambda a, g, G: nr.reduce_by_group(nr.nanmoments, a, g, G, axis=-1)),
    ("summary", lambda a, g, G: nr.reduce_by_group(nr.summary, a, g, G, axis=-1)),
    ("nansummary", lambda a, g, G: nr.reduce_by_group(nr.nansummary, a, g, G, axis=-1)),
    ("group_meanvar", lambda a, g, G: nr.group_meanvar(a, g, G, axis=-1, ddof=1)),
    ("group_fsum", lambda a, g, G: nr.group_fsum(a, g, G, axis=-1)),
]


@pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.parametrize("rows", [2, 3, 4, 7])
@pytest.mark.parametrize("name,f", ROWS, ids=[n for n, _ in ROWS])
def test_grouped_rows_sharing_ids_bitwise_as_each_row_alone(name, f, rows):
    """Rows that share their group ids (a (rows, n) block along its last
    axis: one pass over the ids for all rows, engine_scatter.cpp) give each
    row bitwise its own 1-D result, for 1 to 3 threads: over several
    pieces, with NaN in one row (redone alone), more groups than the last
    piece has elements, and a few groups against many."""
    n = 2 * CHUNK + 12345
    old = nr.set_num_threads(1)
    try:
        for G, m in ((37, n), (2000, 3001), (5000, 3001), (3, 9)):
            if G > m and name in ("minimummaximum", "fminfmax"):
                continue  # empty groups: no initial value
            a = np.random.default_rng(rows).standard_normal((rows, m)) + 1e3
            a[1, m // 2] = np.nan
            g = np.random.default_rng(G).integers(0, G, m)
            g[:min(G, m)] = np.arange(min(G, m))
            nr.set_num_threads(1)
            one = [_bits(f(a[r].copy(), g, G)) for r in range(rows)]
            for t in (1, 2, 3):
                nr.set_num_threads(t)
                res = f(a, g, G)
                res = res if isinstance(res, tuple) else (res,)
                for r in range(rows):
                    assert _bits(tuple(x[r] for x in res)) == one[r], (G, t, r)
    finally:
        nr.set_num_threads(old)


def test_grouped_pieces_bad_id_in_last_piece_and_empty_group():
    n = 2 * CHUNK + 12345
    a = _BASE[:n]
    g = _GIDS[:n].copy()
    g[-2] = 37
    with pytest.raises(IndexError, match=rf"group_ids\[{n - 2}\] = 37 is outside"):
        nr.reduce_by_group(nr.minimummaximum, a, g, num_groups=37)
    g[-2] = 0
    with pytest.raises(ValueError, match="group 37 is empty"):
        nr.reduce_by_group(nr.minimummaximum, a, g, num_groups=38)


# accumulate (and the cumulative user functions): the outer blocks' scans
# are independent, so threads take whole blocks; bitwise the same, and the
# same as the single-output NumPy scans.
SCANS = [
    ("minimummaximum", lambda a: nr.accumulate(nr.minimummaximum, a, axis=1)),
    ("moments", lambda a: nr.accumulate(nr.moments, a, axis=1)),
    ("cumminmax", lambda a: nr.cumminmax(a, axis=-1)),
    ("logcumsumexp", lambda a: nr.logcumsumexp(a - 1e3, axis=1)),
    ("cumfsum", lambda a: nr.cumfsum(a, axis=1)),
    ("cummeanvar", lambda a: nr.cummeanvar(a, axis=1)),
]


@pytest.mark.parametrize("name,f", SCANS, ids=[n for n, _ in SCANS])
def test_accumulate_bitwise_for_1_to_8_threads(name, f):
    a = _BASE[: 97 * 5003].reshape(97, 5003)
    _assert_thread_independent(lambda: f(a))


def test_accumulate_threaded_matches_numpy():
    a = _BASE[: 97 * 5003].reshape(97, 5003).copy()
    a[3, 1000] = np.nan
    old = nr.set_num_threads(3)
    try:
        lo, hi = nr.accumulate(nr.minimummaximum, a, axis=1)
    finally:
        nr.set_num_threads(old)
    np.testing.assert_array_equal(lo, np.minimum.accumulate(a, axis=1))
    np.testing.assert_array_equal(hi, np.maximum.accumulate(a, axis=1))


# ---------------------------------------------------------------------------
# The default count: the usable cores; NUMREDUCE_NUM_THREADS and
# set_num_threads win
# ---------------------------------------------------------------------------

def _run(code, **env_set):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "NUMREDUCE_NUM_THREADS")}
    env.update(env_set)
    r = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_default_is_the_usable_cores():
    import os

    n, chosen, usable = _run("import numreduce as nr, numreduce._config as c; "
                             "print(nr.get_num_threads(), c.threads_chosen(), c.usable_cpus())")
    assert (n, chosen) == (usable, "False")
    expect = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    limit = _config._cgroup_cpu_limit()
    if hasattr(os, "process_cpu_count"):
        expect = os.process_cpu_count()
    assert int(n) == min(expect, limit or expect)


def test_env_variable_wins_over_the_default():
    assert _run("import numreduce as nr, numreduce._config as c; "
                "print(nr.get_num_threads(), c.threads_chosen())",
                NUMREDUCE_NUM_THREADS="3") == ["3", "True"]


def test_set_num_threads_is_a_choice_and_reset_is_the_default():
    _config.reset_num_threads()
    assert not _config.threads_chosen()
    assert nr.get_num_threads() == _config.usable_cpus()
    assert nr.set_num_threads(3) == _config.usable_cpus()
    assert (nr.get_num_threads(), _config.threads_chosen()) == (3, True)
    assert _config.reset_num_threads() == 3
    assert not _config.threads_chosen()


def test_usable_cpus_follows_affinity_and_cgroup_quota(monkeypatch):
    import os

    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    monkeypatch.setattr(_config, "_cgroup_cpu_limit", lambda: None)
    assert _config.usable_cpus() == 3
    monkeypatch.setattr(_config, "_cgroup_cpu_limit", lambda: 2)
    assert _config.usable_cpus() == 2
    monkeypatch.setattr(os, "process_cpu_count", lambda: 1, raising=False)
    assert _config.usable_cpus() == 1


def test_cgroup_cpu_max_is_read(monkeypatch, tmp_path):
    import builtins

    files = {"/proc/self/cgroup": "0::/job\n",
             "/sys/fs/cgroup/job/cpu.max": "250000 100000\n"}
    real_open = builtins.open

    def fake_open(path, *args, **kwargs):
        if path in files:
            f = tmp_path / "f"
            f.write_text(files[path])
            return real_open(f, *args, **kwargs)
        if str(path).startswith(("/proc/self/cgroup", "/sys/fs/cgroup")):
            raise FileNotFoundError(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    assert _config._cgroup_cpu_limit() == 3  # 2.5 cores, rounded up
    files["/sys/fs/cgroup/job/cpu.max"] = "max 100000\n"
    assert _config._cgroup_cpu_limit() is None
    del files["/sys/fs/cgroup/job/cpu.max"]
    files["/sys/fs/cgroup/cpu.max"] = "100000 100000\n"  # a container's root cgroup
    assert _config._cgroup_cpu_limit() == 1


def test_show_config_says_where_the_count_comes_from(capsys):
    _config.reset_num_threads()
    nr.show_config()
    out = capsys.readouterr().out
    assert f"threads: {_config.usable_cpus()}\n" in out
    assert "threads_source: default: the usable cores (1 per Dask task)" in out
    nr.set_num_threads(2)
    nr.show_config()
    assert "threads_source: set by the user (Dask tasks too)" in capsys.readouterr().out
