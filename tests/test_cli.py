"""``python -m numreduce``: help, argument errors and streaming output (subprocess)."""

import os
import subprocess
import sys

import numpy as np
import pytest

CMD = [sys.executable, "-P", "-m", "numreduce"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run(*args, timeout=60):
    return subprocess.run(CMD + list(args), capture_output=True, text=True, timeout=timeout,
                          env=ENV)


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--quick", "--help"]])
def test_help_prints_usage_without_running(args):
    r = run(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: python -m numreduce")
    assert "bench" in r.stdout and "--quick" in r.stdout
    # The job itself (configuration, demo, tables) did not run.
    assert "numreduce configuration" not in r.stdout
    assert "native_reduce" not in r.stdout
    assert r.stderr == ""


@pytest.mark.parametrize("args", [["bench", "--help"], ["bench", "-h"]])
def test_bench_help(args):
    r = run(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: python -m numreduce bench")
    assert "--plot FILE" in r.stdout and "--quick" in r.stdout
    assert "performance targets (same-run" not in r.stdout


@pytest.mark.parametrize("args, word", [
    (["--bogus"], "--bogus"),
    (["bench", "--bogus"], "--bogus"),
    (["benchmark"], "benchmark"),
    (["bench", "--plot"], "--plot"),
    (["bench", "extra"], "extra"),
])
def test_unknown_arguments_exit_2(args, word):
    r = run(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert "usage: python -m numreduce" in r.stderr
    assert "error:" in r.stderr and word in r.stderr


def test_bench_quick_streams_rows():
    """Rows arrive while the benchmark is still running (flushed into a pipe),
    in the table's format; the whole quick run takes about 10 s here."""
    proc = subprocess.Popen(CMD + ["bench", "--quick"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("minmax float32 1e+05 vs min+max"):
                break
        else:
            pytest.fail("no table row in the output:\n" + "".join(lines))
        # The first row came through the pipe before the run ended.
        assert proc.poll() is None
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    out = "".join(lines) + rest
    assert proc.returncode == 0, err
    header = [ln for ln in out.splitlines() if ln.startswith("case ")]
    assert len(header) == 1 and "status" in header[0]
    rows = [ln for ln in out.splitlines() if ln.rstrip().endswith((" ok", " MISS"))]
    assert len(rows) >= 20
    assert any(r.startswith("fsum f64 1e+06 vs np.sum") for r in rows)
    # each measured ratio says its direction, as its target does
    for r in rows:
        assert ("x the time  <= " in r) or ("x faster  >= " in r) or ("x faster  faster" in r), r


def test_bench_save_round_trip(tmp_path):
    """What `bench --save` stores (the docs site plots it) loads back as the
    rows target_rows gave, with the run's configuration and note."""
    from numreduce import _bench

    rows = [_bench._ratio_row("minmax f64 1e7 vs min+max", 1e-3, 2.5e-3, 1.9, "faster"),
            _bench._ratio_row("fsum f64 1e7 vs np.sum", 3e-3, 1e-3, 2.0, "at_most")]
    path = tmp_path / "run.json"
    _bench.save_rows(rows, str(path), quick=True, note="loaded machine")
    got, doc = _bench.load_rows(str(path))
    assert got == rows
    assert [r[5] for r in got] == ["ok", "MISS"]
    assert doc["command"] == "python -m numreduce bench --quick"
    assert doc["note"] == "loaded machine"
    assert doc["config"]["numpy"] == np.__version__


def test_bench_save_needs_a_file():
    r = run("bench", "--save")
    assert r.returncode == 2 and "--save" in r.stderr


def test_main_job_leads_with_the_path_and_ends_with_the_configuration():
    """`python -m numreduce --quick`: one plain line on the reduce path, the
    demo and the tables, the full configuration last; every ratio column is
    a speedup (higher is better)."""
    import numreduce as nr

    r = run("--quick", timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"numreduce {nr.__version__} on NumPy {np.__version__}: ")
    assert "`nr.reduce` gives the same results" in lines[0]
    assert ("arrives with NumPy 2.6" in lines[0]) == (not nr.HAVE_NATIVE_REDUCE)
    assert lines[2].startswith(">>> a = ")
    config = lines.index("numreduce configuration (numreduce.show_config())")
    accuracy = next(i for i, ln in enumerate(lines) if ln.startswith("Accuracy:"))
    assert accuracy < config
    assert not any("native_reason" in ln for ln in lines[:config])
    assert any(ln.strip().startswith("native_reason:") for ln in lines[config:])
    head = next(ln for ln in lines if ln.lstrip().startswith("dtype"))
    assert "speedup vs min+max" in head and "speedup vs max alone" in head
    assert "time /" not in r.stdout
    lse = next(ln for ln in lines if ln.startswith("logsumexp, 30*N(0,1)"))
    assert "n/a" not in lse


def test_family_row_below_one_says_why(monkeypatch):
    from numreduce import _bench

    monkeypatch.setattr(_bench, "best_times", lambda *fns, **kw: [2.0, 1.0])
    monkeypatch.setattr(_bench, "family_cases", lambda n, quick: [
        ("fsum 1-D f64 1e+06", None, None, "np.sum"),
        ("meanvar 1-D f64 1e+06", None, None, "np.mean+np.var")])
    out = _bench.family_table(quick=True).splitlines()
    assert out[2].endswith("0.50x  np.sum (*)")
    assert out[3].endswith("0.50x  np.mean+np.var")
    assert out[4].startswith("(*) fsum below 1: the compensation's cost")
    assert len(out) == 5


def test_accuracy_references_without_the_optional_packages(monkeypatch):
    """Without mpmath the logsumexp reference is math.fsum-based (agreeing
    with mpmath's to about 1e-16), without SciPy the row compares NumPy's
    expression: no `n/a`."""
    from numreduce import _bench

    y = np.random.default_rng(5).standard_normal(2000) * 30
    with_mp, name = _bench._logsumexp_reference(y)
    assert name == "mpmath"
    monkeypatch.setitem(sys.modules, "mpmath", None)
    without, name = _bench._logsumexp_reference(y)
    assert name == "math.fsum"
    assert abs(without - with_mp) <= 4e-16 * abs(with_mp)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    table = _bench.accuracy_table()
    row = next(ln for ln in table.splitlines() if ln.startswith("logsumexp"))
    assert "(ref: math.fsum)" in row and row.endswith("np.max+log(np.sum(exp))")
    assert "n/a" not in row
